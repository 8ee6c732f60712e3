package io.sluice.source;

import io.sluice.topic.AvroReader;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.apply.BatchRunner;
import io.sluice.apply.RetryPolicy;
import io.sluice.config.ConfigLoader;
import io.sluice.config.Sources;
import io.sluice.durable.RecordApplier;
import io.sluice.metrics.Metrics;
import io.sluice.sink.BoltSink;
import io.sluice.vocab.GraphException;
import io.sluice.support.Await;
import io.sluice.support.KafkaProcess;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.SchemaRegistryProcess;
import io.sluice.support.TestServer;
import io.sluice.time.Jitter;
import io.sluice.time.Time;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The avro format end to end, with a real schema registry: Apicurio Registry's Confluent-compatible API
 * ({@link SchemaRegistryProcess}, built from Maven Central into target/ by the test the first time), a real broker
 * ({@code sluice kafka}) and a real Neo4j ({@code sluice neo4j}). Schemas are registered through the registry's
 * REST API; the producer writes Confluent's wire format with Avro's own writer; {@link KafkaSources} applies the
 * records with the Cypher strategy. Skipped, saying why, only where the registry cannot be installed (Maven cannot
 * fetch its artifacts).
 */
@Timeout(900) // the first run builds the registry (bounded at 540 s); later runs take well under a minute each
class AvroSourcesTest {
    static Path dir;
    static SchemaRegistryProcess registry;
    static KafkaProcess kafka;
    static Neo4jProcess neo4j;
    static BoltSink graph;
    static KafkaProducer<byte[], byte[]> producer;
    static Admin admin;
    static final AtomicInteger RUN = new AtomicInteger();

    static final Schema KEY = Schema.create(Schema.Type.STRING);
    static final Schema PERSON_V1 = new Schema.Parser().parse("""
            {"type": "record", "name": "Person", "namespace": "test.people", "fields": [
              {"name": "id", "type": "long"},
              {"name": "name", "type": "string"},
              {"name": "born", "type": {"type": "int", "logicalType": "date"}},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["STAFF", "GUEST"]}},
              {"name": "seen", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "balance", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10,
                "scale": 2}},
              {"name": "address", "type": {"type": "record", "name": "Address", "fields": [
                {"name": "city", "type": "string"}, {"name": "zip", "type": ["null", "int"], "default": null}]}}
            ]}""");
    /** v1 and an optional field: a second schema id for the same subject. */
    static final Schema PERSON_V2 = new Schema.Parser().parse(PERSON_V1.toString().replace(
            "{\"name\":\"address\"", "{\"name\":\"email\",\"type\":[\"null\",\"string\"],\"default\":null},"
                    + "{\"name\":\"address\""));

    @BeforeAll
    @Timeout(900) // a class's @Timeout is not its lifecycle methods': without this, the default's 180 s
    static void start() throws Exception {
        try {
            SchemaRegistryProcess.install();
        } catch (SchemaRegistryProcess.CannotInstall e) {
            Assumptions.abort("the schema registry cannot be installed on this machine, so the avro format's"
                    + " end-to-end tests are skipped: " + e.getMessage());
        }
        dir = Files.createTempDirectory("sluice-avro-");
        registry = SchemaRegistryProcess.start(dir.resolve("registry"));
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
        for (AutoCloseable c : new AutoCloseable[] {producer, admin, graph, neo4j, kafka, registry}) {
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

    static void topic(String name) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
    }

    /** Confluent's wire format, as KafkaAvroSerializer writes it: 0, the schema id big-endian, the Avro binary. */
    static byte[] wire(int id, Schema schema, Object datum) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.write(ByteBuffer.allocate(4).putInt(id).array());
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<Object>(schema, GenericData.get()).write(datum, enc);
        enc.flush();
        return out.toByteArray();
    }

    static void send(String topic, byte[] key, byte[] value) throws Exception {
        producer.send(new ProducerRecord<>(topic, 0, key, value)).get(30, TimeUnit.SECONDS);
    }

