package io.sluice.durable;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sluice.write.Statement;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
final class RecordCodec {
    private static final ObjectMapper JSON = JsonMapper.builder().enable(DeserializationFeature.USE_LONG_FOR_INTS).build();

    private RecordCodec() {}

    /** A payload that cannot become a request (unknown template, garbage): dead-lettered with this reason. */
    static final class Undecodable extends Exception {
        private static final long serialVersionUID = 1L;

        Undecodable(String message) {
            super(message);
        }
    }

    static byte[] encode(WriteRequest r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("v", 1);
        switch (r) {
            case WriteRequest.TemplateRequest t -> {
                m.put("t", t.template().name());
                m.put("r", t.rowList());
            }
            case WriteRequest.CypherRequest c -> {
                List<Map<String, Object>> ss = new ArrayList<>();
                for (Statement s : c.statements()) {
                    ss.add(Map.of("q", s.cypher(), "p", s.params()));
                }
                m.put("s", ss);
            }
        }
        try {
            return JSON.writeValueAsBytes(m);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot journal the request: " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    static WriteRequest decode(byte[] payload, Map<String, Template> templates) throws Undecodable {
        Map<String, Object> m;
        try {
            m = JSON.readValue(payload, Map.class);
        } catch (IOException e) {
            throw new Undecodable("journal record is not valid JSON: " + e.getMessage());
        }
        if (!Integer.valueOf(1).equals(((Number) m.getOrDefault("v", 0)).intValue())) {
            throw new Undecodable("unknown journal record version " + m.get("v"));
        }
        if (m.get("t") instanceof String name) {
            Template t = templates.get(name);
            if (t == null) {
                throw new Undecodable("template '" + name + "' is no longer configured");
            }
            return new WriteRequest.TemplateRequest(t, (List<Map<String, Object>>) m.get("r"), payload.length);
        }
        List<Statement> statements = new ArrayList<>();
        for (Map<String, Object> s : (List<Map<String, Object>>) m.get("s")) {
            statements.add(new Statement((String) s.get("q"), (Map<String, Object>) s.get("p")));
        }
        return new WriteRequest.CypherRequest(statements, payload.length);
    }

    static Map<String, Object> toMap(byte[] payload) {
        try {
            @SuppressWarnings("unchecked")
            Map<String, Object> m = JSON.readValue(payload, Map.class);
            return m;
        } catch (IOException e) {
            return Map.of("undecodable", new String(payload, java.nio.charset.StandardCharsets.UTF_8));
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
