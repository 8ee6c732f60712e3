package io.sluice.http;

import io.sluice.config.Access;
import io.sluice.http.Json.BadRequest;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.write.Caller;
import io.sluice.write.ExplicitTransactions;
import io.sluice.write.WritePath;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The classic transactional API's explicit transactions, as Neo4j 2026.08 answers them
 * (docs/reference/neo4j-http-behaviour.md, section 4): open ({@code POST /db/{db}/tx}: 201 with {@code Location}),
 * run ({@code POST .../tx/{id}}; {@code {"statements":[]}} keeps it alive), commit ({@code .../tx/{id}/commit}),
 * roll back ({@code DELETE .../tx/{id}}), each 200 with the classic envelope ({@link ClassicFormat}), its
 * {@code commit} URL and, while open, {@code transaction.expires}. A statement's error is 200 with {@code errors}
 * and ends the transaction (rolled back), as in Neo4j; an unknown, finished, expired or another caller's id is 404
 * {@code TransactionNotFound}. sluice's own refusals (the bound on open transactions, admission, shutdown) are
 * 503 with Retry-After. Statements run in the caller's own Neo4j transaction: no group commit, no journal.
 */
final class ClassicTransactionsApi {
    private final WritePath writes;
    private final ExplicitTransactions transactions;

    ClassicTransactionsApi(WritePath writes, ExplicitTransactions transactions) {
        this.writes = writes;
        this.transactions = transactions;
    }

    /** {@code base}: scheme, host and port as the client reached sluice (for {@code Location} and {@code commit}). */
    Reply open(String db, String base, byte[] body, String accessMode, Caller caller) {
        return answer(db, null, body, r -> {
            Caller as = caller;
            if (accessMode != null) {
                String m = accessMode.strip().toUpperCase(Locale.ROOT);
                if (!m.equals("READ") && !m.equals("WRITE")) {
                    return ClassicFormat.error(200, Neo4jError.invalidFormat("The header 'access-mode' should be either"
                            + " 'WRITE' or 'READ' but found '" + accessMode + "'."));
                }
                if (m.equals("READ") && caller.access() == Access.CYPHER) {
                    as = new Caller(caller.user(), Access.READ, caller.mode());
                }
            }
            ExplicitTransactions.Step s = transactions.open(r.statements(), as);
            String url = base + "/db/" + db + "/tx/" + s.id();
            return step(s, r, url, true).withLocation(url);
        });
    }

    Reply run(String db, String base, String id, byte[] body, Caller caller) {
        return answer(db, id, body, r -> step(transactions.run(id, r.statements(), caller), r,
                base + "/db/" + db + "/tx/" + id, false));
    }

    Reply commit(String db, String base, String id, byte[] body, Caller caller) {
        return answer(db, id, body, r -> {
            ExplicitTransactions.Step s = transactions.commit(id, r.statements(), caller);
            Map<String, Object> out = ClassicFormat.envelope(s.results(), r.options(), s.failure(), writes.database());
            out.put("commit", base + "/db/" + db + "/tx/" + id + "/commit");
            if (!s.failed()) {
                out.put("lastBookmarks", List.of());
            }
            return Reply.json(200, out);
        });
    }

    Reply rollback(String db, String id, Caller caller) {
        return answer(db, id, new byte[0], r -> {
            transactions.rollback(id, caller);
            return Reply.json(200, ClassicFormat.envelope(null));
        });
    }

    @FunctionalInterface
    private interface Action {
        Reply run(ClassicFormat.Request r) throws GraphException;
    }

    private Reply answer(String db, String id, byte[] body, Action action) {
        if (id != null && !isNumber(id)) {
            return Reply.errorsOnly(404, Neo4jError.invalid("Not Found")); // as Neo4j's router: no such resource
        }
        if (!db.equals(writes.database())) {
            return ClassicFormat.error(404, Api.databaseNotFound(db, writes.database()));
        }
        ClassicFormat.Request r;
        try {
            r = ClassicFormat.parse(body);
        } catch (BadRequest e) {
            return ClassicFormat.error(200, Neo4jError.invalidFormat(e.getMessage()));
        }
        try {
            return action.run(r);
        } catch (GraphException e) {
            return refused(e.error());
        }
    }

    /** Why no statement ran: not found or in use 404, sluice's bounds 503, anything else 200 as Neo4j. */
    private Reply refused(Neo4jError e) {
        Reply r = ClassicFormat.error(Reply.classicRefusalStatus(e, transactions.isNotFound(e)), e);
        return e.isTransient() ? r.retryAfter(1) : r;
    }

    private Reply step(ExplicitTransactions.Step s, ClassicFormat.Request r, String txUrl, boolean created) {
        Map<String, Object> out = ClassicFormat.envelope(s.results(), r.options(), s.failure(), writes.database());
        out.put("commit", txUrl + "/commit");
        if (!s.failed()) {
            out.put("transaction", Map.of("expires", ClassicFormat.expires(s.expires())));
        }
        return Reply.json(created ? 201 : 200, out);
    }

    private static boolean isNumber(String id) {
        if (id.isEmpty() || id.length() > 18) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            if (!Character.isDigit(id.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
