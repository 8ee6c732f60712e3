package io.sluice.http;

import io.sluice.http.Json.BadRequest;
import io.sluice.sink.Neo4jError;
import io.sluice.sink.StatementResult;
import io.sluice.write.Access;
import io.sluice.write.Mode;
import io.sluice.write.Outcome;
import io.sluice.write.Statement;
import io.sluice.write.Template;
import io.sluice.write.WritePath;
import io.sluice.write.WriteRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The three write endpoints: decodes a body into a {@link WriteRequest}, runs it through the {@link WritePath},
 * encodes the {@link Outcome} in the endpoint's format. Pure functions of (path params, body) to {@link Reply};
 * the transport is {@link HttpServer}'s business.
 */
final class Api {
    private final WritePath writes;

    Api(WritePath writes) {
        this.writes = writes;
    }

    /** Decoded request plus how to encode its outcome. */
    private record Decoded(WriteRequest request, List<Map<String, Object>> statementOptions) {}

    /**
     * An endpoint's answer shapes: its success status, and whether errors are Neo4j's Query API body
     * ({@code {"errors": [...]}}) or the classic one (with {@code "results": []}).
     */
    private record Shape(int success, boolean errorsOnly) {
        static final Shape CLASSIC = new Shape(200, false);
        /** Neo4j's Query API answers a query it ran with 202 Accepted. */
        static final Shape QUERY = new Shape(202, true);

        Reply error(int status, Neo4jError e) {
            return errorsOnly ? Reply.errorsOnly(status, e) : Reply.error(status, e);
        }
    }

    Reply txCommit(String db, String mode, byte[] body, Access access) {
        return handle(db, mode, access, Shape.CLASSIC, () -> decodeClassic(body), this::encodeClassic);
    }

    /** The Query API in the formats the request's Content-Type and Accept chose ({@link QueryMedia}). */
    Reply queryV2(String db, String mode, byte[] body, Access access, QueryMedia media) {
        Reply r = handle(db, mode, access, Shape.QUERY, () -> decodeQuery(body, media.typedParameters(), mode),
                (d, c) -> encodeQuery(d, c, media.typedResponse()));
        return media.typedResponse() ? r.withContentType(media.responseType()) : r;
    }

    Reply template(String db, String name, String mode, byte[] body, Access access) {
        Optional<Template> t = writes.template(name);
        if (t.isEmpty()) {
            return Reply.error(400, Neo4jError.invalid("unknown template '" + name + "'"));
        }
        return handle(db, mode, access, Shape.CLASSIC, () -> decodeRows(t.get(), body),
                (d, o) -> Map.of("rows", o.rows()));
    }

