package io.sluice.topic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.sluice.config.Sources;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The avro format at the unit level: records written by Avro's own {@link GenericDatumWriter} in Confluent's wire
 * format, their schemas served by a tiny in-test HTTP server speaking the registry's {@code /schemas/ids/{id}}
 * (the real registry runs in tools' AvroSourcesTest). Every Avro type and logical type read as the strategies take
 * it; schemas kept by id, boundedly; bad data {@link Formats.Unreadable}, an outage {@link Formats.Unavailable}.
 */
@Timeout(60)
class AvroReaderTest {
    static final ObjectMapper JSON = new ObjectMapper();

    /** Everything Avro has, and the logical types Connect maps. */
    static final Schema ALL = new Schema.Parser().parse("""
            {"type": "record", "name": "All", "namespace": "test", "fields": [
              {"name": "i", "type": "int"},
              {"name": "l", "type": "long"},
              {"name": "f", "type": "float"},
              {"name": "d", "type": "double"},
              {"name": "b", "type": "boolean"},
              {"name": "s", "type": "string"},
              {"name": "raw", "type": "bytes"},
              {"name": "fx", "type": {"type": "fixed", "name": "Four", "size": 4}},
              {"name": "e", "type": {"type": "enum", "name": "Colour", "symbols": ["RED", "GREEN"]}},
              {"name": "arr", "type": {"type": "array", "items": "long"}},
              {"name": "m", "type": {"type": "map", "values": "string"}},
              {"name": "nested", "type": {"type": "record", "name": "Inner", "fields": [
                {"name": "x", "type": "int"}, {"name": "tags", "type": {"type": "array", "items": "string"}}]}},
              {"name": "optionalSet", "type": ["null", "string"], "default": null},
              {"name": "optionalNull", "type": ["null", "string"], "default": null},
              {"name": "unionInt", "type": ["int", "string", "Inner"]},
              {"name": "unionString", "type": ["int", "string", "Inner"]},
              {"name": "unionRecord", "type": ["int", "string", "Inner"]},
              {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
              {"name": "decFixed", "type": {"type": "fixed", "name": "Dec8", "size": 8, "logicalType": "decimal",
                "precision": 12, "scale": 3}},
              {"name": "day", "type": {"type": "int", "logicalType": "date"}},
              {"name": "tMillis", "type": {"type": "int", "logicalType": "time-millis"}},
              {"name": "tMicros", "type": {"type": "long", "logicalType": "time-micros"}},
              {"name": "tsMillis", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "tsMicros", "type": {"type": "long", "logicalType": "timestamp-micros"}},
              {"name": "tsBefore1970", "type": {"type": "long", "logicalType": "timestamp-millis"}},
              {"name": "localTs", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
              {"name": "id", "type": {"type": "string", "logicalType": "uuid"}}
            ]}""");

    HttpServer server;
    String url;
    final Map<Integer, String> bodies = new ConcurrentHashMap<>();
    final AtomicInteger requests = new AtomicInteger();
    /** Non-null: every request answers this status and body. */
    final AtomicReference<Map.Entry<Integer, String>> failing = new AtomicReference<>();

    @BeforeEach
    void registry() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/registry/schemas/ids/", this::serve);
        server.start();
        url = "http://127.0.0.1:" + server.getAddress().getPort() + "/registry";
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void serve(HttpExchange x) throws IOException {
        requests.incrementAndGet();
        Map.Entry<Integer, String> fail = failing.get();
        int status;
        String body;
        if (fail != null) {
            status = fail.getKey();
            body = fail.getValue();
        } else {
            String path = x.getRequestURI().getPath();
            int id = Integer.parseInt(path.substring(path.lastIndexOf('/') + 1));
            body = bodies.get(id);
            status = body == null ? 404 : 200;
            if (body == null) {
                body = "{\"error_code\": 40403, \"message\": \"Schema " + id + " not found\"}";
            }
        }
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", "application/vnd.schemaregistry.v1+json");
        x.sendResponseHeaders(status, b.length);
        x.getResponseBody().write(b);
        x.close();
    }

    void register(int id, Schema schema) throws IOException {
        bodies.put(id, JSON.writeValueAsString(Map.of("schema", schema.toString())));
    }

    AvroReader reader() {
        return new AvroReader(new Sources.SchemaRegistry(url));
    }

    /** Confluent's wire format: 0, the id big-endian, the datum in Avro's binary encoding. */
    static byte[] wire(int id, Schema schema, Object datum) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.write(ByteBuffer.allocate(4).putInt(id).array());
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<Object>(schema, GenericData.get()).write(datum, enc);
        enc.flush();
        return out.toByteArray();
    }

    static GenericRecord inner(int x, String... tags) {
        GenericRecord r = new GenericData.Record(ALL.getField("nested").schema());
        r.put("x", x);
        r.put("tags", List.of(tags));
        return r;
    }

    /**
     * Debezium's semantic types as Connect's Avro converters write them (the base type, {@code connect.name} naming
     * it), optional as Debezium's columns are: read as Debezium's, Neo4j's values; read plainly, the base values.
     */
    @Test
    void debeziumsTypesInAvroReadAsNeo4jsWhenAskedFor() throws Exception {
        Schema row = new Schema.Parser().parse("""
                {"type": "record", "name": "Value", "namespace": "shop.public.customers", "fields": [
                  {"name": "id", "type": "int"},
                  {"name": "born", "type": ["null", {"type": "int", "connect.version": 1,
                    "connect.name": "io.debezium.time.Date"}], "default": null},
                  {"name": "seen", "type": ["null", {"type": "long", "connect.version": 1,
                    "connect.name": "io.debezium.time.MicroTimestamp"}], "default": null}]}""");
        register(31, row);
        GenericRecord r = new GenericData.Record(row);
        r.put("id", 1);
        r.put("born", -56270);
        r.put("seen", 1_000_000L);
        byte[] bytes = wire(31, row, r);
        assertThat(reader().readDebezium(bytes)).isEqualTo(Map.of("id", 1L, "born", java.time.LocalDate.of(1815, 12,
                10), "seen", java.time.LocalDateTime.of(1970, 1, 1, 0, 0, 1)));
        assertThat(reader().read(bytes)).isEqualTo(Map.of("id", 1L, "born", -56270L, "seen", 1_000_000L));
    }

    @Test
    void everyTypeReadsAsTheStrategiesTakeIt() throws Exception {
        register(7, ALL);
        GenericRecord r = new GenericData.Record(ALL);
        r.put("i", 42);
        r.put("l", 1L << 40);
        r.put("f", 1.5f);
        r.put("d", 2.25);
        r.put("b", true);
        r.put("s", "héllo");
        r.put("raw", ByteBuffer.wrap(new byte[] {1, 2, 3}));
        r.put("fx", new GenericData.Fixed(ALL.getField("fx").schema(), new byte[] {9, 8, 7, 6}));
        r.put("e", new GenericData.EnumSymbol(ALL.getField("e").schema(), "GREEN"));
        r.put("arr", List.of(1L, 2L));
        r.put("m", Map.of("k", "v"));
        r.put("nested", inner(5, "a", "b"));
        r.put("optionalSet", "here");
        r.put("optionalNull", null);
        r.put("unionInt", 3);
        r.put("unionString", "three");
        r.put("unionRecord", inner(6));
        Conversions.DecimalConversion dc = new Conversions.DecimalConversion();
        Schema dec = ALL.getField("dec").schema();
        r.put("dec", dc.toBytes(new BigDecimal("-12345.67"), dec, dec.getLogicalType()));
        Schema decFixed = ALL.getField("decFixed").schema();
        r.put("decFixed", dc.toFixed(new BigDecimal("98765.432"), decFixed, decFixed.getLogicalType()));
        r.put("day", (int) LocalDate.of(2024, 2, 29).toEpochDay());
        r.put("tMillis", (int) (LocalTime.of(13, 14, 15, 123_000_000).toNanoOfDay() / 1_000_000));
        r.put("tMicros", LocalTime.of(1, 2, 3, 456_789_000).toNanoOfDay() / 1_000);
        r.put("tsMillis", 1_700_000_000_123L);
        r.put("tsMicros", 1_700_000_000_123_456L);
        r.put("tsBefore1970", -1L);
        r.put("localTs", 86_400_000L + 1);
        r.put("id", "3f1b8a6e-0d5c-4b7e-9a7f-2c6d1e8b9f00");

        Object read = reader().read(wire(7, ALL, r));

        assertThat(read).isInstanceOf(Map.class);
        Map<?, ?> m = (Map<?, ?>) read;
        assertThat(m.get("i")).isEqualTo(42L);
        assertThat(m.get("l")).isEqualTo(1L << 40);
        assertThat(m.get("f")).isEqualTo(1.5);
        assertThat(m.get("d")).isEqualTo(2.25);
        assertThat(m.get("b")).isEqualTo(true);
        assertThat(m.get("s")).isEqualTo("héllo");
        assertThat((byte[]) m.get("raw")).containsExactly(1, 2, 3);
        assertThat((byte[]) m.get("fx")).containsExactly(9, 8, 7, 6);
        assertThat(m.get("e")).isEqualTo("GREEN");
        assertThat(m.get("arr")).isEqualTo(List.of(1L, 2L));
        assertThat(m.get("m")).isEqualTo(Map.of("k", "v"));
        assertThat(m.get("nested")).isEqualTo(Map.of("x", 5L, "tags", List.of("a", "b")));
        assertThat(m.get("optionalSet")).isEqualTo("here");
        assertThat(m.containsKey("optionalNull")).isTrue();
        assertThat(m.get("optionalNull")).isNull();
        assertThat(m.get("unionInt")).isEqualTo(3L);
        assertThat(m.get("unionString")).isEqualTo("three");
        assertThat(m.get("unionRecord")).isEqualTo(Map.of("x", 6L, "tags", List.of()));
        assertThat(m.get("dec")).isEqualTo("-12345.67");
        assertThat(m.get("decFixed")).isEqualTo("98765.432");
        assertThat(m.get("day")).isEqualTo(LocalDate.of(2024, 2, 29));
        assertThat(m.get("tMillis")).isEqualTo(LocalTime.of(13, 14, 15, 123_000_000));
        assertThat(m.get("tMicros")).isEqualTo(LocalTime.of(1, 2, 3, 456_789_000));
        assertThat(m.get("tsMillis")).isEqualTo(LocalDateTime.of(2023, 11, 14, 22, 13, 20, 123_000_000));
        assertThat(m.get("tsMicros")).isEqualTo(LocalDateTime.of(2023, 11, 14, 22, 13, 20, 123_456_000));
        assertThat(m.get("tsBefore1970")).isEqualTo(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_000_000));
        assertThat(m.get("localTs")).isEqualTo(LocalDateTime.of(1970, 1, 2, 0, 0, 0, 1_000_000));
        assertThat(m.get("id")).isEqualTo("3f1b8a6e-0d5c-4b7e-9a7f-2c6d1e8b9f00");
        assertThat(m.keySet().stream().map(String::valueOf).toList()).as("the fields in the schema's order")
                .containsExactlyElementsOf(
                ALL.getFields().stream().map(Schema.Field::name).toList());
    }

    @Test
    void primitivesAndNull() throws Exception {
        Schema string = Schema.create(Schema.Type.STRING);
        Schema ts = LogicalTypes.timestampMillis().addToSchema(Schema.create(Schema.Type.LONG));
        register(1, string);
        register(2, ts);
        AvroReader reader = reader();
        assertThat(reader.read(wire(1, string, "key-1"))).isEqualTo("key-1");
        assertThat(reader.read(wire(2, ts, 0L))).isEqualTo(LocalDateTime.of(1970, 1, 1, 0, 0));
        assertThat(reader.read(null)).as("a tombstone, a record without a key").isNull();
    }

    @Test
    void schemasAreFetchedOncePerIdAndKeptBoundedly() throws Exception {
        Schema string = Schema.create(Schema.Type.STRING);
        register(1, string);
        AvroReader reader = reader();
        for (int i = 0; i < 5; i++) {
            assertThat(reader.read(wire(1, string, "v" + i))).isEqualTo("v" + i);
        }
        assertThat(requests).as("one fetch for five records of one id").hasValue(1);

        int more = AvroReader.MAX_SCHEMAS + 1;
        for (int id = 100; id < 100 + more; id++) {
            register(id, string);
            reader.read(wire(id, string, "x"));
        }
        requests.set(0);
        reader.read(wire(100 + more - 1, string, "x"));
        assertThat(requests).as("the most recent id is kept").hasValue(0);
        reader.read(wire(1, string, "x"));
        assertThat(requests).as("the oldest went: at most %d ids are kept", AvroReader.MAX_SCHEMAS).hasValue(1);
    }

    @Test
    void badDataIsUnreadable() throws Exception {
        Schema string = Schema.create(Schema.Type.STRING);
        register(1, string);
        AvroReader reader = reader();
        byte[] good = wire(1, string, "hello");

        byte[] magic = good.clone();
        magic[0] = 1;
        assertThatThrownBy(() -> reader.read(magic)).isInstanceOf(Formats.Unreadable.class)
                .hasMessageContaining("magic byte 1");
        assertThatThrownBy(() -> reader.read(new byte[] {0, 0, 0})).isInstanceOf(Formats.Unreadable.class)
                .hasMessageContaining("5-byte header");
        assertThatThrownBy(() -> reader.read("{\"json\": true}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(Formats.Unreadable.class).hasMessageContaining("magic byte");
        assertThatThrownBy(() -> reader.read(wire(99, string, "hello"))).as("an id the registry does not know")
                .isInstanceOf(Formats.Unreadable.class).hasMessageContaining("schema id 99 is not in the schema"
                        + " registry");
        byte[] truncated = java.util.Arrays.copyOf(good, good.length - 2);
        assertThatThrownBy(() -> reader.read(truncated)).isInstanceOf(Formats.Unreadable.class)
                .hasMessageContaining("does not read with schema id 1");

        bodies.put(3, "{\"schema\": \"syntax = \\\"proto3\\\";\", \"schemaType\": \"PROTOBUF\"}");
        assertThatThrownBy(() -> reader.read(wire(3, string, "x"))).isInstanceOf(Formats.Unreadable.class)
                .hasMessageContaining("PROTOBUF schema, not Avro");
        bodies.put(4, "{\"schema\": \"{\\\"type\\\": \\\"nonsense\\\"}\"}");
        assertThatThrownBy(() -> reader.read(wire(4, string, "x"))).isInstanceOf(Formats.Unreadable.class)
                .hasMessageContaining("not a valid Avro schema");
    }

    @Test
    void anOutageIsUnavailableNotBadDataAndPassesWhenTheRegistryIsBack() throws Exception {
        Schema string = Schema.create(Schema.Type.STRING);
        register(1, string);
        AvroReader reader = reader();
        byte[] record = wire(1, string, "hello");

        failing.set(Map.entry(503, "{\"error_code\": 50301, \"message\": \"unavailable\"}"));
        assertThatThrownBy(() -> reader.read(record)).isInstanceOf(Formats.Unavailable.class)
                .hasMessageContaining("HTTP 503");
        failing.set(Map.entry(401, "{\"error_code\": 401, \"message\": \"Unauthorized\"}"));
        assertThatThrownBy(() -> reader.read(record)).as("credentials missing: the registry's, not the record's")
                .isInstanceOf(Formats.Unavailable.class).hasMessageContaining("HTTP 401");
        failing.set(Map.entry(404, "<html>Not Found</html>"));
        assertThatThrownBy(() -> reader.read(record)).as("a 404 without 40403: a wrong URL, not an unknown id")
                .isInstanceOf(Formats.Unavailable.class).hasMessageContaining("HTTP 404");
        failing.set(Map.entry(200, "<html>a proxy's page</html>"));
        assertThatThrownBy(() -> reader.read(record)).isInstanceOf(Formats.Unavailable.class);

        failing.set(null);
        assertThat(reader.read(record)).as("the registry back").isEqualTo("hello");

        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        AvroReader unreachable = new AvroReader(new Sources.SchemaRegistry("http://127.0.0.1:" + closedPort));
        assertThatThrownBy(() -> unreachable.read(record)).isInstanceOf(Formats.Unavailable.class)
                .hasMessageContaining("unreachable").hasMessageContaining("cannot connect");
        assertThat(reader.read(record)).as("a kept schema needs no registry").isEqualTo("hello");
    }

    @Test
    void theSettingIsAnHttpUrl() {
        assertThat(new Sources.SchemaRegistry(" http://r:8081/apis/ccompat/v6/ ").url())
                .isEqualTo("http://r:8081/apis/ccompat/v6");
        assertThatThrownBy(() -> new Sources.SchemaRegistry("r:8081")).hasMessageContaining("not an http");
        assertThatThrownBy(() -> new Sources.SchemaRegistry("http://u:p@r:8081"))
                .hasMessageContaining("credentials");
        assertThatThrownBy(() -> new Sources.SchemaRegistry(" ")).hasMessageContaining("url is required");
    }
}
