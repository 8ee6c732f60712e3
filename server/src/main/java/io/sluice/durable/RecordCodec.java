package io.sluice.durable;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sluice.write.Statement;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A write request as a journal payload: compact JSON, version 1.
 * <pre>
 * template rows:  {"v":1,"t":"visited","r":[{...row...}, ...]}
 * raw Cypher:     {"v":1,"s":[{"q":"CREATE ...","p":{...params...}}, ...]}
 * </pre>
 * Parameters round-trip as JSON values (integers as longs). A template is stored by name; if the config no
 * longer has it when the record is applied, the record is dead-lettered.
 */
public final class RecordCodec {
    private static final ObjectMapper JSON = JsonMapper.builder().enable(DeserializationFeature.USE_LONG_FOR_INTS).build();

    private RecordCodec() {}

    /** A payload that cannot become a request (unknown template, garbage): dead-lettered with this reason. */
    public static final class Undecodable extends Exception {
        private static final long serialVersionUID = 1L;

        public Undecodable(String message) {
            super(message);
        }
    }

    /**
     * The request as a version-1 record. Written with a streaming generator, values by their type (Jackson's
     * serializer lookup per map value was ~9% of an HTTP I/O thread's time in async mode); anything else a
     * parameter may hold (temporal values, say) goes through the mapper as before, so the bytes are the same.
     */
    public static byte[] encode(WriteRequest r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + (int) Math.min(r.bytes(), 1 << 16));
        try (JsonGenerator g = JSON.getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeNumberField("v", 1);
            switch (r) {
                case WriteRequest.TemplateRequest t -> {
                    g.writeStringField("t", t.template().name());
                    g.writeFieldName("r");
                    g.writeStartArray();
                    for (Map<String, Object> row : t.rowList()) {
                        writeValue(g, row);
                    }
                    g.writeEndArray();
                }
                case WriteRequest.Sequence s -> throw new IllegalArgumentException("a source's sequence is never"
                        + " journaled");
                case WriteRequest.CypherRequest c -> {
                    g.writeFieldName("s");
                    g.writeStartArray();
                    for (Statement s : c.statements()) {
                        g.writeStartObject();
                        g.writeStringField("q", s.cypher());
                        g.writeFieldName("p");
                        writeValue(g, s.params());
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                }
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot journal the request: " + e.getMessage(), e);
        }
        return out.toByteArray();
    }

    private static void writeValue(JsonGenerator g, Object value) throws IOException {
        switch (value) {
            case null -> g.writeNull();
            case String s -> g.writeString(s);
            case Long l -> g.writeNumber(l);
            case Integer i -> g.writeNumber(i);
            case Double d -> g.writeNumber(d);
            case Boolean b -> g.writeBoolean(b);
            case Map<?, ?> m -> {
                g.writeStartObject();
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    g.writeFieldName(String.valueOf(e.getKey()));
                    writeValue(g, e.getValue());
                }
                g.writeEndObject();
            }
            case List<?> list -> {
                g.writeStartArray();
                for (Object o : list) {
                    writeValue(g, o);
                }
                g.writeEndArray();
            }
            default -> g.writeObject(value); // the mapper's serializers, as before
        }
    }

    /**
     * The request a payload holds. Anything else, whatever its shape (not JSON, not an object, a version this
     * code does not know, a field of the wrong type, an empty request, a template no longer configured), is
     * {@link Undecodable} with a message that says what: a record must never stop the journal applier.
     */
    public static WriteRequest decode(byte[] payload, Map<String, Template> templates) throws Undecodable {
        Object parsed;
        try {
            parsed = JSON.readValue(payload, Object.class);
        } catch (IOException e) {
            throw new Undecodable("journal record is not valid JSON: " + e.getMessage());
        }
        if (!(parsed instanceof Map<?, ?> m)) {
            throw new Undecodable("journal record is not a JSON object");
        }
        if (!(m.get("v") instanceof Number v) || v.longValue() != 1 || !(v instanceof Long || v instanceof Integer)) {
            throw new Undecodable("unknown journal record version " + m.get("v"));
        }
        if (m.containsKey("t")) {
            if (!(m.get("t") instanceof String name)) {
                throw new Undecodable("journal record's template name \"t\" is not a string");
            }
            Template t = templates.get(name);
            if (t == null) {
                throw new Undecodable("template '" + name + "' is no longer configured");
            }
            List<Map<String, Object>> rows = listOfMaps(m.get("r"), "rows \"r\"");
            return new WriteRequest.TemplateRequest(t, rows, payload.length);
        }
        List<Statement> statements = new ArrayList<>();
        for (Map<String, Object> s : listOfMaps(m.get("s"), "statements \"s\"")) {
            if (!(s.get("q") instanceof String cypher)) {
                throw new Undecodable("a statement of the journal record has no Cypher text \"q\"");
            }
            Object params = s.get("p");
            if (params != null && !(params instanceof Map)) {
                throw new Undecodable("a statement's parameters \"p\" are not a JSON object");
            }
            statements.add(new Statement(cypher, params == null ? Map.of() : stringKeyed((Map<?, ?>) params)));
        }
        return new WriteRequest.CypherRequest(statements, payload.length);
    }

    /** A non-empty JSON array of objects, or Undecodable naming {@code what}. */
    private static List<Map<String, Object>> listOfMaps(Object value, String what) throws Undecodable {
        if (!(value instanceof List<?> list) || list.isEmpty()) {
            throw new Undecodable("journal record's " + what + " is missing, empty or not an array");
        }
        List<Map<String, Object>> out = new ArrayList<>(list.size());
        for (Object o : list) {
            if (!(o instanceof Map<?, ?> map)) {
                throw new Undecodable("journal record's " + what + " holds something other than JSON objects");
            }
            out.add(stringKeyed(map));
        }
        return out;
    }

    /** Jackson's maps from JSON objects always have string keys; this only says so to the compiler. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> stringKeyed(Map<?, ?> map) {
        return (Map<String, Object>) map;
    }

    public static Map<String, Object> toMap(byte[] payload) {
        try {
            @SuppressWarnings("unchecked")
            Map<String, Object> m = JSON.readValue(payload, Map.class);
            return m;
        } catch (IOException e) {
            return Map.of("undecodable", new String(payload, StandardCharsets.UTF_8));
        }
    }

    static byte[] json(Object value) {
        try {
            return JSON.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static Map<String, Object> parseMap(byte[] payload) throws IOException {
        @SuppressWarnings("unchecked")
        Map<String, Object> m = JSON.readValue(payload, Map.class);
        return m;
    }
}
