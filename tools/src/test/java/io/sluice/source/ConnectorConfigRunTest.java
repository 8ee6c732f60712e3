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
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Neo4j Kafka Connector sink configuration, as a user would post it to Kafka Connect, run unchanged by
 * {@code sluice serve --connector-config} (a real process) against a real broker and Neo4j: the Cypher, pattern
 * (node and relationship, with a tombstone) and CUD strategies produce the graph the connector's documentation
 * shows, and a record that cannot be read goes to the connector's dead-letter topic. (The relationship pattern's
 * nodes keep their other properties because the file merges node properties: by default the connector, and so
 * sluice, replaces them with the pattern's, which for {@code (:Person{!id: personId})} is the key alone.)
 */
@Timeout(300)
class ConnectorConfigRunTest {
    static Path dir;
    static KafkaProcess kafka;
    static Neo4jProcess neo4j;
    static SluiceProcess sluice;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-connector-run-");
        kafka = KafkaProcess.start(dir.resolve("kafka"));
        neo4j = Neo4jProcess.start(dir.resolve("neo4j"));
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {sluice, neo4j, kafka}) {
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

    static String connectorJson() {
        return """
                {
                  "name": "neo4j-sink",
                  "config": {
                    "connector.class": "org.neo4j.connectors.kafka.sink.Neo4jConnector",
                    "tasks.max": "2",
                    "topics": "orders,people,knows,changes",
                    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
                    "key.converter.schemas.enable": "false",
                    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
                    "value.converter.schemas.enable": "false",
                    "neo4j.uri": "%s",
                    "neo4j.authentication.type": "NONE",
                    "neo4j.cypher.topic.orders": "MERGE (o:Order {id: event.id}) SET o.total = event.total",
                    "neo4j.pattern.topic.people": "(:Person{!id, name, surname})",
                    "neo4j.pattern.topic.knows": "(:Person{!id: personId})-[:KNOWS{since}]->(:Person{!id: friendId})",
                    "neo4j.pattern.merge-node-properties": "true",
                    "neo4j.cud.topics": "changes",
                    "errors.tolerance": "all",
                    "errors.deadletterqueue.topic.name": "dlq",
                    "errors.deadletterqueue.context.headers.enable": "true",
                    "consumer.override.bootstrap.servers": "%s"
                  }
                }
                """.formatted(neo4j.uri(), kafka.bootstrap());
    }

    @Test
    void theConnectorsOwnConfigurationRunsAsItIs() throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrap());
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1), new NewTopic("people", 1, (short) 1),
                    new NewTopic("knows", 1, (short) 1), new NewTopic("changes", 1, (short) 1))).all()
                    .get(30, TimeUnit.SECONDS);
        }
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            send(producer, "orders", null, "{\"id\": 1, \"total\": 10.5}");
            send(producer, "orders", null, "{not json");
            send(producer, "orders", null, "{\"id\": 1, \"total\": 12.0}");
            send(producer, "people", "{\"id\": 1}", "{\"id\": 1, \"name\": \"Ann\", \"surname\": \"Lee\"}");
            send(producer, "people", "{\"id\": 2}", "{\"id\": 2, \"name\": \"Bob\", \"surname\": \"Ray\"}");
            send(producer, "people", "{\"id\": 2}", null); // tombstone: Bob goes
            send(producer, "knows", null, "{\"personId\": 1, \"friendId\": 3, \"since\": 2019}");
            send(producer, "changes", null, """
                    {"type": "node", "op": "merge", "labels": ["Person"], "ids": {"id": 3},
                     "properties": {"name": "Cid"}}""");
            send(producer, "changes", null, """
                    [{"type": "node", "op": "create", "labels": ["Person"], "properties": {"id": 4, "name": "Dee"}},
                     {"type": "relationship", "op": "merge", "rel_type": "KNOWS",
                      "from": {"labels": ["Person"], "ids": {"id": 4}},
                      "to": {"labels": ["Person"], "ids": {"id": 1}}, "properties": {"since": 2024}}]""");
        }
        Path config = Files.writeString(dir.resolve("connector.json"), connectorJson());
        Path empty = Files.writeString(dir.resolve("sluice.yaml"), "# everything comes from the connector's file\n");
        sluice = SluiceProcess.start(empty, dir.resolve("sluice"), TestServer.freePort(), "--connector-config",
                config.toString());
        try (BoltSink graph = BoltSink.connect(new BoltSink.Options(neo4j.uri(), null, null, "neo4j"),
                Duration.ofSeconds(60), Time.SYSTEM)) {
            Await.until("every topic applied", Duration.ofSeconds(120), () -> next(graph, "orders") == 3
                    && next(graph, "people") == 3 && next(graph, "knows") == 1 && next(graph, "changes") == 2);
            assertThat(rows(graph, "MATCH (o:Order) RETURN o.id, o.total")).containsExactly(List.of(1L, 12.0));
            assertThat(rows(graph, "MATCH (p:Person) RETURN p.id, p.name, p.surname ORDER BY p.id")).as(
                    "Bob's tombstone deleted him; the CUD merge and create made Cid and Dee").containsExactly(
                    List.of(1L, "Ann", "Lee"), java.util.Arrays.asList(3L, "Cid", null),
                    java.util.Arrays.asList(4L, "Dee", null));
            assertThat(rows(graph, "MATCH (a:Person)-[k:KNOWS]->(b:Person) RETURN a.id, b.id, k.since ORDER BY a.id"))
                    .containsExactly(List.of(1L, 3L, 2019L), List.of(4L, 1L, 2024L));
        }
        String log = Files.readString(sluice.log);
        assertThat(log).contains("dead letter to dlq: orders[0]@1");
        assertThat(log).contains("as group connect-neo4j-sink (2 consumers)");
    }

    static long next(BoltSink graph, String topic) {
        List<List<Object>> r = rows(graph, "MATCH (o:SluicePosition {source: 'topic:" + topic + "', partition: 0})"
                + " RETURN o.next");
        return r.isEmpty() ? -1 : ((Number) r.getFirst().getFirst()).longValue();
    }

    static List<List<Object>> rows(BoltSink graph, String cypher) {
        try {
            return graph.inReadTransaction(tx -> tx.run(cypher, Map.of())).rows();
        } catch (GraphException e) {
            throw new IllegalStateException(e);
        }
    }

    static void send(KafkaProducer<byte[], byte[]> producer, String topic, String key, String value) throws Exception {
        producer.send(new ProducerRecord<>(topic, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
    }
}
