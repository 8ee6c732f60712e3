package io.sluice.topic;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fast way through Connect's JSON envelope ({@code {"schema":...,"payload":...}}, as {@code JsonConverter}
 * writes it): the schema, which a connector repeats in every record (two thirds of a Debezium event's 3 KB), is
 * recognised by its bytes and compiled once; the payload is read from Jackson's token stream straight into the
 * values, without a tree.
 *
 * <h2>Design</h2>
 * The record must begin {@code {"schema":}, the schema's object must end just before {@code ,"payload":}, and the
 * payload must be all that follows but the closing brace: the converter's compact output. The record's bytes after {@code {"schema":} are compared with each schema seen
 * before (a vectorised compare that stops at the first differing byte; the payload's field must follow); a schema not
 * seen before is found by a scan of its braces, parsed and compiled into a {@link Shape} (at most {@link #CACHED}
 * kept; past that the cache starts over). Anything else, and anything unusual inside the payload (a null or missing field with a
 * default, a decimal written as a number, a map of non-string keys, a value not of its schema's type, a Debezium
 * value that does not convert), gives up ({@link #read} returns {@link #GIVE_UP}) and the caller reads the record
 * the general way, which gives the same values or the error message it always gave. So this class only has to be
 * right for what it accepts: the general reader ({@code Formats.enveloped}) stays the definition, and a test
 * compares the two on every recorded and generated envelope.
 *
 * <p>Thread-safe: the cache is copied on write, a shape immutable once published.
 */
final class EnvelopeReader {
    /** What {@link #read} returns when the record is not the converter's usual form: read it the general way. */
    static final Object GIVE_UP = new Object();
    static final int CACHED = 256;
    /** Nesting past this is left to the general reader (Jackson's bound is 1,000, counted over the whole record). */
    private static final int DEEP = 900;
    /** A record longer than Jackson's longest string: a value skipped here unread could be one the tree refuses. */
    private static final int MAX_STRING = com.fasterxml.jackson.core.StreamReadConstraints.DEFAULT_MAX_STRING_LEN;

    private static final byte[] HEAD = "{\"schema\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MIDDLE = ",\"payload\":".getBytes(StandardCharsets.US_ASCII);
    private static final JsonFactory FACTORY = new JsonFactory();

    private final ObjectMapper json;
    private final Defaults defaults;
    /** The schemas seen, compiled (copied on write: read by every thread without a lock). */
    private volatile Cached[] cache = new Cached[0];

    /** What the general reader makes of a null or missing value of a schema: null, its default, or a failure. */
    interface Defaults {
        Object ofNull(JsonNode schema, boolean debezium) throws Exception;
    }

    EnvelopeReader(ObjectMapper json, Defaults defaults) {
        this.json = json;
        this.defaults = defaults;
    }

    private record Cached(byte[] bytes, Shape shape) {}

    /** Thrown inside a read to give up on the fast path; never escapes this class. */
    private static final class GiveUp extends Exception {
        private static final long serialVersionUID = 1L;
        static final GiveUp INSTANCE = new GiveUp();

        private GiveUp() {
            super(null, null, false, false);
        }
    }

    /** One schema compiled: what {@code Formats.base} reads of it, once. */
    private static final class Shape {
        enum Kind { INT, FLOAT, BOOLEAN, STRING, BYTES, ARRAY, MAP, STRUCT, DECIMAL, DATE, TIME, TIMESTAMP, OTHER }

        Kind kind;
        /** Its Debezium semantic type's name, when it has one ({@link DebeziumTypes#known}); else null. */
        String debezium;
        boolean optional;
        boolean hasDefault;
        /** Whether a null or missing value is answered here: optional, or a default of a simple type computed. */
        boolean nullable;
        /** The value for null or missing, read as the general reader reads it (plain, and with Debezium's types). */
        Object nullPlain;
        Object nullDebezium;
        int scale;
        Shape items;
        Shape values;
        String[] names;
        Shape[] fields;
        Map<String, Integer> index;
    }

    /** The envelope's value, {@link #GIVE_UP} when the general reader must read it. */
    Object read(byte[] bytes, boolean debezium) {
        int end = bytes.length;
        while (end > 0 && isSpace(bytes[end - 1])) {
            end--;
        }
        if (bytes.length > MAX_STRING || end < HEAD.length + MIDDLE.length + 3 || bytes[end - 1] != '}'
                || !Arrays.equals(bytes, 0, HEAD.length, HEAD, 0, HEAD.length)) {
            return GIVE_UP;
        }
        Cached known = known(bytes, end);
        int schemaEnd;
        Shape shape;
        if (known != null) {
            schemaEnd = HEAD.length + known.bytes.length;
            shape = known.shape;
        } else {
            schemaEnd = objectEnd(bytes, HEAD.length, end);
            if (schemaEnd < 0 || !middleAt(bytes, schemaEnd, end)) {
                return GIVE_UP;
            }
            shape = learn(bytes, HEAD.length, schemaEnd);
            if (shape == null) {
                return GIVE_UP;
            }
        }
        int from = schemaEnd + MIDDLE.length;
        if (from >= end - 1 || !valueStart(bytes[from]) || nulNear(bytes, from, end)) {
            return GIVE_UP; // whitespace, or what the parser's encoding detection would skip (a byte-order mark)
        }
        try (JsonParser p = FACTORY.createParser(bytes, from, end - 1 - from)) {
            if (p.nextToken() == null) {
                return GIVE_UP;
            }
            Object v = value(p, shape, debezium);
            return p.nextToken() == null ? v : GIVE_UP;
        } catch (IOException | GiveUp | RuntimeException e) {
            return GIVE_UP; // the general reader says what is wrong
        }
    }

    /** A NUL in the first bytes of a slice: Jackson would read the slice as UTF-16 or 32, the general reader not. */
    private static boolean nulNear(byte[] b, int from, int end) {
        for (int i = from; i < Math.min(end, from + 4); i++) {
            if (b[i] == 0) {
                return true;
            }
        }
        return false;
    }

    private static boolean valueStart(byte b) {
        return b == '{' || b == '[' || b == '"' || b == '-' || b >= '0' && b <= '9' || b == 't' || b == 'f'
                || b == 'n';
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\n' || b == '\r' || b == '\t';
    }

    /** The index after the JSON object starting at {@code from}, or -1. */
    static int objectEnd(byte[] b, int from, int end) {
        if (from >= end || b[from] != '{') {
            return -1;
        }
        int depth = 0;
        if (nulNear(b, from, end)) {
            return -1;
        }
        for (int i = from; i < end; i++) {
            byte c = b[i];
            if (c == '"') {
                for (i++; i < end && b[i] != '"'; i++) {
                    if (b[i] == '\\') {
                        i++;
                    }
                }
            } else if (c == '{' || c == '[') {
                if (++depth >= DEEP) {
                    return -1; // parsed alone, one level shallower than in the record: the general reader's
                }
            } else if ((c == '}' || c == ']') && --depth == 0) {
                return i + 1;
            }
        }
        return -1;
    }

    private static boolean middleAt(byte[] bytes, int at, int end) {
        return Arrays.equals(bytes, at, Math.min(end, at + MIDDLE.length), MIDDLE, 0, MIDDLE.length);
    }

    /**
     * The schema seen before that this record's begins with, followed by the payload's field: compared whole
     * (a vectorised compare, which stops at the first byte that differs), cheaper than finding where it ends.
     */
    private Cached known(byte[] bytes, int end) {
        for (Cached c : cache) {
            int to = HEAD.length + c.bytes.length;
            if (to < end && Arrays.equals(bytes, HEAD.length, to, c.bytes, 0, c.bytes.length)
                    && middleAt(bytes, to, end)) {
                return c;
            }
        }
        return null;
    }

    /** A schema not seen before, compiled and kept; null when it does not compile (the general reader reads it). */
    private Shape learn(byte[] bytes, int from, int to) {
        Shape shape;
        try {
            shape = compile(json.readTree(bytes, from, to - from));
        } catch (IOException | GiveUp | RuntimeException e) {
            return null; // not a schema this class understands: the general reader reads (or refuses) the record
        }
        synchronized (this) {
            Cached[] now = cache.length >= CACHED ? new Cached[0] : cache; // ever new schemas: start over
            Cached[] more = Arrays.copyOf(now, now.length + 1);
            more[now.length] = new Cached(Arrays.copyOfRange(bytes, from, to), shape);
            cache = more;
        }
        return shape;
    }

    private Shape compile(JsonNode schema) throws GiveUp {
        if (schema == null || !schema.isObject()) {
            throw GiveUp.INSTANCE; // a null schema: the payload is plain JSON
        }
        Shape s = new Shape();
        String name = schema.path("name").asText("");
        s.debezium = DebeziumTypes.known(name) ? name : null;
        s.optional = schema.path("optional").asBoolean(false);
        s.hasDefault = schema.has("default");
        s.scale = schema.path("parameters").path("scale").asInt(0);
        String type = schema.path("type").asText("");
        s.kind = switch (name) {
            case "org.apache.kafka.connect.data.Decimal" -> Shape.Kind.DECIMAL;
            case "org.apache.kafka.connect.data.Date" -> Shape.Kind.DATE;
            case "org.apache.kafka.connect.data.Time" -> Shape.Kind.TIME;
            case "org.apache.kafka.connect.data.Timestamp" -> Shape.Kind.TIMESTAMP;
            default -> switch (type) {
                case "int8", "int16", "int32", "int64" -> Shape.Kind.INT;
                case "float", "float32", "float64", "double" -> Shape.Kind.FLOAT;
                case "boolean" -> Shape.Kind.BOOLEAN;
                case "string" -> Shape.Kind.STRING;
                case "bytes" -> Shape.Kind.BYTES;
                case "array" -> Shape.Kind.ARRAY;
                case "map" -> Shape.Kind.MAP;
                case "struct" -> Shape.Kind.STRUCT;
                default -> Shape.Kind.OTHER;
            };
        };
        s.nullable = s.optional && !s.hasDefault;
        if (s.hasDefault && s.kind != Shape.Kind.ARRAY && s.kind != Shape.Kind.MAP && s.kind != Shape.Kind.STRUCT
                && s.kind != Shape.Kind.OTHER) {
            try { // immutable values (text, numbers, times): shared by every record that leaves it out
                s.nullPlain = defaults.ofNull(schema, false);
                s.nullDebezium = defaults.ofNull(schema, true);
                s.nullable = true;
            } catch (Exception e) {
                s.nullable = false; // the general reader says why
            }
        }
        switch (s.kind) {
            case ARRAY -> s.items = compile(schema.path("items"));
            case MAP -> s.values = compile(schema.path("values"));
            case STRUCT -> {
                JsonNode fields = schema.path("fields");
                if (!fields.isArray()) {
                    throw GiveUp.INSTANCE;
                }
                s.names = new String[fields.size()];
                s.fields = new Shape[fields.size()];
                s.index = new HashMap<>();
                for (int i = 0; i < fields.size(); i++) {
                    JsonNode f = fields.get(i);
                    s.names[i] = f.path("field").asText();
                    s.fields[i] = compile(f);
                    if (s.index.put(s.names[i], i) != null) {
                        throw GiveUp.INSTANCE; // a field twice: the general reader decides
                    }
                }
            }
            case OTHER -> throw GiveUp.INSTANCE;
            default -> { }
        }
        return s;
    }

    /** The value at the parser's current token, read by {@code s}. */
    private static Object value(JsonParser p, Shape s, boolean debezium) throws IOException, GiveUp {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NULL) {
            return ofNull(s, debezium);
        }
        if (p.getParsingContext().getNestingDepth() >= DEEP) {
            throw GiveUp.INSTANCE; // one level shallower than in the whole record: near Jackson's bound, the general
        }
        Object base = switch (s.kind) {
            case INT -> integral(p, t);
            case FLOAT -> {
                if (t != JsonToken.VALUE_NUMBER_FLOAT && (t != JsonToken.VALUE_NUMBER_INT || tooLong(p))) {
                    throw GiveUp.INSTANCE; // an integer past a long: the general reader's tree refuses it
                }
                yield p.getDoubleValue();
            }
            case BOOLEAN -> {
                if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
                    throw GiveUp.INSTANCE;
                }
                yield t == JsonToken.VALUE_TRUE;
            }
            case STRING -> text(p, t);
            case BYTES -> base64(p, t);
            case DECIMAL -> new BigDecimal(new BigInteger(base64(p, t)), s.scale).toPlainString();
            case DATE -> LocalDate.ofEpochDay(integral(p, t));
            case TIME -> LocalTime.ofNanoOfDay(integral(p, t) * 1_000_000L);
            case TIMESTAMP -> LocalDateTime.ofInstant(Instant.ofEpochMilli(integral(p, t)), ZoneOffset.UTC);
            case ARRAY -> {
                if (t != JsonToken.START_ARRAY) {
                    throw GiveUp.INSTANCE;
                }
                List<Object> l = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    l.add(value(p, s.items, debezium));
                }
                yield l;
            }
            case MAP -> {
                if (t != JsonToken.START_OBJECT) {
                    throw GiveUp.INSTANCE; // [key, value] pairs: the general reader
                }
                Map<String, Object> m = new LinkedHashMap<>();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String k = p.currentName();
                    p.nextToken();
                    m.put(k, value(p, s.values, debezium));
                }
                yield m;
            }
            case STRUCT -> struct(p, t, s, debezium);
            case OTHER -> throw GiveUp.INSTANCE;
        };
        if (debezium && s.debezium != null) {
            try {
                return DebeziumTypes.convert(s.debezium, base, "");
            } catch (DebeziumTypes.Unconvertible | RuntimeException e) {
                throw GiveUp.INSTANCE; // the general reader words it
            }
        }
        return base;
    }

    private static Map<String, Object> struct(JsonParser p, JsonToken t, Shape s, boolean debezium)
            throws IOException, GiveUp {
        if (t != JsonToken.START_OBJECT) {
            throw GiveUp.INSTANCE;
        }
        Object[] slots = new Object[s.names.length];
        boolean[] seen = new boolean[s.names.length];
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            Integer i = s.index.get(p.currentName());
            p.nextToken();
            if (i == null) {
                skip(p); // not in the schema: the general reader ignores it too, once its tree is built
                continue;
            }
            slots[i] = value(p, s.fields[i], debezium);
            seen[i] = true;
        }
        Map<String, Object> m = new LinkedHashMap<>(s.names.length * 4 / 3 + 1);
        for (int i = 0; i < slots.length; i++) {
            m.put(s.names[i], seen[i] ? slots[i] : ofNull(s.fields[i], debezium));
        }
        return m;
    }

    /** A null or missing value of {@code s}: null, or its default; a required one's error is the general reader's. */
    private static Object ofNull(Shape s, boolean debezium) throws GiveUp {
        if (!s.nullable) {
            throw GiveUp.INSTANCE;
        }
        return debezium ? s.nullDebezium : s.nullPlain;
    }

    /** Passes over a value outside the schema, as the general reader's tree would take it (no integer past a long). */
    private static void skip(JsonParser p) throws IOException, GiveUp {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT && tooLong(p)) {
            throw GiveUp.INSTANCE;
        }
        if (t != JsonToken.START_OBJECT && t != JsonToken.START_ARRAY) {
            return;
        }
        int depth = 1;
        while (depth > 0) {
            t = p.nextToken();
            if (t == null) {
                throw GiveUp.INSTANCE;
            }
            if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
                depth++;
                if (p.getParsingContext().getNestingDepth() >= DEEP) {
                    throw GiveUp.INSTANCE;
                }
            } else if (t == JsonToken.END_OBJECT || t == JsonToken.END_ARRAY) {
                depth--;
            } else if (t == JsonToken.VALUE_NUMBER_INT && tooLong(p)) {
                throw GiveUp.INSTANCE;
            }
        }
    }

    private static boolean tooLong(JsonParser p) throws IOException {
        return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER;
    }

    private static long integral(JsonParser p, JsonToken t) throws IOException, GiveUp {
        if (t != JsonToken.VALUE_NUMBER_INT || tooLong(p)) {
            throw GiveUp.INSTANCE;
        }
        return p.getLongValue();
    }

    private static String text(JsonParser p, JsonToken t) throws IOException, GiveUp {
        if (t != JsonToken.VALUE_STRING) {
            throw GiveUp.INSTANCE;
        }
        return p.getText();
    }

    private static byte[] base64(JsonParser p, JsonToken t) throws IOException, GiveUp {
        try {
            return Base64.getDecoder().decode(text(p, t));
        } catch (IllegalArgumentException e) {
            throw GiveUp.INSTANCE;
        }
    }
}
