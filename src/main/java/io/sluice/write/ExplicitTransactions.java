package io.sluice.write;

import io.sluice.sink.Neo4jError;
import io.sluice.sink.SinkException;
import io.sluice.sink.StatementResult;
import java.time.Instant;

/**
 * Explicit transactions of Neo4j's Query API ({@code /db/{db}/query/v2/tx...}): real Neo4j transactions held open
 * for one caller between requests, never part of a group commit (the caller reads its results before it
 * commits). Bounded, expiring when idle, rolled back at shutdown. An error inside one rolls it back and ends it,
 * as Neo4j does. {@code owner} is whoever opened it; anyone else gets "not found". Thread-safe.
 */
public interface ExplicitTransactions {

    /** A step's result ({@code null} when the request ran no statement) and where the transaction stands. */
    record Step(StatementResult result, String id, Instant expires) {}

    /** Opens one, running {@code first} in it when not null; {@code access} decides read or write. */
    Step open(Statement first, Access access, Object owner) throws SinkException;

    /** Runs {@code statement} in it, or, when null, only keeps it alive. */
    Step run(String id, Statement statement, Object owner) throws SinkException;

    /** Runs {@code last} (when not null), then commits; returns {@code last}'s result or null. */
    StatementResult commit(String id, Statement last, Object owner) throws SinkException;

    void rollback(String id, Object owner) throws SinkException;

    /** Whether {@code e} says the transaction is unknown, expired, finished or another caller's (HTTP 404). */
    boolean isNotFound(Neo4jError e);
}
