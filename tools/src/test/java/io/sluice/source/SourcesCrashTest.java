package io.sluice.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.sink.BoltSink;
import io.sluice.vocab.GraphException;
import io.sluice.support.Await;
import io.sluice.support.KafkaProcess;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.SluiceProcess;
import io.sluice.support.TestServer;
import io.sluice.time.Time;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
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

/**
 * Application topics under the faults of production, all real processes: a broker ({@code sluice kafka}), a Neo4j
 * ({@code sluice neo4j}) and two {@code sluice serve --neo4j} instances sharing a topic through their consumer
 * group, while a producer writes each key's events in sequence. In the middle of the topic one instance is killed
 * -9 (and started again), and Neo4j is killed -9 (and started again). Then, once every partition's position in
 * the graph is at the topic's end: each key's events applied exactly once, in the order they were produced, and
 * nothing dead-lettered (an outage is not bad data).
 */
@Timeout(value = 600)
class SourcesCrashTest {
    static final int PARTITIONS = 4;
    static final int KEYS = 24;

    Path dir;
    KafkaProcess kafka;
    Neo4jProcess neo4j;
    final SluiceProcess[] instances = new SluiceProcess[2];

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

    static String config(String bootstrap, String topic) {
        return """
                sources:
                  kafka:
                    bootstrap: %s
                    group: crash
                    consumers: 1
                    dead_letter: {topic: %s-dlq}
                    topics:
                      - topic: %s
                        key_format: string
                        cypher: "MERGE (k:Key {id: event.k}) ON CREATE SET k.seqs = [event.s] ON MATCH SET k.seqs = k.seqs + event.s"
                """.formatted(bootstrap, topic, topic);
    }

    @Test
    void killNineOfAnInstanceAndOfNeo4jMidTopicAppliesEveryEventOnceInOrder() throws Exception {
        dir = Files.createTempDirectory("sluice-sources-crash-");
        kafka = KafkaProcess.start(dir.resolve("kafka"));
        neo4j = Neo4jProcess.start(dir.resolve("neo4j"));
        String topic = "events";
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrap());
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
            Path file = Files.writeString(dir.resolve("sluice.yaml"), config(kafka.bootstrap(), topic));
            for (int i = 0; i < instances.length; i++) {
                instances[i] = SluiceProcess.start(file, dir.resolve("instance-" + i), TestServer.freePort(),
                        "--neo4j", neo4j.uri());
            }
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            Map<Integer, Long> next = new HashMap<>();
            AtomicLong produced = new AtomicLong();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
                    BoltSink graph = BoltSink.connect(new BoltSink.Options(neo4j.uri(), null, null, "neo4j"),
                            Duration.ofSeconds(60), Time.SYSTEM)) {
                Runnable batch = () -> {
                    for (int n = 0; n < 200; n++) {
                        int k = (int) (produced.get() % KEYS);
                        long s = next.merge(k, 1L, Long::sum) - 1;
                        producer.send(new ProducerRecord<>(topic, ("k" + k).getBytes(StandardCharsets.UTF_8),
                                ("{\"k\": " + k + ", \"s\": " + s + "}").getBytes(StandardCharsets.UTF_8)));
                        produced.incrementAndGet();
                    }
                    producer.flush();
                };
                for (int i = 0; i < 5; i++) {
                    batch.run();
                }
                Await.until("both instances apply", Duration.ofSeconds(120), () -> applied(graph, topic) > 0);
                instances[0].kill();
                for (int i = 0; i < 5; i++) {
                    batch.run(); // the survivor takes the killed one's partitions
                }
                instances[0] = instances[0].restart();
                batch.run();
                neo4j.kill(); // Neo4j dies under both instances
                for (int i = 0; i < 5; i++) {
                    batch.run(); // Kafka keeps taking events: they wait for Neo4j
                }
                neo4j = neo4j.restart();
                for (int i = 0; i < 4; i++) {
                    batch.run();
                }
                Map<Integer, Long> ends = ends(admin, topic);
                try (BoltSink after = BoltSink.connect(new BoltSink.Options(neo4j.uri(), null, null, "neo4j"),
                        Duration.ofSeconds(120), Time.SYSTEM)) {
                    Await.until("every partition applied to its end " + ends, Duration.ofSeconds(240),
                            Duration.ofMillis(250), () -> positions(after, topic).equals(ends));
                    for (int k = 0; k < KEYS; k++) {
                        List<Long> expected = new ArrayList<>();
                        for (long s = 0; s < next.get(k); s++) {
                            expected.add(s);
                        }
                        assertThat(rows(after, "MATCH (k:Key {id: " + k + "}) RETURN k.seqs").getFirst().getFirst())
                                .as("key %d: every event once, in order", k).isEqualTo(expected);
                    }
                }
            }
            Map<Integer, Long> dlq = ends(admin, topic + "-dlq");
            assertThat(dlq.values()).as("nothing dead-lettered for the crash or the outage").containsOnly(0L);
        }
        int retried = 0;
        int outage = 0;
        for (SluiceProcess s : instances) {
            String log = Files.readString(s.log);
            assertThat(log).as("%s", s.log).doesNotContain("source consumer 0 stopped");
            retried += FleetLogs.occurrences(log, "where it stands");
            outage += FleetLogs.occurrences(log, "does not answer");
        }
        assertThat(outage).as("the instances saw Neo4j gone (the outage was met, not missed)").isPositive();
        System.out.printf("sources crash test: Neo4j seen gone %d times, %d batches or positions re-read%n", outage,
                retried);
    }

    /** Counting in logs. */
    static final class FleetLogs {
        static int occurrences(String text, String what) {
            int n = 0;
            for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + what.length())) {
                n++;
            }
            return n;
        }
    }

    static long applied(BoltSink graph, String topic) {
        return positions(graph, topic).values().stream().mapToLong(Long::longValue).sum();
    }

    static Map<Integer, Long> positions(BoltSink graph, String topic) {
        Map<Integer, Long> out = new HashMap<>();
        try {
            for (List<Object> r : rows(graph, "MATCH (o:SluicePosition {source: 'topic:" + topic
                    + "'}) RETURN o.partition, o.next")) {
                out.put(((Number) r.get(0)).intValue(), ((Number) r.get(1)).longValue());
            }
        } catch (IllegalStateException e) {
            return Map.of(); // Neo4j still starting
        }
        return out;
    }

    static List<List<Object>> rows(BoltSink graph, String cypher) {
        try {
            return graph.inReadTransaction(tx -> tx.run(cypher, Map.of())).rows();
        } catch (GraphException e) {
            throw new IllegalStateException(e);
        }
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
}
