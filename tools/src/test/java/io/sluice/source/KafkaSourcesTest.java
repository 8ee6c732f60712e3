package io.sluice.source;

import io.sluice.topic.CypherStrategy;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.apply.BatchRunner;
import io.sluice.apply.RetryPolicy;
import io.sluice.config.ConfigLoader;
import io.sluice.config.Sources;
import io.sluice.durable.RecordApplier;
import io.sluice.metrics.Metrics;
import io.sluice.sink.BoltSink;
import io.sluice.sink.Sink;
import io.sluice.support.Await;
import io.sluice.support.ForwardingSink;
import io.sluice.support.KafkaProcess;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import io.sluice.time.Jitter;
import io.sluice.time.Time;
import io.sluice.vocab.Counter;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.GraphException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Application topics in, against a real broker ({@code sluice kafka}) and a real Neo4j ({@code sluice neo4j}):
 * {@link KafkaSources} in this process, its sink a Bolt connection to the Neo4j process (wrapped where a test breaks
 * it). Each test has topics and a group of its own.
 */
@Timeout(300)
class KafkaSourcesTest {
    static Path dir;
    static KafkaProcess kafka;
    static Neo4jProcess neo4j;
    static BoltSink graph;
    static KafkaProducer<byte[], byte[]> producer;
    static Admin admin;
    static final AtomicInteger RUN = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-sources-");
        kafka = KafkaProcess.start(dir.resolve("kafka"));
        neo4j = Neo4jProcess.start(dir.resolve("neo4j"));
        graph = BoltSink.connect(new BoltSink.Options(neo4j.uri(), null, null, "neo4j"), Duration.ofSeconds(60),
                Time.SYSTEM);
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrap());
        admin = Admin.create(p);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
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

    @BeforeEach
    void empty() throws GraphException {
        graph.inTransaction(tx -> {
            tx.runDiscarding("MATCH (n) WHERE NOT n:SluicePosition DETACH DELETE n", Map.of());
            return null;
        });
    }

    static String name(String what) {
        return what + "-" + RUN.incrementAndGet();
    }

    static void topic(String name, int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }

    static void send(String topic, int partition, String key, String value, Map<String, String> headers)
            throws Exception {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, partition,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
        headers.forEach((k, v) -> r.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
        producer.send(r).get(30, TimeUnit.SECONDS);
    }

    static Sources.KafkaSource config(String yaml) throws Exception {
        return ConfigLoader.parse(yaml.replace("BOOTSTRAP", kafka.bootstrap())).sources().kafka();
    }

    /** Started on a sink that may be away: the mapping checks run on the real database first. */
    static KafkaSources sources0(Sources.KafkaSource config, Sink sink) throws GraphException {
        return sources(config, new ForwardingSink(sink) {
            private boolean checked;

            @Override
            public <T> T inReadTransaction(TxWork<T> work) throws GraphException {
                if (!checked) { // SourceChecks reads first: answered by the real database
                    return graph.inReadTransaction(work);
                }
                return super.inReadTransaction(work);
            }

            @Override
            public <T> T inTransaction(TxWork<T> work) throws GraphException {
                checked = true;
                return super.inTransaction(work);
            }
        });
    }

    static KafkaSources sources(Sources.KafkaSource config, Sink sink) throws GraphException {
        RecordApplier.Parts parts = new RecordApplier.Parts(clock -> new BatchRunner(sink,
                new RetryPolicy(3, Duration.ofMillis(20), Duration.ofMillis(100)), clock, Jitter.fixed(0),
                Metrics.NONE, true), null, 500);
        KafkaSources s = KafkaSources.create(config, sink, parts, Metrics.NONE, Time.SYSTEM, "test");
        s.start();
        return s;
    }

    /**
     * The recorded Debezium records (server/src/test/resources/debezium) sent to {@code prefix}'s topics (made here,
     * a partition each), each value through {@code edit}.
     */
    static void sendRecorded(List<String> lines, String prefix, java.util.function.UnaryOperator<String> edit)
            throws Exception {
        topic(prefix + ".public.customers", 1);
        topic(prefix + ".transaction", 1);
        for (int i = 0; i + 1 < lines.size(); i += 2) {
            String head = lines.get(i);
            String topic = prefix + head.substring("shop".length(), head.indexOf('@'));
            String key = head.substring(head.indexOf(" KEY ") + 5);
            String value = lines.get(i + 1).substring("VALUE ".length());
            send(topic, 0, key, value.equals("null") ? null : edit.apply(value), Map.of());
        }
    }

    static List<List<Object>> rows(String cypher) {
        try {
            return graph.inReadTransaction(tx -> tx.run(cypher, Map.of())).rows();
        } catch (GraphException e) {
            throw new IllegalStateException(e);
        }
    }

    static long count(String cypher) {
        return ((Number) rows(cypher).getFirst().getFirst()).longValue();
    }

    /** The positions of {@code topic}'s first {@code partitions} partitions, summed: the records applied. */
    static long applied(String topic, int partitions) {
        long sum = 0;
        for (int part = 0; part < partitions; part++) {
            sum += position(topic, part);
        }
        return sum;
    }

    static long position(String topic, int partition) {
        List<List<Object>> r = rows("MATCH (o:SluicePosition {source: 'topic:" + topic + "', partition: "
                + partition + "}) RETURN o.next");
        return r.isEmpty() ? -1 : ((Number) r.getFirst().getFirst()).longValue();
    }

    static List<ConsumerRecord<byte[], byte[]>> deadLetters(String topic, int atLeast) {
        return TopicReads.records(kafka.bootstrap(), topic, atLeast, Duration.ofMillis(500));
    }

    static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        return TopicReads.header(r, name);
    }

    /**
     * A real Debezium connector's records (server/src/test/resources/debezium: a snapshot row, a transaction of an
     * insert and an update, one of a delete, its tombstone, the BEGINs and ENDs), applied row by row and as whole
     * source transactions: the same graph, Debezium's types read (a Date, a decimal's text), the stream's commit
     * position kept.
     */
    @Test
    void aDebeziumConnectorsRecordsApplyRowByRowAndAsWholeTransactions() throws Exception {
        List<String> lines = Files.readAllLines(Path.of("../server/src/test/resources/debezium/customers-events.txt"));
        for (boolean whole : new boolean[] {false, true}) {
            String prefix = name("shop");
            sendRecorded(lines, prefix, v -> v);
            var config = config("""
                    sources:
                      kafka:
                        bootstrap: BOOTSTRAP
                        group: %s
                        debezium:
                          - prefix: %s
                            transactions: %s
                            tables:
                              public.customers: {label: DbzCustomer, rename: {name: fullName}}
                    """.formatted(prefix + "-group", prefix, whole));
            try (KafkaSources s = sources(config, graph)) {
                Await.until("the connector's changes applied (" + (whole ? "whole transactions" : "row by row") + ")",
                        Duration.ofSeconds(60), () -> rows("MATCH (c:DbzCustomer) RETURN c.id, c.fullName, c.born,"
                                + " c.balance ORDER BY c.id").equals(List.of(List.of(1L, "ada",
                                java.time.LocalDate.of(1815, 12, 10), "13.00"))));
                if (whole) {
                    Await.until("the stream's commit position", Duration.ofSeconds(30), () -> rows("MATCH"
                            + " (o:SluicePosition {source: 'debezium:" + prefix + "#commit'}) RETURN o.next")
                            .equals(List.of(List.of(22180313L))));
                    @SuppressWarnings("unchecked")
                    Map<String, Object> stream = ((List<Map<String, Object>>) ((Map<String, Object>) s.health()
                            .get("sources")).get("debezium")).getFirst();
                    assertThat(stream).containsEntry("last_commit", 22180312L).containsEntry("running", true);
                }
            }
            graph.inTransaction(tx -> {
                tx.runDiscarding("MATCH (c:DbzCustomer) DETACH DELETE c", Map.of());
                return null;
            });
        }
    }

    /**
     * One source transaction that cannot be written (a value Neo4j cannot hold: PostgreSQL's infinity, put into the
     * recorded insert of transaction 728) goes to the dead-letter topic whole (its two events and its END), and the
     * stream goes on with the next one: nothing of 728 in the graph, 729 applied, the commit position past it.
     */
    @Test
    void aDebeziumTransactionThatCannotBeWrittenIsDeadLetteredWholeAndTheStreamGoesOn() throws Exception {
        List<String> lines = Files.readAllLines(Path.of("../server/src/test/resources/debezium/customers-events.txt"));
        String prefix = name("shop");
        String dlq = prefix + "-dlq";
        sendRecorded(lines, prefix, value -> {
            if (value.contains("\"name\":\"grace\"") && value.contains("\"op\":\"c\"")) {
                value = value.replace("{\"type\":\"int32\",\"optional\":true,\"name\":\"io.debezium.time.Date\","
                        + "\"version\":1,\"field\":\"born\"}", "{\"type\":\"int64\",\"optional\":true,\"name\":"
                        + "\"io.debezium.time.MicroTimestamp\",\"version\":1,\"field\":\"born\"}")
                        .replace("\"born\":-23034", "\"born\":9223372036825200000");
                assertThat(value).contains("9223372036825200000").contains("MicroTimestamp");
            }
            return value;
        });
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: %s
                    dead_letter: {topic: %s}
                    debezium:
                      - prefix: %s
                        transactions: true
                        tables:
                          public.customers: {label: DbzCustomer, rename: {name: fullName}}
                """.formatted(prefix + "-group", dlq, prefix));
        try (KafkaSources s = sources(config, graph)) {
            Await.until("the stream past transaction 729", Duration.ofSeconds(60), () -> rows("MATCH (o:SluicePosition"
                    + " {source: 'debezium:" + prefix + "#commit'}) RETURN o.next").equals(List.of(List.of(22180313L))));
            assertThat(rows("MATCH (c:DbzCustomer) RETURN c.id, c.fullName, c.balance ORDER BY c.id"))
                    .as("the snapshot's row, without transaction 728's update; 728's insert never applied")
                    .isEqualTo(List.of(List.of(1L, "ada", "12.50")));
            List<ConsumerRecord<byte[], byte[]>> dead = deadLetters(dlq, 3);
            assertThat(dead).extracting(ConsumerRecord::topic).containsOnly(dlq);
            assertThat(dead).hasSize(3);
            assertThat(new String(dead.getFirst().headers().lastHeader("__connect.errors.exception.message").value(),
                    StandardCharsets.UTF_8)).contains("infinity");
            assertThat(s.health().toString()).contains("running=true");
        } finally {
            graph.inTransaction(tx -> {
                tx.runDiscarding("MATCH (c:DbzCustomer) DETACH DELETE c", Map.of());
                return null;
            });
        }
    }

    @Test
    void theCypherStrategyAppliesEveryFormatInOffsetOrderExactlyOnce() throws Exception {
        String plain = name("plain");
        String enveloped = name("enveloped");
        String text = name("text");
        topic(plain, 2);
        topic(enveloped, 1);
        topic(text, 1);
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: GROUP
                    consumers: 2
                    topics:
                      - topic: PLAIN
                        key_format: string
                        cypher: "MERGE (u:User {id: event.user}) SET u.seqs = coalesce(u.seqs, []) + event.seq, u.key = __key, u.src = __header.src"
                      - topic: ENVELOPED
                        key_format: json
                        value_format: json-schema
                        cypher: "CREATE (:Order {id: __key.id, amount: __value.amount, at: __value.at, day: __value.day})"
                      - topic: TEXT
                        key_format: bytes
                        value_format: string
                        cypher: "CREATE (:Note {text: CASE WHEN valueType(__value) STARTS WITH 'MAP' THEN 'a=' + __value.a ELSE __value END, keyLength: size(__key)})"
                """.replace("GROUP", name("group")).replace("PLAIN", plain).replace("ENVELOPED", enveloped)
                .replace("TEXT", text));
        int perPartition = 300;
        for (int seq = 0; seq < perPartition; seq++) {
            for (int part = 0; part < 2; part++) {
                send(plain, part, "user-" + (part * 10 + seq % 3), "{\"user\": " + (part * 10 + seq % 3)
                        + ", \"seq\": " + seq + "}", Map.of("src", "p" + part));
            }
        }
        send(enveloped, 0, "{\"id\": 7}", """
                {"schema": {"type": "struct", "fields": [
                  {"field": "amount", "type": "bytes", "name": "org.apache.kafka.connect.data.Decimal",
                   "parameters": {"scale": "2"}},
                  {"field": "at", "type": "int64", "name": "org.apache.kafka.connect.data.Timestamp"},
                  {"field": "day", "type": "int32", "name": "org.apache.kafka.connect.data.Date"}]},
                 "payload": {"amount": "MDk=", "at": 1700000000000, "day": 19675}}""", Map.of());
        send(text, 0, "abc", "just text", Map.of());
        send(text, 0, "ab", "{\"a\": 1}", Map.of()); // a JSON object in a string is read as the structure
        KafkaSources started = sources(config, graph);
        try (started) {
            Await.until("every record applied", Duration.ofSeconds(120), () -> position(plain, 0) == perPartition
                    && position(plain, 1) == perPartition && position(enveloped, 0) == 1 && position(text, 0) == 2);
            assertThat(started.partitions()).extracting(p -> p.get("topic") + "/" + p.get("partition"))
                    .containsExactlyInAnyOrder(plain + "/0", plain + "/1", enveloped + "/0", text + "/0");
            Await.until("no lag left", Duration.ofSeconds(30), () -> started.partitions().stream()
                    .allMatch(p -> Long.valueOf(0).equals(p.get("lag_records"))
                            && Double.valueOf(0).equals(p.get("lag_seconds"))));
        }
        for (long user : new long[] {0, 1, 2, 10, 11, 12}) {
            Object seqs = rows("MATCH (u:User {id: " + user + "}) RETURN u.seqs").getFirst().getFirst();
            List<Long> expected = new ArrayList<>();
            for (long seq = user % 10; seq < perPartition; seq += 3) {
                expected.add(seq);
            }
            assertThat(seqs).as("user %d: each record once, in offset order", user).isEqualTo(expected);
        }
        assertThat(rows("MATCH (u:User {id: 11}) RETURN u.key, u.src").getFirst()).containsExactly("user-11", "p1");
        assertThat(rows("MATCH (o:Order) RETURN o.id, o.amount, toString(o.at), toString(o.day)"))
                .containsExactly(List.of(7L, "123.45", "2023-11-14T22:13:20", "2023-11-14"));
        assertThat(rows("MATCH (n:Note) RETURN n.text, n.keyLength ORDER BY n.keyLength DESC"))
                .containsExactly(List.of("just text", 3L), List.of("a=1", 2L));
    }

    @Test
    void poisonRecordsGoToTheDeadLettersWithConnectHeadersAndNothingElseIsLost() throws Exception {
        String topic = name("poison");
        String dlq = name("poison-dlq");
        topic(topic, 1);
        graph.inTransaction(tx -> {
            tx.runDiscarding("CREATE CONSTRAINT item_id IF NOT EXISTS FOR (i:Item) REQUIRE i.id IS UNIQUE", Map.of());
            return null;
        });
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: %s
                    consumers: 1
                    dead_letter: {topic: %s}
                    topics:
                      - topic: %s
                        key_format: string
                        cypher: "CREATE (:Item {id: event.id, n: event.n})"
                """.formatted(name("group"), dlq, topic));
        List<Long> bad = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            if (i == 17) {
                send(topic, 0, "k", "{not json", Map.of("trace", "t17"));
                bad.add((long) i);
            } else if (i == 120) {
                send(topic, 0, "k", "{\"id\": 5, \"n\": 120}", Map.of()); // id 5 exists: the constraint refuses it
                bad.add((long) i);
            } else {
                send(topic, 0, "k", "{\"id\": " + i + ", \"n\": " + i + "}", Map.of());
            }
        }
        KafkaSources started = sources(config, graph);
        try (started) {
            Await.until("the partition moved past every record", Duration.ofSeconds(120),
                    () -> position(topic, 0) == 200);
        }
        assertThat(count("MATCH (i:Item) RETURN count(i)")).as("every good record applied").isEqualTo(198);
        List<ConsumerRecord<byte[], byte[]>> letters = deadLetters(dlq, 2);
        assertThat(letters).extracting(r -> Long.parseLong(header(r, "__connect.errors.offset")))
                .containsExactlyElementsOf(bad);
        ConsumerRecord<byte[], byte[]> unreadable = letters.getFirst();
        assertThat(new String(unreadable.value(), StandardCharsets.UTF_8)).isEqualTo("{not json");
        assertThat(header(unreadable, "trace")).as("the record's own headers kept").isEqualTo("t17");
        assertThat(header(unreadable, "__connect.errors.topic")).isEqualTo(topic);
        assertThat(header(unreadable, "__connect.errors.partition")).isEqualTo("0");
        assertThat(header(unreadable, "__connect.errors.stage")).isEqualTo("VALUE_CONVERTER");
        assertThat(header(unreadable, "__connect.errors.exception.message")).contains("not JSON");
        ConsumerRecord<byte[], byte[]> refused = letters.get(1);
        assertThat(header(refused, "__connect.errors.stage")).isEqualTo("TASK_PUT");
        assertThat(header(refused, "__connect.errors.exception.class.name"))
                .isEqualTo("Neo.ClientError.Schema.ConstraintValidationFailed");
        assertThat(header(refused, "__connect.errors.class.name")).isEqualTo(CypherStrategy.class.getName());
    }

    @Test
    void anOutageIsRetriedForAsLongAsItLastsNeverDeadLettered() throws Exception {
        String topic = name("outage");
        String dlq = name("outage-dlq");
        topic(topic, 2);
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: %s
                    consumers: 1
                    dead_letter: {topic: %s}
                    topics:
                      - topic: %s
                        cypher: "MERGE (c:Counter {id: event.k}) SET c.seqs = coalesce(c.seqs, []) + event.seq"
                """.formatted(name("group"), dlq, topic));
        Down down = new Down(graph);
        for (int i = 0; i < 100; i++) {
            send(topic, i % 2, null, "{\"k\": " + (i % 2) + ", \"seq\": " + i + "}", Map.of());
        }
        try (KafkaSources s = sources(config, down)) {
            Await.until("the first records applied", Duration.ofSeconds(60), () -> position(topic, 0) == 50);
            down.down.set(true); // Neo4j goes away (to sluice): every transaction fails as unavailable
            for (int i = 100; i < 200; i++) {
                send(topic, i % 2, null, "{\"k\": " + (i % 2) + ", \"seq\": " + i + "}", Map.of());
            }
            Await.until("the partitions paused and retried", Duration.ofSeconds(60), () -> down.refused.get() >= 6
                    && s.partitions().stream().anyMatch(p -> "paused".equals(p.get("state"))));
            // past the runner's retries and several backoffs: nothing moved, nothing dead-lettered
            assertThat(position(topic, 0)).isEqualTo(50);
            Await.until("the lag says what waits", Duration.ofSeconds(30), () -> s.partitions().stream()
                    .allMatch(p -> Long.valueOf(50).equals(p.get("lag_records"))
                            && ((Double) p.get("lag_seconds")) > 0));
            down.down.set(false);
            Await.until("everything applied once it is back", Duration.ofSeconds(120),
                    () -> position(topic, 0) == 100 && position(topic, 1) == 100);
            Await.until("the partitions apply again", Duration.ofSeconds(30),
                    () -> s.partitions().stream().allMatch(p -> "applying".equals(p.get("state"))));
        }
        for (int k = 0; k < 2; k++) {
            List<Long> expected = new ArrayList<>();
            for (long seq = k; seq < 200; seq += 2) {
                expected.add(seq);
            }
            assertThat(rows("MATCH (c:Counter {id: " + k + "}) RETURN c.seqs").getFirst().getFirst())
                    .as("counter %d: every record once, in order", k).isEqualTo(expected);
        }
        assertThat(deadLetters(dlq, 0)).as("nothing dead-lettered for an outage").isEmpty();
    }

    /**
     * Polls taken ahead (the next poll's records decoded while a poll's last batch applies) under batches that keep
     * failing: records polled ahead of a batch that did not apply follow a position the graph does not have, and
     * must never apply (they would skip that batch); every record once, in order, and some were dropped so.
     */
    @Test
    void recordsPolledAheadOfABatchThatDidNotApplyAreReadAgainNeverSkippedTo() throws Exception {
        String topic = name("ahead");
        topic(topic, 1);
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: %s
                    consumers: 1
                    properties: {max.poll.records: "200"}
                    topics:
                      - topic: %s
                        cypher: "MERGE (c:Counter {id: event.k}) SET c.seqs = coalesce(c.seqs, []) + event.seq"
                """.formatted(name("group"), topic));
        int records = 6000; // polls of 200, each one batch (of at most 500): every batch is the last of its poll
        for (int i = 0; i < records; i++) {
            producer.send(new ProducerRecord<>(topic, 0, null, ("{\"k\": " + (i % 10) + ", \"seq\": " + i + "}")
                    .getBytes(StandardCharsets.UTF_8)));
        }
        producer.flush();
        AtomicInteger calls = new AtomicInteger();
        // every 10th write transaction fails, and the 2 after it: a batch's 3 attempts (or a position's read)
        Sink flaky = new ForwardingSink(graph) {
            @Override
            public <T> T inTransaction(TxWork<T> work) throws GraphException {
                if (calls.incrementAndGet() % 10 < 3 && calls.get() > 4) {
                    throw Down.unavailable();
                }
                return real.inTransaction(work);
            }
        };
        long[] ahead;
        try (KafkaSources s = sources(config, flaky)) {
            Await.until("every record applied", Duration.ofSeconds(120), () -> position(topic, 0) == records);
            ahead = s.polledAhead();
        }
        System.out.printf("polled ahead: %d records, %d of them dropped; %d write transactions%n", ahead[0],
                ahead[1], calls.get());
        for (int k = 0; k < 10; k++) {
            List<Long> expected = new ArrayList<>();
            for (long seq = k; seq < records; seq += 10) {
                expected.add(seq);
            }
            assertThat(rows("MATCH (c:Counter {id: " + k + "}) RETURN c.seqs").getFirst().getFirst())
                    .as("counter %d: every record once, in order", k).isEqualTo(expected);
        }
        assertThat(ahead[0]).as("records polled ahead").isPositive();
        assertThat(ahead[1]).as("records polled ahead of a batch that did not apply, dropped").isPositive();
    }

    /**
     * Polls taken ahead across rebalances: with polls of one batch each, nearly every poll is one taken ahead while a
     * batch waits to apply, so the group's rebalances (a second member joining mid-stream, then leaving) run their
     * callbacks there; a partition revoked then must not apply that batch twice (here and at its next owner) nor skip
     * what was polled ahead of it. Every record once, in order, each partition's position at its end; and each record
     * Neo4j refuses (a null key, one in a thousand) dead-lettered once, by one member.
     */
    @Test
    void rebalancesWhilePollsAreTakenAheadApplyEveryRecordOnceInOrder() throws Exception {
        String topic = name("ahead-rebalance");
        String dlq = name("ahead-rebalance-dlq");
        int partitions = 4;
        int perPartition = 6000;
        topic(topic, partitions);
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: %s
                    consumers: 1
                    dead_letter: {topic: %s}
                    properties: {max.poll.records: "100"}
                    topics:
                      - topic: %s
                        cypher: "MERGE (c:Counter {id: event.k}) SET c.seqs = coalesce(c.seqs, []) + event.seq"
                """.formatted(name("group"), dlq, topic));
        for (int i = 0; i < perPartition; i++) {
            for (int part = 0; part < partitions; part++) {
                String k = i % 1000 == 999 ? "null" : Integer.toString(part * 10 + i % 5); // MERGE refuses a null
                producer.send(new ProducerRecord<>(topic, part, null, ("{\"k\": " + k + ", \"seq\": " + i
                        + ", \"p\": " + part + "}").getBytes(StandardCharsets.UTF_8)));
            }
        }
        producer.flush();
        long[] aheadFirst;
        long[] aheadSecond;
        try (KafkaSources first = sources(config, graph)) {
            Await.until("the first member under way", Duration.ofSeconds(60), () -> applied(topic, 4) > 1000);
            try (KafkaSources second = sources(config, graph)) { // joins: a rebalance while the first polls ahead
                Await.until("both members applying", Duration.ofSeconds(60), () -> !second.partitions().isEmpty()
                        && first.partitions().size() < partitions);
                long sum = applied(topic, 4);
                long more = Math.min(sum + 2000, partitions * perPartition); // the first may be near the end
                Await.until("more applied by both", Duration.ofSeconds(60), () -> applied(topic, 4) >= more);
                aheadSecond = second.polledAhead();
            } // leaves: another rebalance, the first takes every partition back
            if (!Await.holdsWithin("every record applied", Duration.ofSeconds(120), Duration.ofMillis(50), () -> {
                for (int part = 0; part < partitions; part++) {
                    if (position(topic, part) != perPartition) {
                        return false;
                    }
                }
                return true;
            })) {
                throw new AssertionError("timed out after 120 s waiting for every record applied; positions "
                        + List.of(position(topic, 0), position(topic, 1), position(topic, 2), position(topic, 3))
                        + "; " + state(first));
            }
            aheadFirst = first.polledAhead();
        }
        System.out.printf("polled ahead: first member %d records (%d dropped), second %d (%d dropped)%n",
                aheadFirst[0], aheadFirst[1], aheadSecond[0], aheadSecond[1]);
        for (int part = 0; part < partitions; part++) {
            for (int k = 0; k < 5; k++) {
                List<Long> expected = new ArrayList<>();
                for (long seq = k; seq < perPartition; seq += 5) {
                    if (seq % 1000 != 999) {
                        expected.add(seq);
                    }
                }
                assertThat(rows("MATCH (c:Counter {id: " + (part * 10 + k) + "}) RETURN c.seqs").getFirst()
                        .getFirst()).as("partition %d, key %d: every record once, in order", part, k)
                        .isEqualTo(expected);
            }
        }
        assertThat(aheadFirst[0]).as("records polled ahead").isPositive();
        int refused = partitions * (perPartition / 1000);
        assertThat(deadLetters(dlq, refused)).as("each refused record dead-lettered once")
                .extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
                .hasSize(refused).doesNotHaveDuplicates();
    }

    /**
     * A member draining a backlog, every round's records taken by a poll ahead (of zero wait) and each round slower than
     * Kafka's metadata backoff (100 ms), must still let its group rebalance: a member joining gets its partitions
     * within seconds, not when the first has applied everything. (A consumer subscribed by a pattern refreshes its
     * metadata before it rejoins, and one poll of zero wait cannot wait for that refresh; the next one finds it done.
     * Were the first member to rejoin only once its backlog was applied, the group would wait that long, its
     * partitions revoked: 2 s here.) The backlog outlasts the bound even on a warm JVM (5,000 records took 3 s there,
     * where the test's first run alone took 10 s), and is not applied to its end: the join is what is measured.
     */
    @Test
    void aMemberDrainingABacklogLetsANewMemberJoin() throws Exception {
        String topic = name("draining");
        String dlq = name("draining-dlq");
        int partitions = 2;
        int perPartition = 30_000;
        topic(topic, partitions);
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: %s
                    consumers: 1
                    dead_letter: {topic: %s}
                    topics:
                      - topic: %s
                        cypher: "WITH event, reduce(s = 0, i IN range(1, 20000) | s + i) AS burn CREATE (:Drained {p: event.p, burn: burn})"
                """.formatted(name("group"), dlq, topic));
        for (int i = 0; i < perPartition; i++) {
            for (int part = 0; part < partitions; part++) {
                producer.send(new ProducerRecord<>(topic, part, null, ("{\"p\": " + part + "}")
                        .getBytes(StandardCharsets.UTF_8)));
            }
        }
        producer.flush();
        try (KafkaSources first = sources(config, graph)) {
            Await.until("the first member under way", Duration.ofSeconds(60), () -> applied(topic, 2) > 200);
            long joined = System.nanoTime();
            try (KafkaSources second = sources(config, graph)) {
                if (!Await.holdsWithin("the second member applying", Duration.ofSeconds(60), Duration.ofMillis(20),
                        () -> !second.partitions().isEmpty())) {
                    throw new AssertionError("no partition for the joining member in 60 s; " + state(first));
                }
                double seconds = (System.nanoTime() - joined) / 1e9;
                long done = applied(topic, 2);
                System.out.printf("the second member had a partition %.1f s after it started, %d of %d applied%n",
                        seconds, done, partitions * perPartition);
                assertThat(done).as("the first member's backlog not yet applied when the second joined")
                        .isLessThan((long) partitions * perPartition);
                assertThat(seconds).as("seconds for the joining member's partitions").isLessThan(15);
                long now = applied(topic, 2);
                Await.until("both members applying", Duration.ofSeconds(60), () -> applied(topic, 2) > now + 500);
            }
        }
        assertThat(count("MATCH (d:Drained) RETURN count(d)")).as("each record applied once")
                .isEqualTo(applied(topic, 2));
        assertThat(deadLetters(dlq, 0)).isEmpty();
    }

    /** For a failure's message: the sources' health (each partition, paused and why) and its threads' stacks. */
    private static String state(KafkaSources sources) {
        StringBuilder out = new StringBuilder("health ").append(sources.health());
        Thread.getAllStackTraces().forEach((t, stack) -> {
            if (t.getName().startsWith("sluice-source")) {
                out.append("\n\"").append(t.getName()).append("\" ").append(t.getState());
                for (StackTraceElement e : stack) {
                    out.append("\n    at ").append(e);
                }
            }
        });
        return out.toString();
    }

    @Test
    void partitionsAssignedWhileNeo4jIsAwayWaitForIt() throws Exception {
        String topic = name("assigned-down");
        String dlq = name("assigned-down-dlq");
        topic(topic, 2);
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: %s
                    consumers: 2
                    dead_letter: {topic: %s}
                    topics:
                      - topic: %s
                        cypher: "CREATE (:Seen {p: event.p})"
                """.formatted(name("group"), dlq, topic));
        Down down = new Down(graph);
        for (int i = 0; i < 20; i++) {
            send(topic, i % 2, null, "{\"p\": " + (i % 2) + "}", Map.of());
        }
        down.down.set(true); // away before the partitions are assigned: no position to read
        KafkaSources again = sources0(config, down);
        try (again) {
            Await.until("both partitions assigned and waiting", Duration.ofSeconds(60), () -> down.refused.get() >= 4
                    && again.partitions().size() == 2);
            assertThat(((Map<?, ?>) again.health().get("sources")).get("consumers_running")).as("no consumer died of it").isEqualTo(2L);
            down.down.set(false);
            Await.until("applied once it is back", Duration.ofSeconds(90),
                    () -> position(topic, 0) == 10 && position(topic, 1) == 10);
        }
        assertThat(count("MATCH (s:Seen) RETURN count(s)")).isEqualTo(20);
        assertThat(deadLetters(dlq, 0)).isEmpty();
    }

    /**
     * A door's lifecycle: built, it consumes nothing (no group joined, its /health section empty of partitions);
     * started, it applies; drained, its consumers have finished their batch and left, their positions written.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> section(KafkaSources sources) {
        return (Map<String, Object>) sources.health().get("sources");
    }

    @Test
    void builtSourcesConsumeNothingUntilStartedAndDrainLeavingTheirPositionsWritten() throws Exception {
        String topic = name("door");
        topic(topic, 1);
        String group = name("group");
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: %s
                    consumers: 2
                    topics:
                      - topic: %s
                        cypher: "CREATE (:Event {n: event.n})"
                """.formatted(group, topic));
        for (int i = 0; i < 10; i++) {
            send(topic, 0, null, "{\"n\": " + i + "}", Map.of());
        }
        RecordApplier.Parts parts = new RecordApplier.Parts(clock -> new BatchRunner(graph,
                new RetryPolicy(3, Duration.ofMillis(20), Duration.ofMillis(100)), clock, Jitter.fixed(0),
                Metrics.NONE, true), null, 500);
        try (KafkaSources door = KafkaSources.create(config, graph, parts, Metrics.NONE, Time.SYSTEM, "test")) {
            Thread.sleep(2_000); // long enough for a consumer that polled to have joined and applied something
            assertThat(count("MATCH (e:Event) RETURN count(e)")).as("nothing consumed before start").isZero();
            assertThat(door.health()).containsOnlyKeys("sources");
            assertThat(section(door)).containsEntry("group", group)
                    .containsEntry("consumers_running", 0L).containsEntry("partitions", List.of());
            assertThat(door.describe()).isEqualTo("Kafka '" + topic + "' as group " + group);

            door.start();
            Await.until("every record applied", Duration.ofSeconds(120), () -> position(topic, 0) == 10);
            door.stopAccepting();
            assertThat(door.drain(Duration.ofSeconds(30))).as("drained within the bound").isTrue();
            assertThat(section(door)).containsEntry("consumers_running", 0L)
                    .containsEntry("partitions", List.of());
        }
        assertThat(count("MATCH (e:Event) RETURN count(e)")).isEqualTo(10);
        assertThat(position(topic, 0)).isEqualTo(10);
    }

    @Test
    void withoutDeadLettersAFailingRecordHoldsItsPartitionOnlyAndTheBoundHoldsAFlood() throws Exception {
        String topic = name("hold");
        topic(topic, 2);
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: %s
                    consumers: 1
                    on_error: stop
                    topics:
                      - topic: %s
                        cypher: "CREATE (:Event {n: 1 / event.d, p: event.p})"
                """.formatted(name("group"), topic));
        for (int i = 0; i < 20; i++) {
            send(topic, 0, null, "{\"d\": " + (i == 5 ? 0 : 1) + ", \"p\": 0}", Map.of()); // 1 / 0 fails alone
            send(topic, 1, null, "{\"d\": 1, \"p\": 1}", Map.of());
        }
        KafkaSources started = sources(config, graph);
        try (started) {
            Await.until("partition 1 applied, partition 0 held at offset 5", Duration.ofSeconds(120),
                    () -> position(topic, 1) == 20 && position(topic, 0) == 5
                            && started.partitions().stream().anyMatch(p -> Integer.valueOf(0).equals(p.get("partition"))
                                    && "paused".equals(p.get("state"))
                                    && String.valueOf(p.get("reason")).contains("held at offset 5")));
            assertThat(count("MATCH (e:Event {p: 0}) RETURN count(e)")).isEqualTo(5);
        }
        assertThat(position(topic, 0)).as("nothing skipped").isEqualTo(5);
    }

    @Test
    void aFloodOfFailuresHoldsThePartitionAtTheBoundInsteadOfDrainingItIntoTheDeadLetters() throws Exception {
        String topic = name("flood");
        String dlq = name("flood-dlq");
        topic(topic, 1);
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: %s
                    consumers: 1
                    dead_letter: {topic: %s, max_per_minute: 3}
                    topics:
                      - topic: %s
                        cypher: "CREATE (:Flood {n: 1 / event.d})"
                """.formatted(name("group"), dlq, topic));
        for (int i = 0; i < 10; i++) {
            send(topic, 0, null, "{\"d\": 0}", Map.of()); // a mapping's mistake: every record fails
        }
        KafkaSources started = sources(config, graph);
        try (started) {
            Await.until("held at the fourth failure", Duration.ofSeconds(60), () -> position(topic, 0) == 3
                    && started.partitions().stream().anyMatch(p -> String.valueOf(p.get("reason"))
                            .contains("3 dead letters in the last minute")));
        }
        assertThat(deadLetters(dlq, 3)).hasSize(3);
        assertThat(position(topic, 0)).as("the rest wait for the operator, not in the DLQ").isEqualTo(3);
    }

    @Test
    void aPartitionWithNoPositionStartsOnceFromTheConnectorsGroupOrItsEosNode() throws Exception {
        String topic = name("moved");
        String connectorGroup = name("connect-neo4j");
        topic(topic, 3);
        for (int i = 0; i < 10; i++) {
            for (int p = 0; p < 3; p++) {
                send(topic, p, null, "{\"p\": " + p + ", \"i\": " + i + "}", Map.of());
            }
        }
        // what the connector left: its group committed partition 0 at 6; its EOS node says partition 1 applied to 3
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, connectorGroup);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.commitSync(Map.of(new org.apache.kafka.common.TopicPartition(topic, 0),
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(6)));
        }
        graph.inTransaction(tx -> {
            tx.runDiscarding("CREATE (:ConnectorOffset {strategy: 'CYPHER', topic: $t, partition: 1, offset: 3})",
                    Map.of("t", topic));
            return null;
        });
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: %s
                    consumers: 1
                    from_group: %s
                    eos_offset_label: ConnectorOffset
                    start: latest
                    topics:
                      - topic: %s
                        cypher: "CREATE (:Seen {p: event.p, i: event.i})"
                """.formatted(name("group"), connectorGroup, topic));
        KafkaSources started = sources(config, graph);
        try (started) {
            Await.until("every partition started", Duration.ofSeconds(120), () -> position(topic, 0) == 10
                    && position(topic, 1) == 10 && position(topic, 2) == 10);
        }
        assertThat(rows("MATCH (s:Seen) RETURN s.p, min(s.i), count(*) ORDER BY s.p")).as(
                "partition 0 from the group's offset 6, 1 after the EOS node's 3, 2 at the end (latest)")
                .containsExactly(List.of(0L, 6L, 4L), List.of(1L, 4L, 6L));
        // a restart starts from the graph, whatever the group says
        send(topic, 2, null, "{\"p\": 2, \"i\": 10}", Map.of());
        KafkaSources again = sources(config, graph);
        try (again) {
            Await.until("the new record applied", Duration.ofSeconds(120), () -> position(topic, 2) == 11);
        }
        assertThat(count("MATCH (s:Seen) RETURN count(s)")).isEqualTo(11);
    }

    @Test
    void theDryRunFindsStatementsThatDoNotCompileAndKeysWithoutAConstraint() throws Exception {
        graph.inTransaction(tx -> {
            tx.runDiscarding("CREATE CONSTRAINT city_name IF NOT EXISTS FOR (c:City) REQUIRE c.name IS UNIQUE",
                    Map.of());
            return null;
        });
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: checks
                    topics:
                      - topic: fine
                        cypher: "MERGE (c:City {name: event.city})"
                      - topic: typo
                        cypher: "MERGE (c:City {name: event.city}) SETT c.x = 1"
                      - topic: cities
                        pattern: "(:City{!name, population})"
                      - topic: people
                        pattern: "(:Person{!id, name})"
                """);
        SourceChecks.Report report = SourceChecks.run(config, graph);
        assertThat(report.errors()).singleElement().asString().startsWith("topic 'typo': the statement does not"
                + " compile: Neo.ClientError.Statement.SyntaxError");
        assertThat(report.warnings()).singleElement().asString().contains(":Person [id]")
                .contains("CREATE CONSTRAINT FOR (n:`Person`) REQUIRE (n.`id`) IS UNIQUE");
        assertThat(report.describe()).endsWith("6 statements checked: 1 error, 1 warning");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> sources(config, graph))
                .as("a mapping that cannot run refuses the start, by name").hasMessageContaining("topic 'typo'");
    }

    /** Neo4j as sluice sees it during an outage: while {@code down}, every transaction fails as unavailable. */
    static final class Down extends ForwardingSink {
        final AtomicBoolean down = new AtomicBoolean();
        final AtomicInteger refused = new AtomicInteger();

        Down(Sink real) {
            super(real);
        }

        private void check() throws GraphException {
            if (down.get()) {
                refused.incrementAndGet();
                throw unavailable();
            }
        }

        /** What a transaction meets while the database is away: Neo4j's transient error. */
        static GraphException unavailable() {
            return new GraphException(new Neo4jError("Neo.TransientError.General.DatabaseUnavailable",
                    "the database is unavailable (test)"), null, false);
        }

        @Override
        public <T> T inTransaction(TxWork<T> work) throws GraphException {
            check();
            return real.inTransaction(work);
        }

        @Override
        public <T> T inReadTransaction(TxWork<T> work) throws GraphException {
            check();
            return real.inReadTransaction(work);
        }
    }
}
