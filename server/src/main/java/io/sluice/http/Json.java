package io.sluice.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sluice.vocab.Counter;
import io.sluice.vocab.GraphValues.GraphDuration;
import io.sluice.vocab.GraphValues.GraphNode;
import io.sluice.vocab.GraphValues.GraphPath;
import io.sluice.vocab.GraphValues.GraphPoint;
import io.sluice.vocab.GraphValues.GraphRelationship;
import io.sluice.write.Statement;
import java.io.IOException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** JSON decoding of request bodies and the value encodings of Neo4j's two HTTP formats. */
final class Json {
    static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_LONG_FOR_INTS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    static {
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(200).build());
    }

    private Json() {}

    /** Thrown for a body that is not the JSON we expect; its message is for the client. */
    static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }
    }

    static Object parse(byte[] body) throws BadRequest {
        if (body.length == 0) {
            throw new BadRequest("the request body is empty; expected JSON");
        }
        try {
            return MAPPER.readValue(body, Object.class);
        } catch (IOException e) {
            throw new BadRequest("the request body is not valid JSON: " + firstLine(e.getMessage()));
        }
    }

    static byte[] write(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode response", e);
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object v, String what) throws BadRequest {
        if (v instanceof Map<?, ?> m) {
            return (Map<String, Object>) m;
        }
        throw new BadRequest(what + " must be a JSON object, got " + kind(v));
    }

    static String kind(Object v) {
        return switch (v) {
            case null -> "null";
            case Map<?, ?> m -> "an object";
            case List<?> l -> "an array";
            case String s -> "a string";
            case Number n -> "a number";
            case Boolean b -> "a boolean";
            default -> v.getClass().getSimpleName();
        };
    }

    // ---- the Query API's plain JSON (query/v2): Neo4j's texts, integers bare, NaN/Infinity strings ----

    static Object queryValue(Object v) {
        return switch (v) {
            case GraphNode n -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("elementId", n.elementId());
                m.put("labels", n.labels());
                m.put("properties", mapValues(n.properties(), Json::queryValue));
                yield m;
            }
            case GraphRelationship r -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("elementId", r.elementId());
                m.put("startNodeElementId", r.startNodeElementId());
                m.put("endNodeElementId", r.endNodeElementId());
                m.put("type", r.type());
                m.put("properties", mapValues(r.properties(), Json::queryValue));
                yield m;
            }
            case GraphPath p -> {
                List<Object> out = new ArrayList<>();
                for (int i = 0; i < p.nodes().size(); i++) {
                    out.add(queryValue(p.nodes().get(i)));
                    if (i < p.relationships().size()) {
                        out.add(queryValue(p.relationships().get(i)));
                    }
                }
                yield out;
            }
            case GraphPoint p -> wkt(p);
            case GraphDuration d -> d.toString();
            // a ZonedDateTime loses its zone id here, as in Neo4j's plain JSON (typed JSON keeps it)
            case ZonedDateTime z -> DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(z);
            case TemporalAccessor t -> temporal(t);
            case List<?> l -> l.stream().map(Json::queryValue).toList();
            case Map<?, ?> m -> mapValues(m, Json::queryValue);
            case null, default -> v;
        };
    }

    static Map<String, Object> mapValues(Map<?, ?> in, Function<Object, Object> f) {
        Map<String, Object> out = new LinkedHashMap<>();
        in.forEach((k, val) -> out.put(String.valueOf(k), f.apply(val)));
        return out;
    }

    /** The counters under the Query API's names, in Neo4j's order (absent ones left out). */
    static Map<String, Object> camelCounters(Map<String, Object> counters) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Counter c : Counter.values()) {
            if (counters.containsKey(c.key())) {
                out.put(c.queryApiKey(), counters.get(c.key()));
            }
        }
        return out;
    }

    /** A statement read from a request's JSON object: its text under {@code field}, its parameters. */
    static Statement statement(Map<String, Object> s, String field, String where) throws BadRequest {
        Object text = s.get(field);
        if (!(text instanceof String cypher) || cypher.isBlank()) {
            throw new BadRequest(where + " must have \"" + field + "\": a non-empty string, got " + kind(text));
        }
        Object params = s.get("parameters");
        if (params != null && !(params instanceof Map<?, ?>)) {
            throw new BadRequest(where + ": \"parameters\" must be an object, got " + kind(params));
        }
        return new Statement(cypher, params == null ? Map.of() : object(params, "parameters"));
    }

    /** Text of a temporal value as Neo4j's typed JSON writes it (seconds always, the shortest fraction). */
    static String temporal(Object t) {
        return switch (t) {
            case LocalDate d -> DateTimeFormatter.ISO_LOCAL_DATE.format(d);
            case OffsetTime x -> DateTimeFormatter.ISO_OFFSET_TIME.format(x);
            case LocalTime x -> DateTimeFormatter.ISO_LOCAL_TIME.format(x);
            case OffsetDateTime x -> DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(x);
            case ZonedDateTime x -> x.getZone() instanceof ZoneOffset
                    ? DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(x) : DateTimeFormatter.ISO_ZONED_DATE_TIME.format(x);
            case LocalDateTime x -> DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(x);
            default -> throw new IllegalArgumentException("not a Cypher temporal: " + t.getClass().getName());
        };
    }

    /** A point as Neo4j writes it in both JSON formats: {@code SRID=7203;POINT (1.5 2.0)}, 3D {@code POINT Z}. */
    static String wkt(GraphPoint p) {
        List<Double> c = p.coordinates();
        StringBuilder b = new StringBuilder("SRID=").append(p.srid()).append(c.size() == 3 ? ";POINT Z (" : ";POINT (");
        for (int i = 0; i < c.size(); i++) {
            b.append(i == 0 ? "" : " ").append(c.get(i));
        }
        return b.append(')').toString();
    }

}
