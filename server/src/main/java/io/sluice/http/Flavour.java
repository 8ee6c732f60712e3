package io.sluice.http;

import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.write.IdScheme;
import java.time.Duration;
import java.util.Locale;
import java.util.random.RandomGenerator;

/**
 * Which of Neo4j's HTTP APIs a transaction registry serves: it decides the ids, the default idle timeout and how the
 * registry's own refusals read, each as Neo4j 2026.08 answers (captured in the HTTP API research notes, sections 3
 * and 4). The HTTP status for each is the endpoint's business.
 */
public enum Flavour implements IdScheme {
    /** The Query API ({@code /db/{db}/query/v2/tx}): 6 random lowercase hex characters, 60 s idle, swept every 5 s. */
    QUERY_API(Duration.ofSeconds(60)) {
        @Override
        public Neo4jError notFound(String id) {
            return Neo4jError.invalid("Transaction with Id: \"" + id + "\" was not found. It may have timed out and"
                    + " therefore rolled back or the routing header 'neo4j-cluster-affinity' was not provided.");
        }

        @Override
        public Neo4jError inUse() {
            return new Neo4jError(CONCURRENT, "Another request is currently accessing this transaction.");
        }

        @Override
        public String newId(long sequence, RandomGenerator random) {
            return String.format("%06x", random.nextInt(1 << 24));
        }

        @Override
        public Duration sweepEvery(Duration idleTimeout) {
            return Duration.ofSeconds(5);
        }
    },
    /** The classic transactional API ({@code /db/{db}/tx}): sequential numbers from 1, 30 s idle, swept every half. */
    CLASSIC(Duration.ofSeconds(30)) {
        @Override
        public Neo4jError notFound(String id) {
            return new Neo4jError(Neo4jStatus.Transaction.TRANSACTION_NOT_FOUND,
                    "Unrecognized transaction id. Transaction may have timed out and been rolled back.");
        }

        @Override
        public Neo4jError inUse() {
            return new Neo4jError(CONCURRENT, "The requested transaction is being used concurrently by another request.");
        }

        @Override
        public String newId(long sequence, RandomGenerator random) {
            return Long.toString(sequence);
        }

        @Override
        public Duration sweepEvery(Duration idleTimeout) {
            Duration half = idleTimeout.dividedBy(2);
            return half.isPositive() ? half : idleTimeout;
        }
    };

    static final String CONCURRENT = Neo4jStatus.Transaction.TRANSACTION_ACCESSED_CONCURRENTLY;

    private final Duration defaultIdleTimeout;

    Flavour(Duration defaultIdleTimeout) {
        this.defaultIdleTimeout = defaultIdleTimeout;
    }

    @Override
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Neo4j's default ({@code server.queryapi.transaction_idle_timeout} / {@code server.http.transaction_idle_timeout}). */
    @Override
    public Duration defaultIdleTimeout() {
        return defaultIdleTimeout;
    }
}
