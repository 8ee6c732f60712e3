package io.sluice.http;

import io.sluice.http.Json.BadRequest;
import io.sluice.sink.Neo4jError;
import io.sluice.sink.SinkException;
import io.sluice.sink.StatementResult;
import io.sluice.time.Time;
import io.sluice.write.Access;
import io.sluice.write.ExplicitTransactions;
import io.sluice.write.Statement;
import io.sluice.write.WritePath;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Query API's explicit transactions, as Neo4j 2026.08 answers them (docs/reference/neo4j-http-behaviour.md,
 * section 3): open ({@code POST /db/{db}/query/v2/tx}, with or without a first statement), run ({@code .../tx/{id}},
 * an empty body keeps it alive), commit ({@code .../tx/{id}/commit}, with or without a last statement), roll back
 * ({@code DELETE .../tx/{id}}: 200 {@code {}}). 202 with {@code transaction {id, expires}} while it is open,
 * {@code bookmarks} once committed; an unknown, expired, finished or another caller's id is 404. Statements here
 * run in the caller's own Neo4j transaction: no group commit, no journal (a mode does not apply).
 */
final class QueryTransactionsApi {
    private final WritePath writes;
    private final Time time;

    QueryTransactionsApi(WritePath writes, Time time) {
        this.writes = writes;
        this.time = time;
    }

    /**
     * A request's statement, none when the body has none (empty, or no {@code statement}); {@code read} when it asks
     * for {@code accessMode: READ}; {@code start}: when it arrived ({@link Time#nanos}).
     */
    private record Request(List<Statement> statements, boolean includeCounters, boolean read, long start) {}

    /** {@code accessMode: READ} opens a read transaction, in which Neo4j itself refuses writes. */
    Reply open(String db, byte[] body, QueryMedia media, Object owner, Access access) {
        return answer(db, body, media, r -> open(writes.queryTransactions().open(r.statements(),
                r.read() && access == Access.CYPHER ? Access.READ : access, owner), r, media));
    }

    Reply run(String db, String id, byte[] body, QueryMedia media, Object owner) {
        return answer(db, body, media, r -> open(writes.queryTransactions().run(id, r.statements(), owner), r, media));
    }

    Reply commit(String db, String id, byte[] body, QueryMedia media, Object owner) {
        return answer(db, body, media, r -> {
            ExplicitTransactions.Step s = writes.queryTransactions().commit(id, r.statements(), owner);
            if (s.failed()) {
                return failed(s.failure());
            }
            Map<String, Object> out = result(s, r, media);
            out.put("bookmarks", List.of());
            return Reply.json(202, out);
        });
    }

    Reply rollback(String db, String id, Object owner) {
        if (!db.equals(writes.database())) {
            return Reply.errorsOnly(404, notFound(db));
        }
        try {
            writes.queryTransactions().rollback(id, owner);
            return Reply.json(200, Map.of());
        } catch (SinkException e) {
            return failed(e.error());
        }
    }

    @FunctionalInterface
    private interface Step {
        Reply run(Request r) throws SinkException;
    }

    private Reply answer(String db, byte[] body, QueryMedia media, Step step) {
        if (!db.equals(writes.database())) {
            return Reply.errorsOnly(404, notFound(db));
        }
        Request r;
        try {
            r = parse(body, media.typedParameters(), time.nanos());
        } catch (BadRequest e) {
            return Reply.errorsOnly(400, Neo4jError.invalidFormat(e.getMessage()));
        } catch (Api.ImpersonationRefused e) {
            return Reply.errorsOnly(400, e.error());
        } catch (IllegalArgumentException e) { // a typed value that does not parse, a field Neo4j refuses
            return Reply.errorsOnly(400, Neo4jError.invalid(e.getMessage()));
        }
        Reply reply;
        try {
            reply = step.run(r);
        } catch (SinkException e) {
            reply = failed(e.error());
        }
        return media.typedResponse() ? reply.withContentType(media.responseType()) : reply;
    }

    private Reply failed(Neo4jError e) {
        return writes.queryTransactions().isNotFound(e) ? Reply.errorsOnly(404, e) : Reply.error(e, true);
    }

    private static Request parse(byte[] body, boolean typed, long start) throws BadRequest {
        if (body.length == 0 || new String(body, java.nio.charset.StandardCharsets.UTF_8).isBlank()) {
            return new Request(List.of(), false, false, start);
        }
        Map<String, Object> root = Api.checkQueryFields(Json.object(Json.parse(body), "the request body"));
        boolean counters = Boolean.TRUE.equals(root.get("includeCounters"));
        boolean read = "READ".equals(root.get("accessMode"));
        if (!root.containsKey("statement")) {
            return new Request(List.of(), counters, read, start);
        }
        Statement s = Api.statement(root, "statement", "the request body");
        if (typed) {
            s = new Statement(s.cypher(), TypedJson.decodeParameters(s.params()));
        }
        return new Request(List.of(s), counters, read, start);
    }

    /** The statement's data, counters when asked for, query type and timings; nothing when none ran. */
    private Map<String, Object> result(ExplicitTransactions.Step s, Request r, QueryMedia media) {
        if (s.results().isEmpty()) {
            return new LinkedHashMap<>();
        }
        StatementResult result = s.results().getFirst();
        Map<String, Object> out = Api.queryResult(result, r.includeCounters(), media.typedResponse());
        Api.summary(out, Api.queryType(writes.kind(r.statements().getFirst().cypher()), result), time.nanos() - r.start());
        return out;
    }

    private Reply open(ExplicitTransactions.Step s, Request r, QueryMedia media) {
        if (s.failed()) {
            return failed(s.failure());
        }
        Map<String, Object> out = result(s, r, media);
        Map<String, Object> tx = new LinkedHashMap<>();
        tx.put("id", s.id());
        tx.put("expires", expires(s.expires()));
        out.put("transaction", tx);
        return Reply.json(202, out);
    }

    /** As Neo4j writes it: ISO-8601 in UTC, to the second. */
    static String expires(Instant at) {
        return at.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private Neo4jError notFound(String db) {
        return Api.databaseNotFound(db, writes.database());
    }
}