    static GenericRecord person(Schema schema, long id) {
        GenericRecord r = new GenericData.Record(schema);
        r.put("id", id);
        r.put("name", "person " + id);
        r.put("born", (int) LocalDate.of(1990, 1, 1).plusDays(id).toEpochDay());
        r.put("tags", List.of("t" + id, "all"));
        r.put("kind", new GenericData.EnumSymbol(schema.getField("kind").schema(), id % 2 == 0 ? "STAFF" : "GUEST"));
        r.put("seen", 1_700_000_000_000L + id * 1000);
        Schema balance = schema.getField("balance").schema();
        r.put("balance", new Conversions.DecimalConversion().toBytes(new BigDecimal(id + ".25"), balance,
                balance.getLogicalType()));
        GenericRecord address = new GenericData.Record(schema.getField("address").schema());
        address.put("city", "c" + id % 3);
        address.put("zip", id % 2 == 0 ? null : (int) id);
        r.put("address", address);
        if (schema.getField("email") != null) {
            r.put("email", "p" + id + "@example.org");
        }
        return r;
    }

    static Sources.KafkaSource config(String yaml) throws Exception {
        return ConfigLoader.parse(yaml.replace("BOOTSTRAP", kafka.bootstrap()).replace("REGISTRY", registry.url()))
                .sources().kafka();
    }

    static KafkaSources sources(Sources.KafkaSource config) throws GraphException {
        RecordApplier.Parts parts = new RecordApplier.Parts(clock -> new BatchRunner(graph,
                new RetryPolicy(3, Duration.ofMillis(20), Duration.ofMillis(100)), clock, Jitter.fixed(0),
                Metrics.NONE, true), null, 500);
        KafkaSources s = KafkaSources.create(config, graph, parts, Metrics.NONE, Time.SYSTEM, "test");
        s.start();
        return s;
    }

    static List<List<Object>> rows(String cypher) {
        try {
            return graph.inReadTransaction(tx -> tx.run(cypher, Map.of())).rows();
        } catch (GraphException e) {
            throw new IllegalStateException(e);
        }
    }

    static long position(String topic) {
        List<List<Object>> r = rows("MATCH (o:SluicePosition {source: 'topic:" + topic + "', partition: 0})"
                + " RETURN o.next");
        return r.isEmpty() ? -1 : ((Number) r.getFirst().getFirst()).longValue();
    }

    static List<ConsumerRecord<byte[], byte[]>> deadLetters(String topic, int atLeast) {
        return TopicReads.records(kafka.bootstrap(), topic, atLeast,
                Duration.ofMillis(atLeast == 0 ? 5000 : 500)); // none expected: give one 5 s to show up
    }

