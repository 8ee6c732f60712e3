package io.sluice.sink;

import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.graphdb.TransientFailureException;
import org.neo4j.kernel.api.exceptions.Status;

/** The embedded Neo4j's failures as sluice's errors ({@link EmbeddedSink}'s; {@link BoltErrors} for Bolt's). */
final class EmbeddedErrors {
    private EmbeddedErrors() {}

    /** A call on a transaction already committed or rolled back (a caller's bug: the registry forgets those). */
    static GraphException finishedError() {
        return new GraphException(Neo4jError.invalid("the transaction has already been committed or rolled back"), null);
    }

    /**
     * Neo4j's status code for a failure, found by walking the cause chain: a transient code anywhere in the
     * chain wins (a deadlock inside {@code CALL {} IN TRANSACTIONS} arrives wrapped in a non-transient one).
     */
    static GraphException translate(Throwable e) {
        if (e instanceof FailedWhileRead f) {
            return translate(f.getCause()).withPartial(f.partial());
        }
        ResultBudget.Exceeded big = ResultBudget.Exceeded.in(e);
        if (big != null) {
            return new GraphException(big.error(), e);
        }
        Neo4jError first = null;
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String code = null;
            if (c instanceof Status.HasStatus hs && hs.status() != null) {
                code = hs.status().code().serialize();
            } else if (c instanceof QueryExecutionException q && q.getStatusCode() != null) {
                code = q.getStatusCode();
            } else if (c instanceof TransientFailureException) {
                code = Neo4jStatus.Sluice.TRANSIENT_FAILURE;
            }
            if (code == null) {
                continue;
            }
            Neo4jError err = new Neo4jError(code, c.getMessage());
            if (err.isTransient()) {
                return new GraphException(err, e);
            }
            if (first == null) {
                first = err;
            }
        }
        if (first == null && badCsv(e)) {
            // LOAD CSV of a malformed file: Neo4j's CSV reader throws without a status; the file is the client's
            first = new Neo4jError(Neo4jStatus.Statement.EXTERNAL_RESOURCE_FAILED, String.valueOf(e.getMessage()));
        }
        return new GraphException(first != null ? first
                : Neo4jError.unknown(String.valueOf(e)), e);
    }

    /** A {@code LOAD CSV} whose file could not be read as CSV (Neo4j's CSV reader threw). */
    private static boolean badCsv(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c.getClass().getName().startsWith("org.neo4j.csv.reader.")) {
                return true;
            }
        }
        return false;
    }
}
