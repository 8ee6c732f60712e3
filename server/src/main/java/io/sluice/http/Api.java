package io.sluice.http;

import io.sluice.config.Mode;
import io.sluice.http.Json.BadRequest;
import io.sluice.time.Time;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.NoticeFilter;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.Summary;
import io.sluice.write.Caller;
import io.sluice.write.Outcome;
import io.sluice.write.Statement;
import io.sluice.write.Template;
import io.sluice.write.WritePath;
import io.sluice.write.WriteRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The three write endpoints: decodes a body into a {@link WriteRequest}, runs it through the {@link WritePath},
 * encodes the {@link Outcome} in the endpoint's format. Pure functions of (path params, body) to {@link Reply};
 * the transport is {@link HttpServer}'s and {@link Routes}' business.
 */
final class Api {
    private final WritePath writes;
    private final Time time;

    Api(WritePath writes, Time time) {
        this.writes = writes;
        this.time = time;
    }

    /** Decoded request plus how to encode its outcome. */
    private record Decoded(WriteRequest request, List<Map<String, Object>> statementOptions) {}


    /**
     * An endpoint's answer shapes: its success status, and whether errors are Neo4j's Query API body
     * ({@code {"errors": [...]}}) or the classic one (with {@code "results": []}).
     */
    private record Shape(int success, boolean errorsOnly) {
        /** sluice's own template endpoint: 200, errors with {@code results}. */
        static final Shape CLASSIC = new Shape(200, false);
        /** Neo4j's Query API answers a query it ran with 202 Accepted. */
        static final Shape QUERY = new Shape(202, true);

        Reply error(int status, Neo4jError e) {
            return errorsOnly ? Reply.errorsOnly(status, e) : Reply.error(status, e);
        }
    }

    /**
     * The classic API's one-shot transaction, answered as Neo4j answers it: 200 with {@code errors} for anything
     * Neo4j reports (the request then applied nothing), 404 for an unknown database; sluice's own answers keep
     * their statuses (a bad {@code ?mode=} 400, full or stopping 503, async 202 with its offset).
     */
    Reply txCommit(String db, String modeText, byte[] body, Caller caller) {
        if (!db.equals(writes.database())) {
            return ClassicFormat.error(404, notFound(db));
        }
        Mode mode;
        try {
            mode = Mode.parse(modeText);
        } catch (IllegalArgumentException e) {
            return ClassicFormat.error(400, Neo4jError.invalid(e.getMessage()));
        }
        ClassicFormat.Request r;
        try {
            r = ClassicFormat.parse(body);
        } catch (BadRequest e) {
            return ClassicFormat.error(200, Neo4jError.invalidFormat(e.getMessage()));
        }
        if (r.statements().isEmpty()) { // nothing to run or commit
            Map<String, Object> out = ClassicFormat.envelope(null);
            out.put("lastBookmarks", List.of());
            return Reply.json(200, out);
        }
        boolean stats = r.options().stream().anyMatch(ClassicFormat.Options::includeStats);
        Outcome o = writes.execute(new WriteRequest.CypherRequest(r.statements(), body.length, stats), mode, caller);
        return switch (o) {
            case Outcome.Committed c -> {
                Map<String, Object> out = ClassicFormat.envelope(c.results(), r.options(), null, writes.database());
                out.put("lastBookmarks", List.of());
                yield Reply.json(200, out);
            }
            case Outcome.Accepted a -> Reply.json(202, accepted(a));
            case Outcome.Failed f -> ClassicFormat.error(200, f.error());
            case Outcome.Overloaded ov -> ClassicFormat.error(503, Reply.overloadedError(ov)).retryAfter(ov.retryAfter().toSeconds());
        };
    }

    /**
     * The Query API in the formats the request's Content-Type and Accept chose ({@link QueryMedia}). As Neo4j:
     * {@code accessMode: READ} refuses a write with {@code Statement.AccessMode}; {@code bookmarks} are checked
     * and otherwise not needed (every read through sluice sees every write it acknowledged as committed);
     * {@code queryType} and the timings (the request's time in sluice, in ms) are reported.
     */
    Reply queryV2(String db, String mode, byte[] body, Caller caller, QueryMedia media) {
        long start = time.nanos();
        Reply r = handle(db, mode, caller, Shape.QUERY, () -> decodeQuery(body, media.typedParameters(), mode),
                (d, c) -> encodeQuery(d, c, media.typedResponse(), start));
        return media.typedResponse() ? r.withContentType(media.responseType()) : r;
    }

