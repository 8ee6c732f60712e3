package io.sluice.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.sink.BoltSink;
import io.sluice.support.Await;
import io.sluice.support.KafkaProcess;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.SluiceProcess;
import io.sluice.support.TestServer;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.driver.Transaction;

/**
 * A Neo4j outage longer than the consumers' {@code max.poll.interval.ms}, under both Kafka paths, all real
 * processes: a broker ({@code sluice kafka}), a Neo4j ({@code sluice neo4j}) and two {@code sluice serve --neo4j}
 * instances, each with the async journal on Kafka ({@code journal.kafka}: writes answered 202 once on Kafka) and an
 * application topic ({@code sources.kafka}). Neo4j is killed while both have records to apply, more records and
 * async writes arrive while it is away, and it stays away for several times {@code max.poll.interval.ms} (set low
 * here, for both groups). Every consumer must go on polling with its partitions paused: no member leaves its group
 * (the same members, by id, before, throughout and after), and once Neo4j is back the lag drains with every record
 * and every write applied exactly once, nothing dead-lettered. Then a Neo4j that answers slowly: another client's
 * open transaction holds the lock of every position in the graph as long, more records and writes arriving, so
 * each batch waits inside Neo4j; no member leaves, and once the lock goes each applies once.
 */
@Timeout(420)
class KafkaOutageTest {
    static final Duration MAX_POLL = Duration.ofSeconds(6);
    static final Duration OUTAGE = MAX_POLL.multipliedBy(3);
    static final int PARTITIONS = 4;
    static final int BEFORE = 200;
    static final int DURING = 300;
    static final int SLOW = 100;
    static final String TOPIC = "events";
    static final String JOURNAL = "writes";
    static final String SOURCES_GROUP = "outage-sources";
    static final String JOURNAL_GROUP = "outage-journal";

