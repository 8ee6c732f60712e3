package io.sluice.topic;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sluice.config.Format;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a record's key, value and headers as Kafka Connect's converters would give them to the connector, into the
 * values Neo4j takes as parameters.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li>{@link Format#JSON}: schemaless JSON (Connect's {@code JsonConverter}, {@code schemas.enable=false}).
 *       Integers are Longs, other numbers Doubles; an integer too large for a long, which Neo4j cannot store, is
 *       its decimal text.</li>
 *   <li>{@link Format#JSON_SCHEMA}: the {@code {"schema", "payload"}} envelope ({@code schemas.enable=true}). The
 *       payload is read by its schema: {@code bytes} from base64, maps written as {@code [key, value]} pairs, and
 *       Connect's logical types as the connector converts them: {@code Decimal} to its text, {@code Date} to a
 *       date, {@code Time} to a local time, {@code Timestamp} to a local date-time (UTC).</li>
 *   <li>{@link Format#STRING}: UTF-8 text. A key or value that is JSON (an object, an array, a number, a
 *       boolean, a quoted string, null) is read as that value, as the connector reads a string; other text is
 *       itself.</li>
 *   <li>{@link Format#BYTES}: the bytes.</li>
 *   <li>{@link Format#AVRO}: Confluent's wire format, the schema from the registry: {@link AvroReader}.</li>
 *   <li>Headers: Connect's {@code SimpleHeaderConverter}: a header that parses as a JSON number, boolean, object or
 *       array is that value; other UTF-8 text is a string; anything else its bytes. The last of a name wins.</li>
 * </ul>
 * A record that does not read is {@link Unreadable}: dead-lettered, never retried. Stateless and thread-safe.
 */
public final class Formats {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_LONG_FOR_INTS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** Connect's envelope as its converter writes it, the schema compiled once (the general path's shortcut). */
    private static final EnvelopeReader ENVELOPES = new EnvelopeReader(JSON, Formats::ofNull);

    private Formats() {}

    /** A key, value or header that its format cannot read. */
    public static final class Unreadable extends Exception {
        public Unreadable(String message) {
            super(message);
        }
    }

    /**
     * A key or value that cannot be read now for a reason outside it (the schema registry its format reads does
     * not answer): an outage, not bad data; the caller retries it later and never dead-letters it.
     */
    public static final class Unavailable extends Exception {
        public Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The key's or value's bytes read by {@code format}; null stays null (a tombstone, a record without a key). */
    public static Object read(byte[] bytes, Format format, boolean isValue) throws Unreadable {
        if (bytes == null) {
            return null;
        }
        return switch (format) {
            case BYTES -> bytes;
            case STRING -> parsedOr(utf8(bytes)); // as the connector reads a string: JSON when it is JSON
            case JSON -> bytes.length == 0 ? null : plain(tree(bytes));
            case JSON_SCHEMA -> bytes.length == 0 ? null : enveloped(bytes, false);
            case AVRO -> throw new IllegalArgumentException("avro is read with its schema registry (AvroReader)");
        };
    }

    /**
     * As {@link #read}, and Debezium's semantic types (named in a json-schema envelope's schemas) as
     * {@link DebeziumTypes} maps them; plain JSON carries no names, so its values stay as they are.
     */
    public static Object readDebezium(byte[] bytes, Format format, boolean isValue) throws Unreadable {
        if (format == Format.JSON_SCHEMA && bytes != null && bytes.length > 0) {
            return enveloped(bytes, true);
        }
        return read(bytes, format, isValue);
    }

    private static Object enveloped(byte[] bytes, boolean debezium) throws Unreadable {
        Object fast = ENVELOPES.read(bytes, debezium);
        return fast != EnvelopeReader.GIVE_UP ? fast : general(bytes, debezium);
    }

    /** The envelope read through its tree: the definition {@link EnvelopeReader} must agree with (its test's). */
    static Object general(byte[] bytes, boolean debezium) throws Unreadable {
        JsonNode n = tree(bytes);
        try {
            return enveloped(n, debezium);
        } catch (RuntimeException e) { // an empty decimal, a time out of range: bad data, not a stopped consumer
            throw new Unreadable("payload: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** What a null or missing value of {@code schema} reads as: null, or its default (Unreadable: required). */
    static Object ofNull(JsonNode schema, boolean debezium) throws Unreadable {
        return bySchema(schema, com.fasterxml.jackson.databind.node.NullNode.getInstance(), "default", debezium);
    }

    /** Whether {@code bytes} take the shortcut (for its test: a shortcut never taken would prove nothing). */
    static boolean shortcut(byte[] bytes, boolean debezium) {
        return ENVELOPES.read(bytes, debezium) != EnvelopeReader.GIVE_UP;
    }

    /** A header's value as Connect's simple header converter reads it (null stays null). */
    public static Object header(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        String s;
        try {
            s = utf8(bytes);
        } catch (Unreadable e) {
            return bytes;
        }
        String t = s.strip();
        if (t.isEmpty()) {
            return s;
        }
        char c = t.charAt(0);
        if (c == '{' || c == '[' || c == '-' || Character.isDigit(c) || t.equals("true") || t.equals("false")) {
            try {
                JsonNode n = JSON.readTree(t);
                if (n != null && !n.isTextual() && !n.isNull() && !n.isMissingNode()) {
                    return plain(n);
                }
            } catch (IOException | Unreadable notJson) {
                // text
            }
        }
        return s;
    }

    private static Object parsedOr(String s) {
        try {
            return plain(JSON.readTree(s));
        } catch (IOException | Unreadable e) {
            return s;
        }
    }

    private static String utf8(byte[] bytes) throws Unreadable {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new Unreadable("not UTF-8 text");
        }
    }

    private static JsonNode tree(byte[] bytes) throws Unreadable {
        try {
            JsonNode n = JSON.readTree(bytes);
            if (n == null || n.isMissingNode()) {
                throw new Unreadable("not JSON: empty");
            }
            return n;
        } catch (JsonProcessingException e) {
            throw new Unreadable("not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new Unreadable("not JSON: " + e.getMessage());
        }
    }

    /** Schemaless JSON as Java values. */
    static Object plain(JsonNode n) throws Unreadable {
        return switch (n.getNodeType()) {
            case NULL, MISSING -> null;
            case BOOLEAN -> n.booleanValue();
            case STRING -> n.textValue();
            case NUMBER -> number(n);
            case ARRAY -> {
                List<Object> l = new ArrayList<>(n.size());
                for (JsonNode e : n) {
                    l.add(plain(e));
                }
                yield l;
            }
            case OBJECT -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (Map.Entry<String, JsonNode> e : n.properties()) {
                    m.put(e.getKey(), plain(e.getValue()));
                }
                yield m;
            }
            case BINARY, POJO -> throw new Unreadable("unexpected JSON node " + n.getNodeType());
        };
    }

    private static Object number(JsonNode n) {
        if (n.isIntegralNumber()) {
            return n.canConvertToLong() ? (Object) n.longValue() : n.bigIntegerValue().toString();
        }
        if (n.isBigDecimal()) {
            return n.decimalValue().toPlainString();
        }
        return n.doubleValue();
    }

    /** Connect's JSON envelope: the payload read by its schema. */
    private static Object enveloped(JsonNode n, boolean debezium) throws Unreadable {
        if (!n.isObject() || n.size() != 2 || !n.has("schema") || !n.has("payload")) {
            throw new Unreadable("JsonConverter with schemas.enable requires \"schema\" and \"payload\" fields and"
                    + " may not contain additional fields (set the format to json for plain JSON)");
        }
        JsonNode schema = n.get("schema");
        JsonNode payload = n.get("payload");
        return schema.isNull() ? plain(payload) : bySchema(schema, payload, "payload", debezium);
    }

    private static Object bySchema(JsonNode schema, JsonNode v, String at, boolean debezium) throws Unreadable {
        Object base = base(schema, v, at, debezium);
        if (debezium && base != null) {
            String name = schema.path("name").asText("");
            if (DebeziumTypes.known(name)) {
                try {
                    return DebeziumTypes.convert(name, base, at);
                } catch (DebeziumTypes.Unconvertible e) {
                    throw new Unreadable(e.getMessage());
                }
            }
        }
        return base;
    }

    private static Object base(JsonNode schema, JsonNode v, String at, boolean debezium) throws Unreadable {
        if (v == null || v.isNull()) {
            if (schema.path("optional").asBoolean(false) || schema.has("default")) {
                return schema.has("default") && !schema.get("default").isNull()
                        ? base(schema, schema.get("default"), at, debezium) : null;
            }
            throw new Unreadable(at + ": null for a required field");
        }
        String name = schema.path("name").asText("");
        String type = schema.path("type").asText("");
        switch (name) {
            case "org.apache.kafka.connect.data.Decimal" -> {
                int scale = schema.path("parameters").path("scale").asInt(0);
                if (v.isNumber()) {
                    return v.decimalValue().toPlainString();
                }
                return new BigDecimal(new BigInteger(base64(v, at)), scale).toPlainString();
            }
            case "org.apache.kafka.connect.data.Date" -> {
                return LocalDate.ofEpochDay(integral(v, at));
            }
            case "org.apache.kafka.connect.data.Time" -> {
                return LocalTime.ofNanoOfDay(integral(v, at) * 1_000_000L);
            }
            case "org.apache.kafka.connect.data.Timestamp" -> {
                return LocalDateTime.ofInstant(Instant.ofEpochMilli(integral(v, at)), ZoneOffset.UTC);
            }
            default -> { }
        }
        return switch (type) {
            case "int8", "int16", "int32", "int64" -> integral(v, at);
            case "float", "float32", "float64", "double" -> {
                if (!v.isNumber()) {
                    throw new Unreadable(at + ": " + type + " expected, got " + v.getNodeType());
                }
                yield v.doubleValue();
            }
            case "boolean" -> {
                if (!v.isBoolean()) {
                    throw new Unreadable(at + ": boolean expected, got " + v.getNodeType());
                }
                yield v.booleanValue();
            }
            case "string" -> {
                if (!v.isTextual()) {
                    throw new Unreadable(at + ": string expected, got " + v.getNodeType());
                }
                yield v.textValue();
            }
            case "bytes" -> base64(v, at);
            case "array" -> {
                if (!v.isArray()) {
                    throw new Unreadable(at + ": array expected, got " + v.getNodeType());
                }
                List<Object> l = new ArrayList<>(v.size());
                int i = 0;
                for (JsonNode e : v) {
                    l.add(bySchema(schema.path("items"), e, at + "[" + i++ + "]", debezium));
                }
                yield l;
            }
            case "map" -> map(schema, v, at, debezium);
            case "struct" -> {
                if (!v.isObject()) {
                    throw new Unreadable(at + ": struct expected, got " + v.getNodeType());
                }
                Map<String, Object> m = new LinkedHashMap<>();
                for (JsonNode f : schema.path("fields")) {
                    String field = f.path("field").asText();
                    m.put(field, bySchema(f, v.get(field), at + "." + field, debezium));
                }
                yield m;
            }
            default -> throw new Unreadable(at + ": unknown schema type '" + type + "'");
        };
    }

    private static Map<String, Object> map(JsonNode schema, JsonNode v, String at, boolean debezium)
            throws Unreadable {
        Map<String, Object> m = new LinkedHashMap<>();
        JsonNode values = schema.path("values");
        if (v.isObject()) { // string keys
            for (Map.Entry<String, JsonNode> e : v.properties()) {
                m.put(e.getKey(), bySchema(values, e.getValue(), at + "." + e.getKey(), debezium));
            }
            return m;
        }
        if (!v.isArray()) {
            throw new Unreadable(at + ": map expected, got " + v.getNodeType());
        }
        for (JsonNode pair : v) { // other keys: [key, value] pairs; Neo4j's map keys are strings
            if (!pair.isArray() || pair.size() != 2) {
                throw new Unreadable(at + ": a map entry must be [key, value]");
            }
            Object k = bySchema(schema.path("keys"), pair.get(0), at + ".key", debezium);
            m.put(String.valueOf(k), bySchema(values, pair.get(1), at + "." + k, debezium));
        }
        return m;
    }

    private static long integral(JsonNode v, String at) throws Unreadable {
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new Unreadable(at + ": integer expected, got " + v);
        }
        return v.longValue();
    }

    private static byte[] base64(JsonNode v, String at) throws Unreadable {
        if (!v.isTextual()) {
            throw new Unreadable(at + ": base64 bytes expected, got " + v.getNodeType());
        }
        try {
            return Base64.getDecoder().decode(v.textValue());
        } catch (IllegalArgumentException e) {
            throw new Unreadable(at + ": not base64");
        }
    }
}
