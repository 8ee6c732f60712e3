package io.sluice.http;

import io.sluice.config.Access;
import io.sluice.config.Mode;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.NoticeFilter;
import io.sluice.vocab.StatementResult;
import io.sluice.write.Caller;
import io.sluice.write.ExplicitTransactions;
import io.sluice.write.Statement;
import io.sluice.write.WritePath;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Query API's explicit transactions, as Neo4j 2026.08 answers them (docs/reference/neo4j-http-behaviour.md,
 * section 3): open ({@code POST /db/{db}/query/v2/tx}, with or without a first statement), run ({@code .../tx/{id}},
 * an empty body keeps it alive), commit ({@code .../tx/{id}/commit}, with or without a last statement), roll back
 * ({@code DELETE .../tx/{id}}: 200 {@code {}}). 202 with {@code transaction {id, expires}} while it is open,
 * {@code bookmarks} once committed; an unknown, expired, finished or another caller's id is 404. Statements here
 * run in the caller's own Neo4j transaction: no group commit, no journal (a mode does not apply). Bodies are
 * read as Neo4j reads them ({@link QueryRequest}: its fields only; {@code accessMode: READ} opens a read
 * transaction). Answers carry {@code queryType} and the timings (the request's time in sluice) after a statement.
 * The opening request's {@code notificationsFilter} holds for the whole transaction, as in Neo4j (later requests
 * may not carry one): kept here beside the transaction's id, only when it filters anything, and dropped when the
 * transaction ends (its commit, roll-back or failure here; its expiry when the registry no longer has it).
 */
final class QueryTransactionsApi {
    private final WritePath writes;
    private final ExplicitTransactions transactions;
    private final Time time;
    /** The filters of open transactions that asked for one. */
    private final Map<String, NoticeFilter> filters = new ConcurrentHashMap<>();

    QueryTransactionsApi(WritePath writes, ExplicitTransactions transactions, Time time) {
        this.writes = writes;
        this.transactions = transactions;
        this.time = time;
    }

    Reply open(String db, byte[] body, QueryMedia media, Caller caller) {
        long start = time.nanos();
        return answer(body, QueryRequest.Shape.TRANSACTION, media, r -> {
            if (!db.equals(writes.database())) {
                return Reply.errorsOnly(404, notFound(db));
            }
            // a read transaction for accessMode READ, as Neo4j's (a template-only caller is refused either way)
            Caller as = r.readOnly() ? caller.readOnly() : caller;
            ExplicitTransactions.Step s = transactions.open(statements(r), as);
            forgetEnded();
            if (!s.failed() && !r.notices().equals(NoticeFilter.ALL)) {
                filters.put(s.id(), r.notices());
            } else if (s.id() != null) {
                filters.remove(s.id());
            }
            return open(s, r, media, start, r.notices());
        });
    }

    Reply run(String db, String id, byte[] body, QueryMedia media, Caller caller) {
        long start = time.nanos();
        return answer(body, QueryRequest.Shape.STATEMENT, media, r -> {
            NoticeFilter notices = filters.getOrDefault(id, NoticeFilter.ALL); // before: a commit may drop it
            return open(transactions.run(id, statements(r), onDatabase(db, caller)), r, media, start, notices);
        });
    }

    Reply commit(String db, String id, byte[] body, QueryMedia media, Caller caller) {
        long start = time.nanos();
        return answer(body, QueryRequest.Shape.STATEMENT, media, r -> {
            NoticeFilter notices = filters.getOrDefault(id, NoticeFilter.ALL);
            // not found or in use throws: the transaction (another caller's, perhaps) goes on, and keeps its filter
            ExplicitTransactions.Step s = transactions.commit(id, statements(r), onDatabase(db, caller));
            if (s.failed()) {
                filters.remove(id);
                return failed(s.failure());
            }
            Map<String, Object> out = result(s, r, media, start, notices);
            filters.remove(id);
            out.put("bookmarks", List.of());
            return Reply.json(202, out);
        });
    }

    Reply rollback(String db, String id, Caller caller) {
        try {
            transactions.rollback(id, onDatabase(db, caller));
            filters.remove(id);
            return Reply.json(200, Map.of());
        } catch (GraphException e) {
            return failed(e.error());
        }
    }

    @FunctionalInterface
    private interface Step {
        Reply run(QueryRequest r) throws GraphException;
    }

    private static List<Statement> statements(QueryRequest r) {
        return r.statement() == null ? List.of() : List.of(r.statement());
    }

    /**
     * Whom a request on {@code db} acts for. Neo4j finds a transaction by its id, database and user together: on
     * another database it is not found (and goes on), as it is for another user; so there the caller is no one.
     */
    private Caller onDatabase(String db, Caller caller) {
        return db.equals(writes.database()) ? caller : ANOTHER_DATABASE;
    }

    /** No one: a user name no user has (NUL is not allowed in Neo4j's user names). */
    private static final Caller ANOTHER_DATABASE = new Caller("\0another database", Access.READ, Mode.SYNC);

    /** The body is read first, as Neo4j reads it before its handler runs: a bad one is 400 whatever the path. */
    private Reply answer(byte[] body, QueryRequest.Shape shape, QueryMedia media, Step step) {
        Reply reply;
        try {
            reply = step.run(QueryRequest.parse(body, media.typedParameters(), shape));
        } catch (QueryRequest.Refused e) {
            reply = Reply.errorsOnly(400, e.error());
        } catch (GraphException e) {
            reply = failed(e.error());
        }
        return media.typedResponse() ? reply.withContentType(media.responseType()) : reply;
    }

    private Reply failed(Neo4jError e) {
        return transactions.isNotFound(e) ? Reply.errorsOnly(404, e) : Reply.error(e, true);
    }

    /** The statement's data, counters when asked for, query type and timings; nothing when none ran. */
    private Map<String, Object> result(ExplicitTransactions.Step s, QueryRequest r, QueryMedia media, long start,
            NoticeFilter notices) {
        if (s.results().isEmpty()) {
            return new LinkedHashMap<>();
        }
        StatementResult result = s.results().getFirst();
        Map<String, Object> out = Api.queryResult(result, r.includeCounters(), notices, writes.database(),
                media.typedResponse());
        Api.summary(out, Api.queryType(s.kind(0), result), time.nanos() - start);
        return out;
    }

    private Reply open(ExplicitTransactions.Step s, QueryRequest r, QueryMedia media, long start,
            NoticeFilter notices) {
        if (s.failed()) {
            filters.remove(s.id());
            return failed(s.failure());
        }
        Map<String, Object> out = result(s, r, media, start, notices);
        Map<String, Object> tx = new LinkedHashMap<>();
        tx.put("id", s.id());
        tx.put("expires", expires(s.expires()));
        out.put("transaction", tx);
        return Reply.json(202, out);
    }

    /** Drops the filters of transactions that have ended (expired, or ended by a path that did not drop them). */
    private void forgetEnded() {
        if (!filters.isEmpty()) {
            filters.keySet().removeIf(id -> !transactions.isOpen(id));
        }
    }

    /** As Neo4j writes it: ISO-8601 in UTC, to the second. */
    static String expires(Instant at) {
        return at.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private Neo4jError notFound(String db) {
        return Api.databaseNotFound(db, writes.database());
    }
}