    Path dir;
    KafkaProcess kafka;
    Neo4jProcess neo4j;
    final SluiceProcess[] instances = new SluiceProcess[2];
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @AfterEach
    void stop() {
        for (AutoCloseable c : new AutoCloseable[] {instances[0], instances[1], neo4j, kafka}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                System.err.println("closing " + c + ": " + e);
            }
        }
        if (dir != null) {
            TestServer.deleteRecursively(dir);
        }
    }

    static String config(String bootstrap) {
        return """
                templates:
                  hit:
                    cypher: "MERGE (w:Write {id: row.id}) ON CREATE SET w.n = 1 ON MATCH SET w.n = w.n + 1"
                    key: [id]
                journal:
                  kafka:
                    bootstrap: "%1$s"
                    topic: %2$s
                    group: %3$s
                    partitions: %4$d
                    send_timeout: 5s
                    consumer: {max.poll.interval.ms: "%5$d"}
                sources:
                  kafka:
                    bootstrap: "%1$s"
                    group: %6$s
                    consumers: 1
                    dead_letter: {topic: %7$s-dlq}
                    properties: {max.poll.interval.ms: "%5$d"}
                    topics:
                      - topic: %7$s
                        key_format: string
                        cypher: "MERGE (e:Event {id: event.id}) ON CREATE SET e.n = 1 ON MATCH SET e.n = e.n + 1"
                security: {credential_cache_ttl: 10m}
                admission: {timeout: 2s}
                """.formatted(bootstrap, JOURNAL, JOURNAL_GROUP, PARTITIONS, MAX_POLL.toMillis(), SOURCES_GROUP,
                TOPIC);
    }

    @Test
    void anOutageLongerThanMaxPollIntervalKeepsEveryConsumerInItsGroupAndLosesNothing() throws Exception {
        dir = Files.createTempDirectory("sluice-kafka-outage-");
        kafka = KafkaProcess.start(dir.resolve("kafka"));
        neo4j = Neo4jProcess.start(dir.resolve("neo4j"));
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrap());
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
            Path file = Files.writeString(dir.resolve("sluice.yaml"), config(kafka.bootstrap()));
            for (int i = 0; i < instances.length; i++) {
                instances[i] = SluiceProcess.start(file, dir.resolve("instance-" + i), TestServer.freePort(),
                        "--neo4j", neo4j.uri());
            }
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
                produce(producer, 0, BEFORE);
                write(0, BEFORE);
                try (BoltSink graph = connect(Duration.ofSeconds(60))) {
                    Await.until("the first records and writes applied", Duration.ofSeconds(120),
                            Duration.ofMillis(250), () -> drained(admin, graph));
                }
                Map<String, Set<String>> members = Map.of(SOURCES_GROUP, members(admin, SOURCES_GROUP),
                        JOURNAL_GROUP, members(admin, JOURNAL_GROUP));
                assertThat(members.values()).as("each group: one member per instance, %s", members)
                        .allSatisfy(ids -> assertThat(ids).hasSize(instances.length));

                neo4j.kill();
                long down = System.nanoTime();
                produce(producer, BEFORE, DURING); // both paths have records to apply while Neo4j is away
                write(BEFORE, DURING);
                int samples = 0;
                while (System.nanoTime() - down < OUTAGE.toNanos()) {
                    for (var group : members.entrySet()) {
                        assertThat(members(admin, group.getKey())).as("%s's members %.1f s into the outage",
                                group.getKey(), (System.nanoTime() - down) / 1e9).isEqualTo(group.getValue());
                    }
                    samples++;
                    TimeUnit.MILLISECONDS.sleep(500); // the pace of the sampling, not a synchronisation
                }
                neo4j = neo4j.restart();
                long back = System.nanoTime();
                double outage = (back - down) / 1e9;
                try (BoltSink graph = connect(Duration.ofSeconds(120))) {
                    Await.until("the lag drained after Neo4j came back", Duration.ofSeconds(180),
                            Duration.ofMillis(250), () -> drained(admin, graph));
                    double drain = (System.nanoTime() - back) / 1e9;
                    assertExactlyOnce(graph, "Event", BEFORE + DURING);
                    assertExactlyOnce(graph, "Write", BEFORE + DURING);
                    System.out.printf("Kafka outage test: Neo4j down %.1f s (max.poll.interval.ms %d, %d membership"
                            + " samples); %d topic records and %d async writes, %d of each during the outage; lag"
                            + " drained %.1f s after Neo4j was back%n", outage, MAX_POLL.toMillis(), samples,
                            BEFORE + DURING, BEFORE + DURING, DURING, drain);
                }
                for (var group : members.entrySet()) {
                    assertThat(members(admin, group.getKey())).as("%s's members after the outage", group.getKey())
                            .isEqualTo(group.getValue());
                }

                // a Neo4j that answers, slowly: another client's open transaction holds every position's lock for
                // as long as the outage lasted, records and writes arriving meanwhile; each batch waits for the lock
                int total = BEFORE + DURING + SLOW;
                try (Driver d = GraphDatabase.driver(neo4j.uri(), AuthTokens.none()); Session s = d.session();
                        Transaction tx = s.beginTransaction()) {
                    long locked = tx.run("MATCH (o:SluicePosition) SET o.fence = coalesce(o.fence, 0) + 1"
                            + " RETURN count(o) AS n").single().get("n").asLong();
                    assertThat(locked).as("positions locked (both logs' partitions)").isEqualTo(2L * PARTITIONS);
                    long held = System.nanoTime();
                    produce(producer, BEFORE + DURING, SLOW);
                    write(BEFORE + DURING, SLOW);
                    Await.until("transactions of both logs wait on the held lock", OUTAGE, Duration.ofMillis(250),
                            () -> blockedOnPositions(d.session()) >= 2);
                    while (System.nanoTime() - held < OUTAGE.toNanos()) {
                        for (var group : members.entrySet()) {
                            assertThat(members(admin, group.getKey())).as("%s's members %.1f s into the lock",
                                    group.getKey(), (System.nanoTime() - held) / 1e9).isEqualTo(group.getValue());
                        }
                        TimeUnit.MILLISECONDS.sleep(500); // the pace of the sampling, not a synchronisation
                    }
                    try (BoltSink graph = connect(Duration.ofSeconds(60))) {
                        for (String label : List.of("Event", "Write")) {
                            assertThat(graph.inReadTransaction(t -> t.run("MATCH (x:" + label + ") RETURN count(x)",
                                    Map.of())).rows().getFirst().getFirst()).as("no %s applied past the held lock",
                                    label).isEqualTo((long) (BEFORE + DURING));
                        }
                    }
                    tx.rollback();
                }
                try (BoltSink graph = connect(Duration.ofSeconds(60))) {
                    Await.until("the lag drained after the lock", Duration.ofSeconds(120), Duration.ofMillis(250),
                            () -> drained(admin, graph));
                    assertExactlyOnce(graph, "Event", total);
                    assertExactlyOnce(graph, "Write", total);
                }
                for (var group : members.entrySet()) {
                    assertThat(members(admin, group.getKey())).as("%s's members after the lock", group.getKey())
                            .isEqualTo(group.getValue());
                }
            }
            assertThat(ends(admin, TOPIC + "-dlq").values()).as("no topic record dead-lettered").containsOnly(0L);
            assertThat(ends(admin, JOURNAL + "-dead-letters").values()).as("no write dead-lettered")
                    .containsOnly(0L);
        }
        int retried = 0;
        for (SluiceProcess s : instances) {
            String log = Files.readString(s.log);
            assertThat(log).as("%s", s.log).doesNotContain("were lost to another owner")
                    .doesNotContain("poll timeout has expired").doesNotContain("the Kafka applier stopped")
                    .doesNotContain("source consumer 0 stopped");
            retried += occurrences(log, "not applied, retrying") + occurrences(log, "reading where it stands");
        }
        assertThat(retried).as("the consumers met the outage (paused and retried)").isPositive();
    }

    /**
     * The logs ({@code topic:events}, {@code kafka:writes}) whose transactions Neo4j shows blocked while locking a
     * position ({@code o.fence}: every batch's fence, and the position reads), asked in a session of its own.
     */
    static long blockedOnPositions(Session s) {
        try (s) {
            return s.run("SHOW TRANSACTIONS YIELD currentQuery, parameters, status WHERE status STARTS WITH 'Blocked'"
                    + " AND currentQuery CONTAINS 'o.fence' RETURN count(DISTINCT parameters.s) AS n").single()
                    .get("n").asLong();
        }
    }

    /** {@code n} records of the topic, from id {@code from}, acknowledged. */
    static void produce(KafkaProducer<byte[], byte[]> producer, int from, int n) {
        for (int i = from; i < from + n; i++) {
            producer.send(new ProducerRecord<>(TOPIC, ("k" + i).getBytes(StandardCharsets.UTF_8),
                    ("{\"id\": " + i + "}").getBytes(StandardCharsets.UTF_8)));
        }
        producer.flush();
    }

    /** {@code n} async writes, from id {@code from}, through both instances in turn: each must be 202 (on Kafka). */
    void write(int from, int n) throws Exception {
        for (int i = from; i < from + n; i++) {
            SluiceProcess s = instances[i % instances.length];
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(s.url("/db/neo4j/write/hit?mode=async")))
                    .header("Authorization", SluiceProcess.AUTH).header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString("{\"id\": " + i + "}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as("async write %d: %s", i, r.body()).isEqualTo(202);
        }
    }

    BoltSink connect(Duration wait) throws GraphException {
        return BoltSink.connect(new BoltSink.Options(neo4j.uri(), null, null, "neo4j"), wait, Time.SYSTEM);
    }

    /** Both logs applied to their ends, as the graph's positions say. */
    static boolean drained(Admin admin, BoltSink graph) {
        try {
            return positions(graph, "topic:" + TOPIC).equals(ends(admin, TOPIC))
                    && positions(graph, "kafka:" + JOURNAL).equals(ends(admin, JOURNAL));
        } catch (Exception e) {
            return false; // Neo4j or the broker not answering yet: asked again
        }
    }

    static void assertExactlyOnce(BoltSink graph, String label, int n) throws GraphException {
        List<Object> row = graph.inReadTransaction(tx -> tx.run("MATCH (x:" + label + ") RETURN count(x), min(x.n),"
                + " max(x.n), count(DISTINCT x.id)", Map.of())).rows().getFirst();
        assertThat(row).as("%s: count, min and max times applied, distinct ids", label)
                .containsExactly((long) n, 1L, 1L, (long) n);
    }

    static Set<String> members(Admin admin, String group) throws Exception {
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS)
                .get(group);
        Set<String> ids = new TreeSet<>();
        for (MemberDescription m : d.members()) {
            ids.add(m.consumerId());
        }
        return ids;
    }

    static Map<Integer, Long> positions(BoltSink graph, String source) throws GraphException {
        Map<Integer, Long> out = new HashMap<>();
        for (List<Object> r : graph.inReadTransaction(tx -> tx.run("MATCH (o:SluicePosition {source: $s})"
                + " RETURN o.partition, o.next", Map.of("s", source))).rows()) {
            out.put(((Number) r.get(0)).intValue(), ((Number) r.get(1)).longValue());
        }
        return out;
    }

    static Map<Integer, Long> ends(Admin admin, String topic) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                .partitions().size();
        for (int i = 0; i < partitions; i++) {
            request.put(new TopicPartition(topic, i), OffsetSpec.latest());
        }
        Map<Integer, Long> out = new HashMap<>();
        admin.listOffsets(request).all().get(30, TimeUnit.SECONDS)
                .forEach((tp, info) -> out.put(tp.partition(), info.offset()));
        return out;
    }

    static int occurrences(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + what.length())) {
            n++;
        }
        return n;
    }
}
