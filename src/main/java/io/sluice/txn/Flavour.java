package io.sluice.txn;

import io.sluice.sink.Neo4jError;
import io.sluice.sink.Neo4jStatus;
import java.time.Duration;

/**
 * Which of Neo4j's HTTP APIs a registry serves: it decides the ids, the default idle timeout and how the
 * registry's own refusals read, each as Neo4j 2026.08 answers (captured in the HTTP API research notes, sections 3
 * and 4). The HTTP status for each is the endpoint's business.
 */
public enum Flavour {
    /** The Query API ({@code /db/{db}/query/v2/tx}): 6 random lowercase hex characters, 60 s idle. */
    QUERY_API(Duration.ofSeconds(60)) {
        @Override
        Neo4jError notFound(String id) {
            return Neo4jError.invalid("Transaction with Id: \"" + id + "\" was not found. It may have timed out and"
                    + " therefore rolled back or the routing header 'neo4j-cluster-affinity' was not provided.");
        }

        @Override
        Neo4jError inUse() {
            return new Neo4jError(CONCURRENT, "Another request is currently accessing this transaction.");
        }
    },
    /** The classic transactional API ({@code /db/{db}/tx}): sequential numbers from 1, 30 s idle. */
    CLASSIC(Duration.ofSeconds(30)) {
        @Override
        Neo4jError notFound(String id) {
            return new Neo4jError(Neo4jStatus.Transaction.TRANSACTION_NOT_FOUND,
                    "Unrecognized transaction id. Transaction may have timed out and been rolled back.");
        }

        @Override
        Neo4jError inUse() {
            return new Neo4jError(CONCURRENT, "The requested transaction is being used concurrently by another request.");
        }
    };

    static final String CONCURRENT = Neo4jStatus.Transaction.TRANSACTION_ACCESSED_CONCURRENTLY;

    private final Duration defaultIdleTimeout;

    Flavour(Duration defaultIdleTimeout) {
        this.defaultIdleTimeout = defaultIdleTimeout;
    }

    /** Neo4j's default ({@code server.queryapi.transaction_idle_timeout} / {@code server.http.transaction_idle_timeout}). */
    public Duration defaultIdleTimeout() {
        return defaultIdleTimeout;
    }

    /** Unknown, expired, finished, or another caller's. */
    abstract Neo4jError notFound(String id);

    /** Whether {@code e} is this flavour's "not found" (whatever the id). */
    public boolean isNotFound(Neo4jError e) {
        Neo4jError probe = notFound("");
        return e.code().equals(probe.code()) && e.message().startsWith(probe.message().substring(0, 16));
    }

    /** A request is already running in the transaction. */
    abstract Neo4jError inUse();

    /** Past the bound on open transactions: Neo4j's kernel limit's code and message. */
    public static Neo4jError limitReached(int max) {
        return new Neo4jError(Neo4jStatus.Transaction.MAXIMUM_TRANSACTION_LIMIT_REACHED,
                "Unable to start new transaction since limit of concurrently executed transactions is reached."
                        + " See sluice's limit on open explicit transactions (" + max + ").");
    }

    /** After {@link TxRegistry#close}: the transaction, if there was one, was rolled back. */
    static Neo4jError closed() {
        return new Neo4jError(Neo4jStatus.General.DATABASE_UNAVAILABLE,
                "sluice is shutting down: open transactions have been rolled back and no new one can begin");
    }
}