    Reply template(String db, String name, String mode, byte[] body, Caller caller) {
        Optional<Template> t = writes.template(name);
        if (t.isEmpty()) {
            return Reply.error(400, Neo4jError.invalid("unknown template '" + name + "'"));
        }
        return handle(db, mode, caller, Shape.CLASSIC, () -> decodeRows(t.get(), body),
                (d, o) -> Map.of("rows", o.rows()));
    }

    /**
     * {@link #template} from an HTTP I/O thread: decodes there and submits ({@link WritePath#submit}), so a sync
     * write admitted at once waits on no thread; whatever must block runs on {@code blocking}. The outcome is
     * handed to {@code onIoThread} (the connection's I/O thread) and the reply built there.
     */
    CompletableFuture<Reply> templateSubmitted(String db, String name, String mode, byte[] body, Caller caller,
            Executor blocking, Executor onIoThread) {
        Optional<Template> t = writes.template(name);
        if (t.isEmpty()) {
            return CompletableFuture.completedFuture(Reply.error(400, Neo4jError.invalid("unknown template '" + name + "'")));
        }
        // the outcome is handed to the I/O thread before it is encoded: the applier completing it does no more
        return handle(db, mode, caller, Shape.CLASSIC, () -> decodeRows(t.get(), body),
                (d, o) -> Map.of("rows", o.rows()),
                (r, m, as) -> writes.submit(r, m, as, blocking).thenApplyAsync(o -> o, onIoThread));
    }