    static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        return TopicReads.header(r, name);
    }

    @Test
    void avroThroughTheRegistryIsAppliedAndBadBytesAreDeadLettered() throws Exception {
        String topic = name("people");
        String dlq = name("people-dlq");
        topic(topic);
        int keyId = registry.register(topic + "-key", KEY.toString());
        int v1 = registry.register(topic + "-value", PERSON_V1.toString());
        int v2 = registry.register(topic + "-value", PERSON_V2.toString());
        assertThat(v2).as("a second schema, a second id").isNotEqualTo(v1);
        assertThat(new AvroReader(new Sources.SchemaRegistry(registry.url())).read(wire(keyId, KEY, "k")))
                .as("the real registry answers sluice's first request (over HTTP/1.1: no h2c upgrade)")
                .isEqualTo("k");
        int records = 200;
        List<Long> bad = new ArrayList<>();
        for (long id = 0; id < records; id++) {
            Schema schema = id % 2 == 0 ? PERSON_V1 : PERSON_V2;
            send(topic, wire(keyId, KEY, "p-" + id), wire(id % 2 == 0 ? v1 : v2, schema, person(schema, id)));
            if (id == 50) { // an id the registry does not know
                send(topic, wire(keyId, KEY, "bad"), wire(424242, PERSON_V1, person(PERSON_V1, 9999)));
                bad.add(51L);
            }
            if (id == 120) { // not the wire format: plain JSON
                send(topic, wire(keyId, KEY, "bad"), "{\"id\": 9998}".getBytes(StandardCharsets.UTF_8));
                bad.add(122L);
            }
        }
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: %s
                    consumers: 1
                    schema_registry: {url: "REGISTRY"}
                    dead_letter: {topic: %s}
                    topics:
                      - topic: %s
                        key_format: avro
                        value_format: avro
                        cypher: >-
                          MERGE (p:Person {id: __value.id})
                          SET p.key = __key, p.name = __value.name, p.born = __value.born, p.tags = __value.tags,
                              p.kind = __value.kind, p.seen = __value.seen, p.balance = __value.balance,
                              p.email = __value.email, p.city = __value.address.city, p.zip = __value.address.zip
                """.formatted(name("group"), dlq, topic));
        KafkaSources started = sources(config);
        try (started) {
            Await.until("every record applied or dead-lettered", Duration.ofSeconds(120),
                    () -> position(topic) == records + 2);
        }
        assertThat(rows("MATCH (p:Person) RETURN count(p), count(p.email)").getFirst())
                .as("every good record, once; v2's email on the odd ones").containsExactly((long) records,
                        (long) records / 2);
        assertThat(rows("""
                MATCH (p:Person {id: 7}) RETURN p.key, p.name, toString(p.born), valueType(p.born), p.tags, p.kind,
                  toString(p.seen), valueType(p.seen), p.balance, p.email, p.city, p.zip"""))
                .containsExactly(List.of("p-7", "person 7", "1990-01-08", "DATE NOT NULL", List.of("t7", "all"),
                        "GUEST", "2023-11-14T22:13:27", "LOCAL DATETIME NOT NULL", "7.25", "p7@example.org", "c1",
                        7L));
        assertThat(rows("MATCH (p:Person {id: 8}) RETURN p.kind, p.email, p.zip"))
                .as("v1: no email field; a null union branch: no property").containsExactly(
                        java.util.Arrays.asList("STAFF", null, null));

        List<ConsumerRecord<byte[], byte[]>> letters = deadLetters(dlq, 2);
        assertThat(letters).extracting(r -> Long.parseLong(header(r, "__connect.errors.offset")))
                .containsExactlyElementsOf(bad);
        assertThat(letters).extracting(r -> header(r, "__connect.errors.stage"))
                .containsOnly("VALUE_CONVERTER");
        assertThat(header(letters.get(0), "__connect.errors.exception.message"))
                .contains("schema id 424242 is not in the schema registry");
        assertThat(header(letters.get(1), "__connect.errors.exception.message")).contains("magic byte 123");
    }

    @Test
    void aRegistryOutageIsRetriedNeverDeadLettered() throws Exception {
        String topic = name("outage");
        String dlq = name("outage-dlq");
        topic(topic);
        int v1 = registry.register(topic + "-value", PERSON_V1.toString());
        for (long id = 0; id < 10; id++) {
            send(topic, null, wire(v1, PERSON_V1, person(PERSON_V1, id)));
        }
        var config = config("""
                sources:
                  kafka:
                    bootstrap: BOOTSTRAP
                    group: %s
                    consumers: 1
                    schema_registry: {url: "REGISTRY"}
                    dead_letter: {topic: %s}
                    topics:
                      - topic: %s
                        key_format: bytes
                        value_format: avro
                        cypher: "CREATE (:Visit {id: __value.id, email: __value.email})"
                """.formatted(name("group"), dlq, topic));
        try (KafkaSources s = sources(config)) {
            Await.until("the first records applied", Duration.ofSeconds(60), () -> position(topic) == 10);
            // a schema sluice has not read yet, then the registry goes down, then records written with it
            int v2 = registry.register(topic + "-value", PERSON_V2.toString());
            registry.stop();
            for (long id = 10; id < 20; id++) {
                send(topic, null, wire(v2, PERSON_V2, person(PERSON_V2, id)));
            }
            send(topic, null, wire(v1, PERSON_V1, person(PERSON_V1, 20))); // after them, a schema sluice has
            Await.until("the partition paused, retrying", Duration.ofSeconds(60), () -> s.partitions().stream()
                    .anyMatch(p -> "paused".equals(p.get("state"))));
            Thread.sleep(3000); // several retries: nothing moves, nothing is dead-lettered
            assertThat(position(topic)).isEqualTo(10);
            assertThat(rows("MATCH (v:Visit) RETURN count(v)").getFirst()).containsExactly(10L);
            registry.restart();
            Await.until("everything applied once the registry is back", Duration.ofSeconds(120),
                    () -> position(topic) == 21);
        }
        assertThat(rows("MATCH (v:Visit) RETURN count(v), count(DISTINCT v.id), count(v.email)").getFirst())
                .as("each record once, in order; v2's with their email").containsExactly(21L, 21L, 10L);
        assertThat(deadLetters(dlq, 0)).as("an outage is never dead-lettered").isEmpty();
    }
}
