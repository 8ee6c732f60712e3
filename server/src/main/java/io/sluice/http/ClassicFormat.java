package io.sluice.http;

import io.sluice.http.Json.BadRequest;
import io.sluice.vocab.GraphValues.GraphDuration;
import io.sluice.vocab.GraphValues.GraphNode;
import io.sluice.vocab.GraphValues.GraphPath;
import io.sluice.vocab.GraphValues.GraphPoint;
import io.sluice.vocab.GraphValues.GraphRelationship;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.Summary;
import io.sluice.write.Statement;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Neo4j's classic transactional API format ({@code /db/{db}/tx...}), as Neo4j 2026.08 writes it
 * (docs/reference/neo4j-http-behaviour.md, section 4): the request's {@code statements} with their
 * {@code includeStats} and {@code resultDataContents}, and the answer's envelope: {@code results} (per statement
 * {@code columns} and {@code data}, each entry {@code row}+{@code meta} and/or {@code graph} in the order asked
 * for, {@code stats} when asked for), {@code notifications} (Neo4j's deprecation of this API on every answer),
 * {@code errors}, and for an open transaction {@code commit} and {@code transaction.expires}. Pure functions.
 */
final class ClassicFormat {
    private ClassicFormat() {}

    /** The notification Neo4j appends to every answer of this API. */
    static final Map<String, Object> DEPRECATION = deprecation();

    private static Map<String, Object> deprecation() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("code", Neo4jStatus.Request.FEATURE_DEPRECATION_WARNING);
        m.put("severity", "WARNING");
        m.put("title", "This feature is deprecated and will be removed in future versions.");
        m.put("description", "HTTP API is deprecated. It is replaced by Query API.");
        return Collections.unmodifiableMap(m);
    }

    private static final DateTimeFormatter EXPIRES = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'",
            Locale.ROOT).withZone(ZoneOffset.UTC);

    /** How each statement's result is to be written. */
    record Options(boolean includeStats, List<String> contents) {}

    /** A request: its statements, and per statement how to write its result. */
    record Request(List<Statement> statements, List<Options> options) {
        static final Request EMPTY = new Request(List.of(), List.of());
    }

    /** Parses a request body; an empty one has no statements (a keep-alive, or a bare open or commit). */
    static Request parse(byte[] body) throws BadRequest {
        if (body.length == 0 || new String(body, StandardCharsets.UTF_8).isBlank()) {
            return Request.EMPTY;
        }
        Map<String, Object> root = Json.object(Json.parse(body), "the request body");
        Object list = root.get("statements");
        if (list == null) {
            return Request.EMPTY;
        }
        if (!(list instanceof List<?> items)) {
            throw new BadRequest("the request body must have \"statements\": an array, got " + Json.kind(list));
        }
        List<Statement> statements = new ArrayList<>(items.size());
        List<Options> options = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            String where = "statements[" + i + "]";
            Map<String, Object> s = Json.object(items.get(i), where);
            if (!s.containsKey("statement")) {
                throw new BadRequest("No statement provided.");
            }
            statements.add(Json.statement(s, "statement", where));
            options.add(new Options(Boolean.TRUE.equals(s.get("includeStats")), contents(s.get("resultDataContents"), where)));
        }
        return new Request(statements, options);
    }

    private static List<String> contents(Object v, String where) throws BadRequest {
        if (v == null) {
            return List.of("row");
        }
        if (!(v instanceof List<?> l)) {
            throw new BadRequest(where + ": \"resultDataContents\" must be an array of \"row\" and \"graph\", got "
                    + Json.kind(v));
        }
        List<String> out = new ArrayList<>();
        for (Object o : l) {
            String c = o instanceof String s ? s.toLowerCase(Locale.ROOT) : null;
            if (!"row".equals(c) && !"graph".equals(c)) {
                throw new BadRequest(where + ": resultDataContents " + (o instanceof String s ? "'" + s + "'" : Json.kind(o))
                        + " is not supported by sluice (row and graph are; Neo4j's legacy 'rest' is not)");
            }
            if (!out.contains(c)) {
                out.add(c);
            }
        }
        return out.isEmpty() ? List.of("row") : out;
    }

    /**
     * The envelope: the results so far (each with its plan, its operators located on {@code db}), the notifications
     * (each statement's, in order, then the deprecation), the errors (none, or the one that ended the request).
     * Callers add {@code commit}, {@code transaction} or {@code lastBookmarks}.
     */
    static Map<String, Object> envelope(List<StatementResult> results, List<Options> options, Neo4jError error,
            String db) {
        List<Object> out = new ArrayList<>(results.size());
        List<Object> notifications = new ArrayList<>(1);
        for (int i = 0; i < results.size(); i++) {
            StatementResult r = results.get(i);
            out.add(result(r, i < options.size() ? options.get(i) : new Options(false, List.of("row")), db));
            for (Map<String, Object> n : Summary.legacy(r.summary().notificationsAsRaised())) {
                notifications.add(notification(n));
            }
        }
        notifications.add(DEPRECATION);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("results", out);
        m.put("notifications", notifications);
        m.put("errors", error == null ? List.of() : List.of(error(error)));
        return m;
    }

    /** The envelope of an answer without results. */
    static Map<String, Object> envelope(Neo4jError error) {
        return envelope(List.of(), List.of(), error, null);
    }

    /** A notification as this API writes it: Neo4j's pre-GQL form less its category. */
    private static Map<String, Object> notification(Map<String, Object> legacy) {
        Map<String, Object> n = new LinkedHashMap<>();
        n.put("code", legacy.get("code"));
        n.put("severity", legacy.get("severity"));
        n.put("title", legacy.get("title"));
        n.put("description", legacy.get("description"));
        if (legacy.containsKey("position")) {
            n.put("position", legacy.get("position"));
        }
        return n;
    }

    /** An answer that is only an error (unknown transaction or database, refusals), with the deprecation. */
    static Reply error(int status, Neo4jError e) {
        return Reply.json(status, envelope(e));
    }

    static Map<String, Object> error(Neo4jError e) {
        Map<String, Object> err = new LinkedHashMap<>();
        err.put("code", e.code());
        err.put("message", e.message());
        return err;
    }

    /** As Neo4j writes {@code transaction.expires}: RFC 1123 in GMT. */
    static String expires(Instant at) {
        return EXPIRES.format(at);
    }

    static Map<String, Object> result(StatementResult r, Options o, String db) {
        List<Object> data = new ArrayList<>(r.rows().size());
        for (List<Object> row : r.rows()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            for (String c : o.contents()) {
                if (c.equals("row")) {
                    List<Object> values = new ArrayList<>(row.size());
                    List<Object> meta = new ArrayList<>(row.size());
                    for (Object v : row) {
                        values.add(row(v));
                        addMeta(v, meta);
                    }
                    entry.put("row", values);
                    entry.put("meta", meta);
                } else {
                    entry.put("graph", graph(row));
                }
            }
            data.add(entry);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("columns", r.columns());
        result.put("data", data);
        if (o.includeStats()) {
            result.put("stats", r.counters());
        }
        if (r.summary().plan() != null) {
            result.put("plan", Plans.classic(r.summary().plan(), db));
        }
        return result;
    }

    /** A value in a {@code row}: nodes and relationships are their property maps, a path a list of those. */
    static Object row(Object v) {
        return switch (v) {
            case GraphNode n -> Json.mapValues(n.properties(), ClassicFormat::row);
            case GraphRelationship r -> Json.mapValues(r.properties(), ClassicFormat::row);
            case GraphPath p -> pathElements(p, true);
            case GraphPoint p -> point(p);
            case GraphDuration d -> d.toString();
            case TemporalAccessor t -> t.toString(); // Java's text, as Neo4j writes it ("12:00Z", ".500")
            case List<?> l -> l.stream().map(ClassicFormat::row).toList();
            case Map<?, ?> m -> Json.mapValues(m, ClassicFormat::row);
            case null, default -> v;
        };
    }

    /**
     * Appends what a value in a {@code row} was to the row's {@code meta}, which is flat as Neo4j writes it: an
     * entity's ids, a temporal's or point's type, null for anything else; a list or map adds its values' metas in
     * place (none when empty); only a path adds one nested array.
     */
    static void addMeta(Object v, List<Object> meta) {
        switch (v) {
            case GraphNode n -> meta.add(entity(n.id(), n.elementId(), "node"));
            case GraphRelationship r -> meta.add(entity(r.id(), r.elementId(), "relationship"));
            case GraphPath p -> meta.add(pathElements(p, false));
            case GraphPoint p -> meta.add(Map.of("type", "point"));
            case GraphDuration d -> meta.add(Map.of("type", "duration"));
            case LocalDate d -> meta.add(Map.of("type", "date"));
            case OffsetTime t -> meta.add(Map.of("type", "time"));
            case LocalTime t -> meta.add(Map.of("type", "localtime"));
            case LocalDateTime t -> meta.add(Map.of("type", "localdatetime"));
            case TemporalAccessor t -> meta.add(Map.of("type", "datetime"));
            case List<?> l -> l.forEach(x -> addMeta(x, meta));
            case Map<?, ?> m -> m.values().forEach(x -> addMeta(x, meta));
            case null, default -> meta.add(null);
        }
    }

    private static Map<String, Object> entity(long id, String elementId, String type) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("elementId", elementId);
        m.put("type", type);
        m.put("deleted", false);
        return m;
    }

    private static List<Object> pathElements(GraphPath p, boolean rows) {
        List<Object> out = new ArrayList<>();
        for (int i = 0; i < p.nodes().size(); i++) {
            GraphNode n = p.nodes().get(i);
            out.add(rows ? row(n) : entity(n.id(), n.elementId(), "node"));
            if (i < p.relationships().size()) {
                GraphRelationship r = p.relationships().get(i);
                out.add(rows ? row(r) : entity(r.id(), r.elementId(), "relationship"));
            }
        }
        return out;
    }

    /** GeoJSON-like, with the reference system linked as Neo4j links it. */
    private static Map<String, Object> point(GraphPoint p) {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("href", p.crsHref() + "ogcwkt/");
        props.put("type", "ogcwkt");
        Map<String, Object> crs = new LinkedHashMap<>();
        crs.put("srid", p.srid());
        crs.put("name", p.crsName());
        crs.put("type", "link");
        crs.put("properties", props);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "Point");
        m.put("coordinates", p.coordinates());
        m.put("crs", crs);
        return m;
    }

    /**
     * The {@code graph} of a row: every node and relationship in its values (inside lists, maps and paths too),
     * each once, ids as strings.
     */
    static Map<String, Object> graph(List<Object> row) {
        Map<String, Map<String, Object>> nodes = new LinkedHashMap<>();
        Map<String, Map<String, Object>> relationships = new LinkedHashMap<>();
        row.forEach(v -> collect(v, nodes, relationships));
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("nodes", List.copyOf(nodes.values()));
        g.put("relationships", List.copyOf(relationships.values()));
        return g;
    }

    private static void collect(Object v, Map<String, Map<String, Object>> nodes,
            Map<String, Map<String, Object>> relationships) {
        switch (v) {
            case GraphNode n -> nodes.computeIfAbsent(n.elementId(), k -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("id", Long.toString(n.id()));
                m.put("elementId", n.elementId());
                m.put("labels", n.labels());
                m.put("properties", Json.mapValues(n.properties(), ClassicFormat::row));
                return m;
            });
            case GraphRelationship r -> relationships.computeIfAbsent(r.elementId(), k -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("id", Long.toString(r.id()));
                m.put("elementId", r.elementId());
                m.put("type", r.type());
                m.put("startNode", idOf(r.startNodeElementId()));
                m.put("startNodeElementId", r.startNodeElementId());
                m.put("endNode", idOf(r.endNodeElementId()));
                m.put("endNodeElementId", r.endNodeElementId());
                m.put("properties", Json.mapValues(r.properties(), ClassicFormat::row));
                return m;
            });
            case GraphPath p -> {
                p.nodes().forEach(n -> collect(n, nodes, relationships));
                p.relationships().forEach(r -> collect(r, nodes, relationships));
            }
            case List<?> l -> l.forEach(x -> collect(x, nodes, relationships));
            case Map<?, ?> m -> m.values().forEach(x -> collect(x, nodes, relationships));
            case null, default -> { }
        }
    }

    /** The legacy numeric id inside an element id ({@code 4:<database>:<id>}). */
    private static String idOf(String elementId) {
        return elementId.substring(elementId.lastIndexOf(':') + 1);
    }
}
