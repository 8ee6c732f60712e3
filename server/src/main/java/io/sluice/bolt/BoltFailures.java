package io.sluice.bolt;

import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.write.Outcome;

/**
 * The one translation of sluice's errors into Bolt's FAILUREs, and where in a statement's exchange one surfaces.
 * Drivers act on a FAILURE's classification by themselves (a managed transaction retries a transient one, a routing
 * driver forgets an address that answers {@code DatabaseUnavailable}), so what they are told must be what they may
 * safely do.
 */
final class BoltFailures {
    private BoltFailures() {}

    /**
     * What a driver is told for {@code failure}: a commit whose outcome is unknown is never transient (a retry could
     * apply it twice), and the database briefly unavailable is transient (sluice is this driver's only address, which
     * a routing driver would otherwise forget).
     */
    static Neo4jError told(Neo4jError failure) {
        if (failure.isCommitOutcomeUnknown()) {
            return new Neo4jError(Neo4jStatus.Transaction.TRANSACTION_COMMIT_FAILED, failure.message());
        }
        if (failure.code().equals(Neo4jStatus.General.DATABASE_UNAVAILABLE)) {
            return new Neo4jError(Neo4jStatus.Sluice.TRANSIENT_FAILURE, failure.message());
        }
        return failure;
    }

    /** A write refused at admission (full, or shutting down): transient, so drivers retry it after a while. */
    static Neo4jError overloaded(Outcome.Overloaded over) {
        return new Neo4jError(Neo4jStatus.Request.NO_THREADS_AVAILABLE, over.reason() + "; retry after "
                + over.retryAfter().toMillis() + " ms");
    }

    /**
     * Whether {@code e} is found before a statement runs (syntax, a parameter, access, admission, the database):
     * such an error fails the RUN, as does any error of a write (Neo4j runs writes eagerly, within RUN); only a read's
     * runtime error comes at its PULL, after a RUN SUCCESS.
     */
    static boolean failsBeforeRunning(Neo4jError e) {
        String code = e.code();
        return code.equals(Neo4jStatus.Statement.SYNTAX_ERROR) || code.equals(Neo4jStatus.Statement.SEMANTIC_ERROR)
                || code.equals(Neo4jStatus.Statement.PARAMETER_MISSING)
                || code.equals(Neo4jStatus.Statement.ACCESS_MODE)
                || code.startsWith(Neo4jStatus.Security.PREFIX)
                || code.startsWith(Neo4jStatus.Classification.CLIENT_ERROR + "Request.")
                || code.startsWith(Neo4jStatus.Classification.TRANSIENT_ERROR + "Request.")
                || code.equals(Neo4jStatus.Database.DATABASE_NOT_FOUND)
                || code.equals(Neo4jStatus.Transaction.FORBIDDEN_DUE_TO_TRANSACTION_TYPE)
                || code.equals(Neo4jStatus.Transaction.TRANSACTION_NOT_FOUND);
    }
}
