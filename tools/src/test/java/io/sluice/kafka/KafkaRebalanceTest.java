package io.sluice.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.apply.BatchRunner;
import io.sluice.durable.GraphPositions;
import io.sluice.durable.RecordApplier;
import io.sluice.apply.RetryPolicy;
import io.sluice.config.Kafka;
import io.sluice.config.TemplateConfig;
import io.sluice.durable.RecordCodec;
import io.sluice.metrics.Metrics;
import io.sluice.sink.BoltSink;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.StatementResult;
import io.sluice.support.Await;
import io.sluice.support.ForwardingSink;
import io.sluice.support.KafkaProcess;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import io.sluice.time.Jitter;
import io.sluice.time.Time;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rebalance in the middle of a batch, made deterministic. Owner A's next batch transaction stops at a chosen
 * point ({@link GatedSink}); A goes on polling (its Neo4j calls run beside its consumer's thread), and B joins the
 * group, whose assignor ({@link ToNewest}) moves the partition to B. A's revocation waits for its batch a bounded
 * time (2 s), then lets the partition go with the batch still open: a zombie batch, as one of a process paused or
 * cut off from Kafka would be. Then A's transaction goes on. Whichever point it stopped at, every record must be
 * applied exactly once:
 * <ul>
 *   <li>before its writes (holding no lock): B applies everything; A's batch is fenced and rolled back;</li>
 *   <li>after its writes, before the fence: B's batch waits on A's locks; A commits; B's batch is fenced;</li>
 *   <li>after the fence, before the commit: B's locked read of the offset waits for A's commit and starts after
 *       it.</li>
 * </ul>
 * Then B leaves and A, which was fenced or lost its partition mid-batch, must take the partition back and apply.
 * A and B are {@link KafkaApplier}s with sluice's own consumer settings, over one real broker and one real Neo4j
 * ({@code sluice kafka}, {@code sluice neo4j}); the records are the ones {@link KafkaJournal} produces.
 */
@Timeout(300)
class KafkaRebalanceTest {
    static final String CYPHER = "MERGE (k:Key {id: row.k}) ON CREATE SET k.c = 1, k.seqs = [row.s] "
            + "ON MATCH SET k.c = k.c + 1, k.seqs = k.seqs + row.s";
    static final Template HIT = Template.compile("hit", new TemplateConfig(CYPHER, List.of("k"), Map.of()));
    static final int KEYS = 3;
    static final int PER_KEY = 4;
    /** How long the partition may take to move to B: a rebalance, A's revocation waiting 2 s for its batch. */
    static final Duration MOVE = Duration.ofSeconds(30);

    static Path dir;
    static KafkaProcess kafka;
    static Neo4jProcess neo4j;
    static BoltSink graph;
    static KafkaProducer<byte[], byte[]> producer;
    static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-rebalance-");
        kafka = KafkaProcess.start(dir.resolve("kafka"));
        neo4j = Neo4jProcess.start(dir.resolve("neo4j"));
        graph = BoltSink.connect(new BoltSink.Options(neo4j.uri(), null, null, "neo4j"), Duration.ofSeconds(60),
                Time.SYSTEM);
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrap());
        admin = Admin.create(p);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        producer = new KafkaProducer<>(p);
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {producer, admin, graph, neo4j, kafka}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                System.err.println("closing " + c + ": " + e);
            }
        }
        TestServer.deleteRecursively(dir);
    }

    @Test
    void aBatchStalledBeforeItsWritesIsFencedAfterTheNewOwnerAppliedIt() throws Exception {
        try (Race race = Race.start("before-writes", GatedSink.Point.BEFORE_WRITES)) {
            race.startB();
            Await.until("B owns the partition and applied every record", MOVE,
                    () -> race.b.applier.positions().containsKey(0) && race.position() == race.produced);
            race.assertAStayed();
            race.a.sink.release();
            String outcome = race.a.sink.stalledOutcome();
            race.assertExactlyOnce();
            assertThat(outcome).as("A's stalled batch").isEqualTo(GraphPositions.FENCED);
            race.aTakesOverAgainAndApplies();
        }
    }

    @Test
    void aBatchStalledBeforeItsFenceCommitsAndTheNewOwnersBatchIsFenced() throws Exception {
        try (Race race = Race.start("before-fence", GatedSink.Point.BEFORE_FENCE)) {
            race.startB();
            Await.until("B's batch waits on the locks of A's writes", MOVE, () -> blocked("UNWIND") >= 1);
            race.assertAStayed();
            race.a.sink.release();
            assertThat(race.a.sink.stalledOutcome()).as("A's stalled batch").isEqualTo("committed");
            // A's batch was part of the round: the round is all applied only once B's batch has ended
            Await.until("every record applied", Duration.ofSeconds(60), () -> race.position() == race.produced);
            race.assertExactlyOnce();
            assertThat(race.b.sink.fenced).as("B's batch, fenced").isNotEmpty();
            race.aTakesOverAgainAndApplies();
        }
    }

    @Test
    void aBatchStalledBeforeItsCommitIsWaitedForByTheNewOwner() throws Exception {
        try (Race race = Race.start("before-commit", GatedSink.Point.BEFORE_COMMIT)) {
            race.startB();
            Await.until("B's locked read of the offset waits for A's transaction", MOVE,
                    () -> blocked("SluicePosition") >= 1);
            race.assertAStayed();
            race.a.sink.release();
            assertThat(race.a.sink.stalledOutcome()).as("A's stalled batch").isEqualTo("committed");
            Await.until("B owns the partition and every record is applied", Duration.ofSeconds(60),
                    () -> race.b.applier.positions().containsKey(0) && race.position() == race.produced);
            assertThat(race.b.sink.fenced).as("B started after A's batch: nothing of it to fence").isEmpty();
            race.assertExactlyOnce();
            race.aTakesOverAgainAndApplies();
        }
    }

    /** Transactions Neo4j shows blocked on a lock while running a query that contains {@code text}. */
    static long blocked(String text) {
        try {
            return ((Number) graph.runImplicit("SHOW TRANSACTIONS YIELD currentQuery, status WHERE status STARTS WITH "
                    + "'Blocked' AND currentQuery CONTAINS $q RETURN count(*)", Map.of("q", text))
                    .rows().getFirst().getFirst()).longValue();
        } catch (GraphException e) {
            throw new AssertionError(e);
        }
    }

    static long count(String cypher, Map<String, Object> params) {
        try {
            return ((Number) graph.inReadTransaction(tx -> tx.run(cypher, params)).rows().getFirst().getFirst())
                    .longValue();
        } catch (GraphException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * One topic of one partition, its own group, owner A applying it with a gate armed at {@code point}; the
     * first round of writes applied, the second produced and A's batch of it stopped at the gate.
     */
    static final class Race implements AutoCloseable {
        final String topic;
        final Kafka config;
        final Owner a;
        Owner b;
        /** A's member id in the group, once it owns the partition. */
        String aMember;
        /** Records produced so far, each key's sequence numbers 0, 1, ... in order. */
        long produced;
        private int rounds;

        private Race(String topic, Owner a, Kafka config) {
            this.topic = topic;
            this.a = a;
            this.config = config;
        }

        static Race start(String name, GatedSink.Point point) throws Exception {
            String topic = "rebalance-" + name;
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(1), Optional.empty()))).all()
                    .get(30, TimeUnit.SECONDS);
            positions(graph, topic).createSchema(Time.SYSTEM);
            Kafka config = Kafka.DEFAULT.withBootstrap(kafka.bootstrap()).withTopic(topic).withPartitions(1)
                    .withGroup(topic);
            // the classic protocol, for a client-side assignor that gives the partition to the newest member
            Kafka moving = config.withConsumer(Map.of("max.poll.interval.ms", "60000", "group.protocol", "classic",
                    "partition.assignment.strategy", ToNewest.class.getName()));
            Owner a = Owner.start("a", moving);
            Race race = new Race(topic, a, moving);
            try {
                Await.until("A owns the partition", Duration.ofSeconds(60), () -> a.applier.positions().containsKey(0));
                race.aMember = race.members().iterator().next();
                race.produceRound();
                Await.until("the first round applied", Duration.ofSeconds(60), () -> race.position() == race.produced);
                a.sink.arm(point);
                race.produceRound();
                a.sink.awaitStalled();
                return race;
            } catch (Exception | AssertionError e) {
                race.close();
                throw e;
            }
        }

        /** The group's member ids. */
        Set<String> members() throws Exception {
            Set<String> ids = new TreeSet<>();
            for (MemberDescription m : admin.describeConsumerGroups(List.of(topic)).all().get(30, TimeUnit.SECONDS)
                    .get(topic).members()) {
                ids.add(m.consumerId());
            }
            return ids;
        }

        /** A gave its partition up while its batch was stalled, and stayed in the group: it never stopped polling. */
        void assertAStayed() throws Exception {
            assertThat(members()).as("the group's members: A's the same as before B joined").contains(aMember)
                    .hasSize(2);
        }

        void startB() {
            b = Owner.start("b", config);
        }

        void produceRound() throws Exception {
            for (int s = rounds * PER_KEY; s < (rounds + 1) * PER_KEY; s++) {
                for (int k = 0; k < KEYS; k++) {
                    Map<String, Object> row = Map.of("k", topic + "-" + k, "s", s);
                    producer.send(new ProducerRecord<>(topic, HIT.orderingKey(row).getBytes(StandardCharsets.UTF_8),
                            RecordCodec.encode(new WriteRequest.TemplateRequest(HIT, List.of(row), 0)))).get(30,
                            TimeUnit.SECONDS);
                    produced++;
                }
            }
            rounds++;
        }

        /** The partition's next offset to apply, as the graph says. */
        long position() {
            try {
                return positions(graph, topic).all().getOrDefault(0, 0L);
            } catch (GraphException e) {
                return -1;
            }
        }

        void assertExactlyOnce() {
            Map<String, Object> p = Map.of("prefix", topic + "-");
            assertThat(count("MATCH (k:Key) WHERE k.id STARTS WITH $prefix RETURN sum(k.c)", p))
                    .as("writes applied (each record once)").isEqualTo(produced);
            assertThat(count("MATCH (k:Key) WHERE k.id STARTS WITH $prefix AND k.seqs <> range(0, $last) "
                    + "RETURN count(k)", Map.of("prefix", topic + "-", "last", rounds * PER_KEY - 1)))
                    .as("keys whose sequence numbers are not 0, 1, 2, ... once each").isZero();
            assertThat(a.deadLetters).isEmpty();
            assertThat(b == null ? List.of() : b.deadLetters).isEmpty();
        }

        /** B leaves: A, whose batch was overtaken, must own the partition again and apply a new round. */
        void aTakesOverAgainAndApplies() throws Exception {
            b.close();
            Await.until("A owns the partition again", Duration.ofSeconds(60),
                    () -> a.applier.positions().containsKey(0));
            produceRound();
            Await.until("A applies the next round", Duration.ofSeconds(60), () -> position() == produced);
            assertExactlyOnce();
        }

        @Override
        public void close() {
            a.sink.release();
            if (b != null) {
                b.close();
            }
            a.close();
        }
    }

    /**
     * Every partition to the member whose id sorts last ({@code sluice-b-...} once B has joined, A's again once B
     * has left): an assignment that moves a partition from a live member, eagerly (all revoked, then assigned).
     */
    public static final class ToNewest implements ConsumerPartitionAssignor {
        @Override
        public GroupAssignment assign(Cluster metadata, GroupSubscription group) {
            Map<String, Subscription> members = group.groupSubscription();
            String newest = new TreeSet<>(members.keySet()).last();
            Map<String, Assignment> out = new HashMap<>();
            for (String member : members.keySet()) {
                List<TopicPartition> partitions = new ArrayList<>();
                if (member.equals(newest)) {
                    for (String topic : members.get(member).topics()) {
                        for (PartitionInfo p : metadata.partitionsForTopic(topic)) {
                            partitions.add(new TopicPartition(topic, p.partition()));
                        }
                    }
                }
                out.put(member, new Assignment(partitions));
            }
            return new GroupAssignment(out);
        }

        @Override
        public String name() {
            return "to-newest";
        }
    }

    /** A {@link KafkaApplier} as {@link KafkaJournal} builds one, over its own (gated) connection to Neo4j. */
    static final class Owner implements AutoCloseable {
        final GatedSink sink;
        final KafkaApplier applier;
        final Queue<Long> deadLetters = new ConcurrentLinkedQueue<>();

        private Owner(String name, Kafka config) {
            this.sink = new GatedSink(graph);
            RecordApplier.Parts parts = new RecordApplier.Parts(clock -> new BatchRunner(sink,
                    new RetryPolicy(5, Duration.ofMillis(20), Duration.ofMillis(500)), clock, Jitter.RANDOM,
                    Metrics.NONE), null, 100);
            this.applier = new KafkaApplier(KafkaClients.consumer(config, 100, name), config.topic(),
                    positions(sink, config.topic()),
                    parts, Map.of(HIT.name(), HIT), (partition, offset, payload, error) -> deadLetters.add(offset),
                    (partition, next) -> {}, Time.SYSTEM, Thread.ofPlatform().name("test-applier-" + name).factory());
        }

        static Owner start(String name, Kafka config) {
            Owner o = new Owner(name, config);
            o.applier.start();
            return o;
        }

        @Override
        public void close() {
            applier.close();
        }
    }

    /**
     * The real sink, whose first batch transaction after {@link #arm} stops at the armed point until
     * {@link #release} (bounded: at most two minutes). Batch transactions are the ones that run a template's
     * {@code UNWIND}; the fence is the offset node's locking statement after it.
     */
    static final class GatedSink extends ForwardingSink {
        enum Point { BEFORE_WRITES, BEFORE_FENCE, BEFORE_COMMIT }

        private volatile Point armed;
        private final CountDownLatch stalled = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        /** How the stalled transaction ended: "committed", or its error's code. */
        private final CompletableFuture<String> outcome = new CompletableFuture<>();
        /** Transactions rolled back by the fence. */
        final Queue<String> fenced = new ConcurrentLinkedQueue<>();

        GatedSink(Sink real) {
            super(real);
        }

        void arm(Point point) {
            armed = point;
        }

        void awaitStalled() throws InterruptedException {
            assertThat(stalled.await(60, TimeUnit.SECONDS)).as("a batch reached the gate").isTrue();
        }

        void release() {
            released.countDown();
        }

        String stalledOutcome() throws Exception {
            return outcome.get(60, TimeUnit.SECONDS);
        }

        @Override
        public <T> T inTransaction(TxWork<T> work) throws GraphException {
            Gate gate = new Gate();
            try {
                T value = real.inTransaction(tx -> {
                    T v = work.run(gate.wrap(tx));
                    if (gate.wrote) {
                        gate.at(Point.BEFORE_COMMIT);
                    }
                    return v;
                });
                if (gate.stopped) {
                    outcome.complete("committed");
                }
                return value;
            } catch (GraphException e) {
                if (e.error().code().equals(GraphPositions.FENCED)) {
                    fenced.add(e.error().message());
                }
                if (gate.stopped) {
                    outcome.complete(e.error().code());
                }
                throw e;
            }
        }

        /** One transaction's way through the gate. */
        private final class Gate {
            boolean wrote;
            boolean stopped;

            Sink.SinkTx wrap(Sink.SinkTx tx) {
                return new Sink.SinkTx() {
                    @Override
                    public StatementResult run(String cypher, Map<String, Object> params)
                            throws GraphException {
                        before(cypher);
                        return tx.run(cypher, params);
                    }

                    @Override
                    public void runDiscarding(String cypher, Map<String, Object> params) throws GraphException {
                        before(cypher);
                        tx.runDiscarding(cypher, params);
                    }
                };
            }

            void before(String cypher) {
                if (cypher.startsWith("UNWIND")) {
                    at(Point.BEFORE_WRITES);
                    wrote = true;
                } else if (wrote && cypher.contains("o.fence")) {
                    at(Point.BEFORE_FENCE);
                }
            }

            void at(Point point) {
                if (armed != point) {
                    return;
                }
                armed = null;
                stopped = true;
                stalled.countDown();
                try {
                    if (!released.await(120, TimeUnit.SECONDS)) {
                        System.err.println("the gate at " + point + " was never released; going on");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** The topic's positions in the graph, as the Kafka journal keeps them. */
    static GraphPositions positions(io.sluice.sink.Sink sink, String topic) {
        return new GraphPositions(sink, KafkaJournal.SOURCE_PREFIX + topic, GraphPositions.Legacy.NONE);
    }
}
