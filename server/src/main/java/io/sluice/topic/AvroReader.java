package io.sluice.topic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.Sources;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * The {@code avro} format: Avro in the Confluent wire format, read as Kafka Connect's {@code AvroConverter} gives
 * it to the Neo4j connector.
 *
 * <h2>Design</h2>
 * A key or value is a zero byte, the writer's schema id (4 bytes, big-endian), then the datum in Avro's binary
 * encoding. The schema is fetched by id from a Confluent-compatible registry ({@code GET {url}/schemas/ids/{id}},
 * {@code {"schema": "..."}}), parsed with Avro's own parser and kept (the last {@value #MAX_SCHEMAS} ids used); the
 * datum is read with Avro's {@link GenericDatumReader} against that schema and turned into the values the strategies
 * take: a record a map by field name, an array a list, a map a map, a string (and {@code uuid}) and an enum symbol
 * a string, {@code int} and {@code long} a Long, {@code float} and {@code double} a Double, {@code bytes} and
 * {@code fixed} their bytes, a union the value of the branch written (Connect makes a struct of a union that is not
 * just null and one type; sluice gives the branch's value). Logical types as the connector receives Connect's:
 * {@code decimal} its plain text, {@code date} a date, {@code time-millis}/{@code time-micros} a local time,
 * {@code timestamp-millis}/{@code -micros} a local date-time in UTC, {@code local-timestamp-*} a local date-time.
 *
 * <p>Bad data and outages are told apart. Bytes that are not the wire format, an id the registry answers it does
 * not know (Confluent's error 40403), a schema that is not Avro or does not parse, a datum that does not read: the
 * record is {@link Formats.Unreadable} (dead-lettered by {@code on_error}). The registry unreachable, timing out,
 * answering 5xx, refusing the request (401, 403) or answering anything else (a 404 without 40403 is a wrong URL,
 * not an unknown id): {@link Formats.Unavailable}, and the partition pauses and retries; nothing is
 * dead-lettered for an outage. Thread-safe: the consumers share one reader.
 */
public final class AvroReader {
    public static final int MAX_SCHEMAS = 1000;
    private static final byte MAGIC = 0;
    private static final int HEADER = 5;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(15);

    private final String url;
    private final HttpClient http;
    private final Map<Integer, Schema> schemas = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Schema> eldest) {
            return size() > MAX_SCHEMAS;
        }
    };

    public AvroReader(Sources.SchemaRegistry registry) {
        this.url = registry.url();
        // HTTP/1.1: the JDK's default asks a plain-http server to upgrade to HTTP/2 (h2c), which some registries
        // answer with headers HTTP/2 prohibits (Apicurio's: "Prohibited header name 'connection'")
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(CONNECT_TIMEOUT)
                .followRedirects(HttpClient.Redirect.NORMAL).build();
    }

    /** The registry's base URL. */
    public String url() {
        return url;
    }

    /** The key's or value's bytes read as Confluent Avro; null stays null (a tombstone, a record without a key). */
    public Object read(byte[] bytes) throws Formats.Unreadable, Formats.Unavailable {
        return read(bytes, false);
    }

    /**
     * As {@link #read}, and Debezium's semantic types (an Avro schema's {@code connect.name}, as Connect's Avro
     * converters write it) as {@link DebeziumTypes} maps them.
     */
    public Object readDebezium(byte[] bytes) throws Formats.Unreadable, Formats.Unavailable {
        return read(bytes, true);
    }

    private Object read(byte[] bytes, boolean debezium) throws Formats.Unreadable, Formats.Unavailable {
        if (bytes == null) {
            return null;
        }
        if (bytes.length < HEADER) {
            throw new Formats.Unreadable("not Confluent Avro: " + bytes.length + " bytes, fewer than the 5-byte"
                    + " header (a zero byte and the schema id)");
        }
        if (bytes[0] != MAGIC) {
            throw new Formats.Unreadable("not Confluent Avro: unknown magic byte " + (bytes[0] & 0xff)
                    + " (the wire format starts with 0)");
        }
        int id = ByteBuffer.wrap(bytes, 1, 4).getInt();
        Schema schema = schema(id);
        Object datum;
        try {
            BinaryDecoder in = DecoderFactory.get().binaryDecoder(bytes, HEADER, bytes.length - HEADER, null);
            datum = new GenericDatumReader<Object>(schema, schema, GenericData.get()).read(null, in);
        } catch (IOException | RuntimeException e) {
            throw new Formats.Unreadable("Avro datum does not read with schema id " + id + ": " + e);
        }
        return value(datum, schema, "", debezium);
    }

    /** The writer's schema by its id: kept, or fetched from the registry. */
    Schema schema(int id) throws Formats.Unreadable, Formats.Unavailable {
        synchronized (schemas) {
            Schema known = schemas.get(id);
            if (known != null) {
                return known;
            }
        }
        Schema s = fetch(id);
        synchronized (schemas) {
            schemas.put(id, s);
        }
        return s;
    }

    private Schema fetch(int id) throws Formats.Unreadable, Formats.Unavailable {
        URI uri = URI.create(url + "/schemas/ids/" + Integer.toUnsignedString(id));
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                .header("Accept", "application/vnd.schemaregistry.v1+json, application/json").GET().build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new Formats.Unavailable("schema registry " + url + " unreachable reading schema id " + id
                    + ": " + describe(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Formats.Unavailable("interrupted reading schema id " + id + " from " + url, e);
        }
        JsonNode body = parsed(response.body());
        int status = response.statusCode();
        if (status == 404 && body != null && body.path("error_code").asInt() == 40403) {
            throw new Formats.Unreadable("schema id " + id + " is not in the schema registry ("
                    + body.path("message").asText("40403") + ")");
        }
        if (status != 200 || body == null || !body.path("schema").isTextual()) {
            throw new Formats.Unavailable("schema registry " + url + " answered HTTP " + status
                    + " reading schema id " + id + ": " + excerpt(response.body()), null);
        }
        String type = body.path("schemaType").asText("AVRO");
        if (!type.equals("AVRO")) {
            throw new Formats.Unreadable("schema id " + id + " is a " + type + " schema, not Avro");
        }
        if (body.path("references").isArray() && !body.path("references").isEmpty()) {
            throw new Formats.Unreadable("schema id " + id + " has schema references, which sluice does not"
                    + " resolve");
        }
        try {
            return new Schema.Parser().parse(body.path("schema").textValue());
        } catch (RuntimeException e) { // SchemaParseException, and what a strange schema makes the parser throw
            throw new Formats.Unreadable("schema id " + id + " is not a valid Avro schema: " + e.getMessage());
        }
    }

    /** An I/O failure with the first message its causes give (the JDK's ConnectException has none of its own). */
    private static String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                return e.getClass().getSimpleName() + ": " + t.getMessage();
            }
        }
        return e instanceof ConnectException ? "cannot connect (ConnectException)" : e.toString();
    }

    private static JsonNode parsed(String body) {
        try {
            JsonNode n = JSON.readTree(body);
            return n != null && n.isObject() ? n : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static String excerpt(String body) {
        String s = body == null ? "" : body.strip().replaceAll("\\s+", " ");
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }

    /** An Avro datum as the strategies take it, by its schema; {@code at} names it in a failure. */
    static Object value(Object v, Schema s, String at) throws Formats.Unreadable {
        return value(v, s, at, false);
    }

    /** The same; with {@code debezium}, a Debezium semantic type (its {@code connect.name}) as Neo4j's. */
    static Object value(Object v, Schema s, String at, boolean debezium) throws Formats.Unreadable {
        Object base = base(v, s, at, debezium);
        if (debezium && base != null && s.getType() != Schema.Type.UNION) {
            String name = s.getProp("connect.name");
            if (DebeziumTypes.known(name)) {
                try {
                    return DebeziumTypes.convert(name, base, at);
                } catch (DebeziumTypes.Unconvertible e) {
                    throw new Formats.Unreadable(e.getMessage());
                }
            }
        }
        return base;
    }

    private static Object base(Object v, Schema s, String at, boolean debezium) throws Formats.Unreadable {
        if (v == null) {
            return null;
        }
        LogicalType logical = s.getLogicalType();
        try {
            return switch (s.getType()) {
                case NULL -> null;
                case BOOLEAN -> (Boolean) v;
                case INT -> {
                    int i = (Integer) v;
                    if (logical instanceof LogicalTypes.Date) {
                        yield LocalDate.ofEpochDay(i);
                    }
                    if (logical instanceof LogicalTypes.TimeMillis) {
                        yield LocalTime.ofNanoOfDay(i * 1_000_000L);
                    }
                    yield (long) i;
                }
                case LONG -> {
                    long l = (Long) v;
                    if (logical instanceof LogicalTypes.TimeMicros) {
                        yield LocalTime.ofNanoOfDay(l * 1_000L);
                    }
                    if (logical instanceof LogicalTypes.TimestampMillis
                            || logical instanceof LogicalTypes.LocalTimestampMillis) {
                        yield dateTime(Math.floorDiv(l, 1_000L), Math.floorMod(l, 1_000L) * 1_000_000L);
                    }
                    if (logical instanceof LogicalTypes.TimestampMicros
                            || logical instanceof LogicalTypes.LocalTimestampMicros) {
                        yield dateTime(Math.floorDiv(l, 1_000_000L), Math.floorMod(l, 1_000_000L) * 1_000L);
                    }
                    if (logical instanceof LogicalTypes.TimestampNanos
                            || logical instanceof LogicalTypes.LocalTimestampNanos) {
                        yield dateTime(Math.floorDiv(l, 1_000_000_000L), Math.floorMod(l, 1_000_000_000L));
                    }
                    yield l;
                }
                case FLOAT -> (double) (Float) v;
                case DOUBLE -> (Double) v;
                case STRING, ENUM -> v.toString();
                case BYTES -> {
                    ByteBuffer b = ((ByteBuffer) v).duplicate();
                    byte[] bytes = new byte[b.remaining()];
                    b.get(bytes);
                    yield logical instanceof LogicalTypes.Decimal d ? decimal(bytes, d) : bytes;
                }
                case FIXED -> {
                    byte[] bytes = ((GenericFixed) v).bytes().clone();
                    yield logical instanceof LogicalTypes.Decimal d ? decimal(bytes, d) : bytes;
                }
                case ARRAY -> {
                    Collection<?> c = (Collection<?>) v;
                    List<Object> l = new ArrayList<>(c.size());
                    int i = 0;
                    for (Object e : c) {
                        l.add(value(e, s.getElementType(), at + "[" + i++ + "]", debezium));
                    }
                    yield l;
                }
                case MAP -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                        String k = String.valueOf(e.getKey());
                        m.put(k, value(e.getValue(), s.getValueType(), at + "." + k, debezium));
                    }
                    yield m;
                }
                case RECORD -> {
                    IndexedRecord r = (IndexedRecord) v;
                    Map<String, Object> m = new LinkedHashMap<>();
                    for (Schema.Field f : s.getFields()) {
                        m.put(f.name(), value(r.get(f.pos()), f.schema(), at + "." + f.name(), debezium));
                    }
                    yield m;
                }
                case UNION -> {
                    int branch = GenericData.get().resolveUnion(s, v);
                    yield value(v, s.getTypes().get(branch), at, debezium);
                }
            };
        } catch (ClassCastException | AvroRuntimeException | DateTimeException e) {
            throw new Formats.Unreadable("Avro value " + (at.isEmpty() ? "" : "at " + at + " ") + "of type "
                    + s.getType().getName() + ": " + e.getMessage());
        }
    }

    private static LocalDateTime dateTime(long seconds, long nanos) {
        return LocalDateTime.ofEpochSecond(seconds, (int) nanos, ZoneOffset.UTC);
    }

    private static String decimal(byte[] unscaled, LogicalTypes.Decimal d) {
        return new BigDecimal(unscaled.length == 0 ? BigInteger.ZERO : new BigInteger(unscaled), d.getScale())
                .toPlainString();
    }
}