    /** An async write's 202: where it is in the journal ({@code partition} only on Kafka) and its rows. */
    static Map<String, Object> accepted(Outcome.Accepted a) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (a.partition() >= 0) {
            out.put("partition", a.partition());
        }
        out.put("offset", a.offset());
        out.put("rows", a.rows());
        return out;
    }

    private Neo4jError notFound(String db) {
        return databaseNotFound(db, writes.database());
    }

    /** A request for a database this sluice does not serve (Community has one). */
    static Neo4jError databaseNotFound(String db, String served) {
        return new Neo4jError(Neo4jStatus.Database.DATABASE_NOT_FOUND,
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

    private Reply handle(String db, String modeText, Caller caller, Shape shape, Decoder decoder, Encoder encoder) {
        try {
            return handle(db, modeText, caller, shape, decoder, encoder,
                    (r, m, as) -> CompletableFuture.completedFuture(writes.execute(r, m, as))).join();
        } catch (CompletionException e) { // completed already: the encoder's own failure
            throw e.getCause() instanceof RuntimeException re ? re : e;
        }
    }

    /** How a decoded request is run: at once on the caller's thread, or submitted ({@link WritePath#submit}). */
    @FunctionalInterface
    private interface Runner {
        CompletableFuture<Outcome> run(WriteRequest request, Mode mode, Caller as);
    }

    private CompletableFuture<Reply> handle(String db, String modeText, Caller caller, Shape shape, Decoder decoder,
            Encoder encoder, Runner runner) {
        if (!db.equals(writes.database())) {
            return CompletableFuture.completedFuture(shape.error(404, notFound(db)));
        }
        Mode mode;
        Decoded d;
        try {
            mode = Mode.parse(modeText);
            d = decoder.decode();
        } catch (Refusal e) {
            return CompletableFuture.completedFuture(shape.error(400, e.error));
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture(shape.error(400, Neo4jError.invalid(e.getMessage())));
        } catch (BadRequest e) {
            return CompletableFuture.completedFuture(shape.error(400, Neo4jError.invalidFormat(e.getMessage())));
        }
        // a Query API read (accessMode READ) runs as a read session: the write path refuses a write as Neo4j's read
        // transaction does
        Caller as = readMode(d) ? caller.readOnly() : caller;
        return runner.run(d.request(), mode, as).thenApply(o -> switch (o) {
            case Outcome.Committed c -> Reply.json(shape.success(), encoder.encode(d, c)).withRows(c.rows());
            case Outcome.Accepted a -> Reply.json(202, accepted(a)).withRows(a.rows());
            case Outcome.Failed f -> Reply.error(f.error(), shape.errorsOnly());
            case Outcome.Overloaded ov -> Reply.overloaded(ov, shape.errorsOnly());
        });
    }

    // ---- Query API v2 ----

    private static boolean readMode(Decoded d) {
        return d.statementOptions().size() == 1 && "READ".equals(d.statementOptions().getFirst().get("accessMode"));
    }

    private Decoded decodeQuery(byte[] body, boolean typed, String mode) {
        QueryRequest r;
        try {
            r = QueryRequest.parse(body, typed, QueryRequest.Shape.TRANSACTION);
        } catch (QueryRequest.Refused e) {
            throw new Refusal(e.error());
        }
        if (r.statement() == null) {
            throw new Refusal(Neo4jError.invalid("statement cannot be null or empty"));
        }
        if (typed && Mode.parse(mode) == Mode.ASYNC) {
            refuseUnjournalable(r.statement().params());
        }
        Map<String, Object> options = new LinkedHashMap<>();
        options.put("includeCounters", r.includeCounters());
        options.put("accessMode", r.accessMode());
        options.put("notices", r.notices());
        return new Decoded(new WriteRequest.CypherRequest(List.of(r.statement()), body.length, r.includeCounters()),
                List.of(options));
    }

    /** A body refused as Neo4j refuses it: 400 with {@code error}. */
    private static final class Refusal extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient Neo4jError error;

        Refusal(Neo4jError error) {
            super(error.message(), null, false, false);
            this.error = error;
        }
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
            case List<?> l -> l.stream().map(Api::unjournalable).filter(Objects::nonNull).findFirst().orElse(null);
            case Map<?, ?> m -> m.values().stream().map(Api::unjournalable).filter(Objects::nonNull).findFirst()
                    .orElse(null);
            case byte[] b -> "Base64";
            default -> v.getClass().getSimpleName().replace("Graph", "");
        };
    }

    private Object encodeQuery(Decoded d, Outcome.Committed c, boolean typed, long start) {
        StatementResult r = c.results().isEmpty() ? StatementResult.EMPTY : c.results().getFirst();
        Map<String, Object> options = d.statementOptions().getFirst();
        Map<String, Object> out = queryResult(r, Boolean.TRUE.equals(options.get("includeCounters")),
                (NoticeFilter) options.get("notices"), writes.database(), typed);
        summary(out, queryType(c.kind(), r), time.nanos() - start);
        out.put("bookmarks", List.of());
        return out;
    }

    /** Neo4j's {@code queryType}: r, w, rw or s, from the plan's kind and whether the statement returns columns. */
    static String queryType(QueryKind kind, StatementResult r) {
        return QueryKind.typeOf(kind, !r.columns().isEmpty());
    }

    /** {@code queryType} and the timings (ms), where Neo4j puts them: after the data and counters. */
    static void summary(Map<String, Object> out, String queryType, long elapsedNanos) {
        long ms = TimeUnit.NANOSECONDS.toMillis(elapsedNanos);
        out.put("queryType", queryType);
        out.put("resultAvailableAfter", ms);
        out.put("resultConsumedAfter", ms);
    }

    /**
     * A Query API answer's {@code data}, then, as Neo4j orders them: the notifications {@code notices} lets through
     * (the pre-GQL form), {@code counters} when asked for, and the plan an {@code EXPLAIN} ({@code queryPlan}) or
     * {@code PROFILE} ({@code profiledQueryPlan}) asked for, its operators located on {@code db}.
     */
    static Map<String, Object> queryResult(StatementResult r, boolean includeCounters, NoticeFilter notices, String db,
            boolean typed) {
        List<Object> values = new ArrayList<>(r.rows().size());
        for (List<Object> row : r.rows()) {
            values.add(row.stream().map(typed ? TypedJson::encode : Json::queryValue).toList());
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("fields", r.columns());
        data.put("values", values);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("data", data);
        List<Map<String, Object>> wanted = notices.of(r.summary());
        if (!wanted.isEmpty()) {
            out.put("notifications", Summary.legacy(wanted));
        }
        if (includeCounters) {
            out.put("counters", Json.camelCounters(r.counters()));
        }
        Summary s = r.summary();
        if (s.plan() != null) {
            out.put(s.profiled() ? "profiledQueryPlan" : "queryPlan", Plans.query(s.plan(), s.profiled(), db, typed));
        }
        return out;
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