    /** GET /db/{db}/applied?offset=N&wait=5s: read-your-writes for async. */
    Reply applied(String db, String offsetText, String waitText) {
        Reply bad = checkDatabase(db);
        if (bad != null) {
            return bad;
        }
        long offset;
        java.time.Duration wait;
        try {
            if (offsetText == null) {
                throw new IllegalArgumentException("?offset=N is required");
            }
            offset = Long.parseLong(offsetText);
            if (offset < 0) {
                throw new IllegalArgumentException("offset must be >= 0, got " + offset);
            }
            waitText = waitText == null ? null : waitText.strip();
            if (waitText != null && !waitText.isEmpty() && Character.isDigit(waitText.charAt(waitText.length() - 1))) {
                throw new IllegalArgumentException("wait needs a unit, e.g. wait=5s or wait=500ms, got '" + waitText + "'");
            }
            wait = waitText == null ? java.time.Duration.ZERO : io.sluice.config.Sizes.duration(waitText);
            if (wait.compareTo(MAX_APPLIED_WAIT) > 0) {
                throw new IllegalArgumentException("wait must be at most " + MAX_APPLIED_WAIT.toSeconds() + "s");
            }
        } catch (IllegalArgumentException e) {
            return Reply.error(400, Neo4jError.invalid("bad applied query: " + e.getMessage()));
        }
        try {
            WritePath.Applied a = writes.awaitApplied(offset, wait);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("offset", a.offset());
            out.put("applied", a.applied());
            out.put("applied_offset", a.appliedOffset());
            return Reply.json(200, out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Reply.overloaded(Outcome.SHUTTING_DOWN);
        }
    }

    static final java.time.Duration MAX_APPLIED_WAIT = java.time.Duration.ofSeconds(60);

    /** GET /db/{db}/dead-letters?from=0&limit=100. */
    Reply deadLetters(String db, String fromText, String limitText) throws java.io.IOException {
        Reply bad = checkDatabase(db);
        if (bad != null) {
            return bad;
        }
        long from;
        int limit;
        try {
            from = fromText == null ? 0 : Long.parseLong(fromText);
            limit = limitText == null ? 100 : (int) Math.min(10_000, Long.parseLong(limitText));
            if (from < 0 || limit < 0) {
                throw new NumberFormatException("from and limit must be >= 0");
            }
        } catch (NumberFormatException e) {
            return Reply.error(400, Neo4jError.invalid("bad dead-letters query (from and limit are integers >= 0): " + e.getMessage()));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("dead_letters", writes.deadLetters(from, limit));
        return Reply.json(200, out);
    }

    private Reply checkDatabase(String db) {
        if (writes.database().equals(db)) {
            return null;
        }
        return Reply.error(404, notFound(db));
    }

    private Neo4jError notFound(String db) {
        return databaseNotFound(db, writes.database());
    }

    /** A request for a database this sluice does not serve (Community has one). */
    static Neo4jError databaseNotFound(String db, String served) {
        return new Neo4jError("Neo.ClientError.Database.DatabaseNotFound",
                "database '" + db + "' does not exist; this sluice serves '" + served + "'");
    }

    @FunctionalInterface
    private interface Decoder {
        Decoded decode() throws BadRequest;
    }

    @FunctionalInterface
    private interface Encoder {
        Object encode(Decoded d, Outcome.Committed committed);
    }

    private Reply handle(String db, String modeText, Access access, Shape shape, Decoder decoder, Encoder encoder) {
        if (!db.equals(writes.database())) {
            return shape.error(404, notFound(db));
        }
        Mode mode;
        Decoded d;
        try {
            mode = Mode.parse(modeText);
            d = decoder.decode();
        } catch (IllegalArgumentException e) {
            return shape.error(400, Neo4jError.invalid(e.getMessage()));
        } catch (BadRequest e) {
            return shape.error(400, Neo4jError.invalidFormat(e.getMessage()));
        }
        Outcome o = writes.execute(d.request(), mode, access);
        return switch (o) {
            case Outcome.Committed c -> Reply.json(shape.success(), encoder.encode(d, c));
            case Outcome.Accepted a -> Reply.json(202, Map.of("offset", a.offset(), "rows", a.rows()));
            case Outcome.Failed f -> Reply.error(f.error(), shape.errorsOnly());
            case Outcome.Overloaded ov -> Reply.overloaded(ov, shape.errorsOnly());
        };
    }

    // ---- classic transactional API ----

    private Decoded decodeClassic(byte[] body) throws BadRequest {
        Map<String, Object> root = Json.object(Json.parse(body), "the request body");
        Object list = root.get("statements");
        if (!(list instanceof List<?> items)) {
            throw new BadRequest("the request body must have \"statements\": an array, got " + Json.kind(list));
        }
        if (items.isEmpty()) {
            throw new BadRequest("\"statements\" is empty");
        }
        List<Statement> statements = new ArrayList<>();
        List<Map<String, Object>> options = new ArrayList<>();
        boolean stats = false;
        for (int i = 0; i < items.size(); i++) {
            Map<String, Object> s = Json.object(items.get(i), "statements[" + i + "]");
            statements.add(statement(s, "statement", "statements[" + i + "]"));
            options.add(s);
            stats |= Boolean.TRUE.equals(s.get("includeStats"));
        }
        return new Decoded(new WriteRequest.CypherRequest(statements, body.length, stats), options);
    }

    private Object encodeClassic(Decoded d, Outcome.Committed c) {
        List<Object> results = new ArrayList<>();
        for (int i = 0; i < c.results().size(); i++) {
            StatementResult r = c.results().get(i);
            List<Object> data = new ArrayList<>(r.rows().size());
            for (List<Object> row : r.rows()) {
                List<Object> values = new ArrayList<>(row.size());
                List<Object> meta = new ArrayList<>(row.size());
                for (Object v : row) {
                    values.add(Json.classicRow(v));
                    meta.add(Json.classicMeta(v));
                }
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("row", values);
                entry.put("meta", meta);
                data.add(entry);
            }
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("columns", r.columns());
            result.put("data", data);
            if (Boolean.TRUE.equals(d.statementOptions().get(i).get("includeStats"))) {
                result.put("stats", r.counters());
            }
            results.add(result);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("results", results);
        out.put("errors", List.of());
        out.put("lastBookmarks", List.of());
        return out;
    }

    // ---- Query API v2 ----

    private Decoded decodeQuery(byte[] body, boolean typed, String mode) throws BadRequest {
        Map<String, Object> root = Json.object(Json.parse(body), "the request body");
        Statement s = statement(root, "statement", "the request body");
        if (typed) {
            s = new Statement(s.cypher(), TypedJson.decodeParameters(s.params()));
            if (Mode.parse(mode) == Mode.ASYNC) {
                refuseUnjournalable(s.params());
            }
        }
        return new Decoded(new WriteRequest.CypherRequest(List.of(s), body.length,
                Boolean.TRUE.equals(root.get("includeCounters"))), List.of(root));
    }

    /**
     * Async mode journals parameters as plain JSON (durable.RecordCodec), which would replay a date as a string
     * and a duration or point as a map: refused rather than changed silently.
     */
    private static void refuseUnjournalable(Map<String, Object> params) {
        params.forEach((k, v) -> {
            String type = unjournalable(v);
            if (type != null) {
                throw new IllegalArgumentException("parameter " + k + " holds a " + type + ", which mode=async cannot "
                        + "journal without losing its type; send it with mode=sync or mode=direct");
            }
        });
    }

    private static String unjournalable(Object v) {
        return switch (v) {
            case null -> null;
            case String s -> null;
            case Long n -> null;
            case Double n -> Double.isFinite(n) ? null : "non-finite Float";
            case Boolean b -> null;
            case List<?> l -> l.stream().map(Api::unjournalable).filter(java.util.Objects::nonNull).findFirst().orElse(null);
            case Map<?, ?> m -> m.values().stream().map(Api::unjournalable).filter(java.util.Objects::nonNull).findFirst()
                    .orElse(null);
            case byte[] b -> "Base64";
            default -> v.getClass().getSimpleName().replace("Graph", "");
        };
    }

    private Object encodeQuery(Decoded d, Outcome.Committed c, boolean typed) {
        StatementResult r = c.results().isEmpty() ? StatementResult.EMPTY : c.results().getFirst();
        Map<String, Object> out = queryResult(r, Boolean.TRUE.equals(d.statementOptions().getFirst().get("includeCounters")),
                typed);
        out.put("bookmarks", List.of());
        return out;
    }

    /** A Query API answer's {@code data} (and {@code counters} when asked for), in the format chosen. */
    static Map<String, Object> queryResult(StatementResult r, boolean includeCounters, boolean typed) {
        List<Object> values = new ArrayList<>(r.rows().size());
        for (List<Object> row : r.rows()) {
            values.add(row.stream().map(typed ? TypedJson::encode : Json::queryValue).toList());
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("fields", r.columns());
        data.put("values", values);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("data", data);
        if (includeCounters) {
            out.put("counters", Json.camelCounters(r.counters()));
        }
        return out;
    }

    static Statement statement(Map<String, Object> s, String field, String where) throws BadRequest {
        Object text = s.get(field);
        if (!(text instanceof String cypher) || cypher.isBlank()) {
            throw new BadRequest(where + " must have \"" + field + "\": a non-empty string, got " + Json.kind(text));
        }
        Object params = s.get("parameters");
        if (params != null && !(params instanceof Map<?, ?>)) {
            throw new BadRequest(where + ": \"parameters\" must be an object, got " + Json.kind(params));
        }
        return new Statement(cypher, params == null ? Map.of() : Json.object(params, "parameters"));
    }

    // ---- template rows ----

    private Decoded decodeRows(Template t, byte[] body) throws BadRequest {
        Object root = Json.parse(body);
        List<Map<String, Object>> rows = new ArrayList<>();
        if (root instanceof List<?> list) {
            if (list.isEmpty()) {
                throw new BadRequest("the array of rows is empty");
            }
            for (int i = 0; i < list.size(); i++) {
                rows.add(Json.object(list.get(i), "row " + i));
            }
        } else {
            rows.add(Json.object(root, "the request body (one row, or an array of rows)"));
        }
        return new Decoded(new WriteRequest.TemplateRequest(t, rows, body.length), List.of());
    }
}
