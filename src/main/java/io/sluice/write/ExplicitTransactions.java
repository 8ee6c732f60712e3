package io.sluice.write;

import io.sluice.config.Access;
import io.sluice.sink.Neo4jError;
import io.sluice.sink.SinkException;
import io.sluice.sink.StatementResult;
import java.time.Instant;
import java.util.List;

/**
 * Explicit transactions of one of Neo4j's HTTP APIs (the Query API's {@code /db/{db}/query/v2/tx...}, the classic
 * {@code /db/{db}/tx...}): real Neo4j transactions held open for one caller between requests, never part of a group
 * commit (the caller reads its results before it commits). Bounded, expiring when idle, rolled back at shutdown.
 * A failing statement rolls the transaction back and ends it, as Neo4j does: the step then carries the results of
 * the statements before it and the error. {@code owner} is whoever opened it; anyone else gets "not found".
 * Thread-safe.
 */
public interface ExplicitTransactions {

    /**
     * What a request did: the results of its statements in order (fewer than it sent when one failed), the
     * failure that ended the transaction ({@code null} when none did), the transaction's id, and when it expires if
     * left idle now.
     */
    record Step(List<StatementResult> results, Neo4jError failure, String id, Instant expires) {
        public Step {
            results = List.copyOf(results);
        }

        public boolean failed() {
            return failure != null;
        }
    }

    /**
     * Opens one and runs {@code statements} in it; {@code access} decides read or write. Throws when none could be
     * opened (the bound, shutdown, a user who may not).
     */
    Step open(List<Statement> statements, Access access, Object owner) throws SinkException;

    /** Runs {@code statements} in it (none: only keeps it alive). Throws when it is not found or in use. */
    Step run(String id, List<Statement> statements, Object owner) throws SinkException;

    /** Runs {@code statements}, then commits unless one failed (a failed commit is the step's failure). */
    Step commit(String id, List<Statement> statements, Object owner) throws SinkException;

    void rollback(String id, Object owner) throws SinkException;

    /** Whether {@code e} says the transaction is unknown, expired, finished or another caller's (HTTP 404). */
    boolean isNotFound(Neo4jError e);
}
