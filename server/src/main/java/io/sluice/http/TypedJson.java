package io.sluice.http;

import io.sluice.vocab.GraphValues.GraphDuration;
import io.sluice.vocab.GraphValues.GraphNode;
import io.sluice.vocab.GraphValues.GraphPath;
import io.sluice.vocab.GraphValues.GraphPoint;
import io.sluice.vocab.GraphValues.GraphRelationship;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Neo4j's typed JSON for the Query API ({@code application/vnd.neo4j.query}): every value an object
 * {@code {"$type": T, "_value": V}}, V a string except for Boolean, Null, List, Map, Node, Relationship and Path.
 * {@link #encode} writes a detached result value, {@link #decodeParameters} reads a request's parameters into the
 * values both sinks accept. The texts (Integer as a string, Float by {@code Double.toString}, temporals by the
 * ISO formatters, points as WKT) follow what a real Neo4j 2026.08 server answered, not its documentation.
 */
final class TypedJson {
    private TypedJson() {}

    /** The typed form of one value as sluice's sinks detach it. */
    static Object encode(Object v) {
        return switch (v) {
            case null -> typed("Null", null);
            case String s -> typed("String", s);
            case Boolean b -> typed("Boolean", b);
            case Long n -> typed("Integer", n.toString());
            case Integer n -> typed("Integer", n.toString());
            case Short n -> typed("Integer", n.toString());
            case Byte n -> typed("Integer", n.toString());
            case Double d -> typed("Float", d.toString());
            case Float f -> typed("Float", Double.toString(f));
            case byte[] b -> typed("Base64", Base64.getEncoder().encodeToString(b));
            case GraphNode n -> typed("Node", node(n));
            case GraphRelationship r -> typed("Relationship", relationship(r));
            case GraphPath p -> typed("Path", path(p));
            case GraphPoint p -> typed("Point", Json.wkt(p));
            case GraphDuration d -> typed("Duration", d.toString());
            case LocalDate d -> typed("Date", Json.temporal(d));
            case OffsetTime t -> typed("Time", Json.temporal(t));
            case LocalTime t -> typed("LocalTime", Json.temporal(t));
            case OffsetDateTime t -> typed("OffsetDateTime", Json.temporal(t));
            case ZonedDateTime t -> typed(t.getZone() instanceof ZoneOffset ? "OffsetDateTime" : "ZonedDateTime",
                    Json.temporal(t));
            case LocalDateTime t -> typed("LocalDateTime", Json.temporal(t));
            case List<?> l -> typed("List", l.stream().map(TypedJson::encode).toList());
            case Map<?, ?> m -> typed("Map", map(m));
            default -> typed("String", v.toString()); // nothing else reaches here from the sinks; text, not a 500
        };
    }

    private static Map<String, Object> typed(String type, Object value) {
        Map<String, Object> m = new LinkedHashMap<>(2);
        m.put("$type", type);
        m.put("_value", value);
        return m;
    }

    private static Map<String, Object> map(Map<?, ?> in) {
        Map<String, Object> out = new LinkedHashMap<>();
        in.forEach((k, val) -> out.put(String.valueOf(k), encode(val)));
        return out;
    }

    private static Map<String, Object> node(GraphNode n) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("_element_id", n.elementId());
        m.put("_labels", n.labels());
        m.put("_properties", map(n.properties()));
        return m;
    }

    private static Map<String, Object> relationship(GraphRelationship r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("_element_id", r.elementId());
        m.put("_start_node_element_id", r.startNodeElementId());
        m.put("_end_node_element_id", r.endNodeElementId());
        m.put("_type", r.type());
        m.put("_properties", map(r.properties()));
        return m;
    }

    private static List<Object> path(GraphPath p) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < p.nodes().size(); i++) {
            out.add(encode(p.nodes().get(i)));
            if (i < p.relationships().size()) {
                out.add(encode(p.relationships().get(i)));
            }
        }
        return out;
    }

    // ---- parameters ----

    /** Neo4j's point text, as its own parser reads it (so {@code POINT (1.5 2)} is accepted). */
    private static final Pattern POINT =
            Pattern.compile("SRID=(\\d+);\\s*POINT\\s*Z?\\s*\\(\\s*(\\S+)\\s+(\\S+)\\s*(\\S+)?\\)");

    /**
     * Typed parameters into plain values: Integer a {@code Long} (exact beyond 2^53), Float a {@code Double},
     * Base64 a {@code byte[]}, temporals java.time objects, Duration and Point sluice's records. A bare JSON
     * value (other than null) is refused, as Neo4j refuses it.
     *
     * @throws IllegalArgumentException for a type Neo4j does not accept ({@code "Type X is not supported."},
     *     its own message) or a value that is not of its type; both answered 400 {@code Request.Invalid}
     */
    static Map<String, Object> decodeParameters(Map<String, Object> params) {
        Map<String, Object> out = new LinkedHashMap<>();
        params.forEach((k, v) -> out.put(k, decode(v, k)));
        return out;
    }

    private static Object decode(Object v, String where) {
        if (v == null) {
            return null;
        }
        if (!(v instanceof Map<?, ?> m) || !(m.get("$type") instanceof String type) || !m.containsKey("_value")
                || m.size() != 2) {
            throw bad(where, "expected {\"$type\": ..., \"_value\": ...}, got " + Json.kind(v));
        }
        Object value = m.get("_value");
        try {
            return switch (type) {
                case "Null" -> null;
                case "String" -> text(value, where);
                case "Boolean" -> value instanceof Boolean b ? b : Boolean.parseBoolean(text(value, where));
                case "Integer" -> value instanceof Long n ? n : Long.parseLong(text(value, where));
                case "Float" -> value instanceof Number n ? n.doubleValue() : Double.parseDouble(text(value, where));
                case "Base64" -> Base64.getDecoder().decode(text(value, where));
                case "Date" -> LocalDate.parse(text(value, where), DateTimeFormatter.ISO_LOCAL_DATE);
                case "Time" -> OffsetTime.parse(text(value, where), DateTimeFormatter.ISO_OFFSET_TIME);
                case "LocalTime" -> LocalTime.parse(text(value, where), DateTimeFormatter.ISO_LOCAL_TIME);
                case "LocalDateTime" -> LocalDateTime.parse(text(value, where), DateTimeFormatter.ISO_LOCAL_DATE_TIME);
                case "OffsetDateTime" -> OffsetDateTime.parse(text(value, where), DateTimeFormatter.ISO_OFFSET_DATE_TIME);
                case "ZonedDateTime" -> zoned(text(value, where), where);
                case "Duration" -> GraphDuration.parse(text(value, where));
                case "Point" -> point(text(value, where), where);
                case "List" -> list(value, where);
                case "Map" -> map(value, where);
                default -> throw new Invalid("Type " + type + " is not supported.");
            };
        } catch (Invalid e) {
            throw e;
        } catch (RuntimeException e) { // the parsers' own: NumberFormat, DateTimeParse, Neo4j's, GraphPoint's
            throw bad(where, "not a " + type + ": " + value + " (" + e.getMessage() + ")");
        }
    }

    /** A parameter Neo4j would refuse; the message is for the client. */
    static final class Invalid extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        Invalid(String message) {
            super(message);
        }
    }

    private static String text(Object value, String where) {
        if (value instanceof String s) {
            return s;
        }
        throw bad(where, "\"_value\" must be a string, got " + Json.kind(value));
    }

    private static ZonedDateTime zoned(String text, String where) {
        ZonedDateTime z = ZonedDateTime.parse(text, DateTimeFormatter.ISO_ZONED_DATE_TIME);
        if (z.getZone() instanceof ZoneOffset) {
            throw bad(where, "a ZonedDateTime needs a region id such as [Europe/Stockholm]; use OffsetDateTime for "
                    + text);
        }
        return z;
    }

    private static GraphPoint point(String text, String where) {
        Matcher m = POINT.matcher(text);
        if (!m.matches()) {
            throw bad(where, "not a point (SRID=7203;POINT (1.5 2.0)): " + text);
        }
        List<Double> coords = new ArrayList<>(3);
        for (int g = 2; g <= 4; g++) {
            if (m.group(g) != null) {
                coords.add(Double.parseDouble(m.group(g)));
            }
        }
        return new GraphPoint(Integer.parseInt(m.group(1)), coords);
    }

    private static List<Object> list(Object value, String where) {
        if (!(value instanceof List<?> l)) {
            throw bad(where, "a List's \"_value\" must be an array, got " + Json.kind(value));
        }
        List<Object> out = new ArrayList<>(l.size());
        for (int i = 0; i < l.size(); i++) {
            out.add(decode(l.get(i), where + "[" + i + "]"));
        }
        return out;
    }

    private static Map<String, Object> map(Object value, String where) {
        if (!(value instanceof Map<?, ?> m)) {
            throw bad(where, "a Map's \"_value\" must be an object, got " + Json.kind(value));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), decode(v, where + "." + k)));
        return out;
    }

    private static Invalid bad(String where, String detail) {
        return new Invalid("Bad Request: parameter " + where + ": " + detail);
    }
}
