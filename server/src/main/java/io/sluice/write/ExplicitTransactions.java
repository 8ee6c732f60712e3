package io.sluice.write;

import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import java.time.Instant;
import java.util.List;

/**
 * Explicit transactions, protocol-neutral: transactions held open for one caller between its requests (HTTP's
 * {@code /tx} endpoints, Bolt's BEGIN ... COMMIT): a real Neo4j transaction each, or, where {@code transactions.group}
 * says, a member of a group that shares one (the session layer's {@code ClientTransactions}). Bounded over all front
 * ends together, expiring when idle, rolled back at shutdown. A failing statement rolls the transaction back and ends
 * it, as Neo4j does: the step then carries the results of the statements before it and the error. A transaction is
 * its opener's ({@link Caller#owner()}); anyone else gets "not found". The id's form and the refusals' texts are the
 * front end's (each front end has its own instance). Thread-safe.
 */
public interface ExplicitTransactions {

    /**
     * What a request did: the results of its statements in order (fewer than it sent when one failed), the
     * failure that ended the transaction ({@code null} when none did), the transaction's id, when it expires if
     * left idle now, and what each statement run (the failed one too) was classified as, in order (a statement that
     * does not compile has no kind: {@link #kind} answers null); {@code partial}: the columns and rows the failed
     * statement gave before it failed at runtime (a read: {@code 10 / 0} on its third row), else null.
     */
    record Step(List<StatementResult> results, Neo4jError failure, String id, Instant expires,
            List<QueryKind> kinds, StatementResult partial) {
        public Step {
            results = List.copyOf(results);
            kinds = List.copyOf(kinds);
        }

        public Step(List<StatementResult> results, Neo4jError failure, String id, Instant expires,
                List<QueryKind> kinds) {
            this(results, failure, id, expires, kinds, null);
        }

        /** The kind of the statement at {@code i} (null: it does not compile). */
        public QueryKind kind(int i) {
            return i < kinds.size() ? kinds.get(i) : null;
        }

        public boolean failed() {
            return failure != null;
        }
    }

    /**
     * Opens one for {@code caller} and runs {@code statements} in it; the caller's access decides read or write.
     * Throws when none could be opened (the bound, shutdown, a user who may not).
     */
    Step open(List<Statement> statements, Caller caller) throws GraphException;

    /** Runs {@code statements} in it (none: only keeps it alive). Throws when it is not found or in use. */
    Step run(String id, List<Statement> statements, Caller caller) throws GraphException;

    /** Runs {@code statements}, then commits unless one failed (a failed commit is the step's failure). */
    Step commit(String id, List<Statement> statements, Caller caller) throws GraphException;

    void rollback(String id, Caller caller) throws GraphException;

    /**
     * Rolls back because the client went (its connection closed): as {@link #rollback}, counted as a disconnection
     * where that matters (a grouped transaction).
     */
    default void abandon(String id, Caller caller) throws GraphException {
        rollback(id, caller);
    }

    /**
     * Whether transaction {@code id} may still be running or used (not yet ended, or expired but not yet swept): a
     * front end keeping something beside a transaction drops it once this is false. Anyone's transaction.
     */
    boolean isOpen(String id);

    /** Whether {@code e} says the transaction is unknown, expired, finished or another caller's (HTTP 404). */
    boolean isNotFound(Neo4jError e);
}
