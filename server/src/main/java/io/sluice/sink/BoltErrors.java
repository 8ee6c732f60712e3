package io.sluice.sink;

import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import org.neo4j.driver.exceptions.ClientException;
import org.neo4j.driver.exceptions.DiscoveryException;
import org.neo4j.driver.exceptions.Neo4jException;
import org.neo4j.driver.exceptions.RetryableException;
import org.neo4j.driver.exceptions.ServiceUnavailableException;
import org.neo4j.driver.exceptions.SessionExpiredException;

/**
 * The Java driver's failures in Neo4j's terms, for {@link BoltSink}: what the server reports keeps its code; a lost
 * connection is {@code Neo.TransientError.General.DatabaseUnavailable}, so it is retried; lost while committing,
 * the outcome is unknown ({@link GraphException#commitOutcomeUnknown()}) and must not be blindly retried.
 */
final class BoltErrors {
    static final String UNAVAILABLE = Neo4jStatus.General.DATABASE_UNAVAILABLE;

    private BoltErrors() {}

    /**
     * A driver failure in Neo4j's terms. {@code committing}: the failure came from a commit (or an auto-commit
     * statement), so a lost connection means the outcome is unknown.
     */
    static GraphException translate(RuntimeException e, boolean committing) {
        if (e instanceof FailedWhileRead f && f.getCause() instanceof RuntimeException cause) {
            return translate(cause, committing).withPartial(f.partial());
        }
        ResultBudget.Exceeded big = ResultBudget.Exceeded.in(e);
        if (big != null) {
            return new GraphException(big.error(), e);
        }
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        if (e instanceof ServiceUnavailableException || e instanceof SessionExpiredException
                || e instanceof DiscoveryException) {
            return lostConnection(e, message, committing);
        }
        String code = e instanceof Neo4jException n ? n.code() : null;
        if (code != null && code.startsWith(Neo4jStatus.PREFIX)) {
            return new GraphException(new Neo4jError(code, message), e); // the server said so: the outcome is known
        }
        if (e instanceof RetryableException) {
            return new GraphException(new Neo4jError(Neo4jStatus.Sluice.TRANSIENT_FAILURE, message), e);
        }
        if (e instanceof ClientException) {
            return new GraphException(Neo4jError.invalid(message), e); // refused by the driver, e.g. a parameter type
        }
        if (committing) {
            return lostConnection(e, message, true); // no word from the server about the commit: assume the worst
        }
        return new GraphException(Neo4jError.unknown(message), e);
    }

    private static GraphException lostConnection(RuntimeException e, String message, boolean committing) {
        if (committing) {
            return new GraphException(Neo4jError.commitOutcomeUnknown("the connection to Neo4j was lost while"
                    + " committing: " + message), e, true);
        }
        return new GraphException(new Neo4jError(UNAVAILABLE, "Neo4j is not reachable: " + message), e);
    }
}
