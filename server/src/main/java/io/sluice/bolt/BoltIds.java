package io.sluice.bolt;

import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.write.IdScheme;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Bolt's explicit transactions in the write path's registry: ids never leave sluice (a Bolt transaction is its
 * connection's), so they are sequence numbers. A transaction left idle past {@code transactions.idle_timeout}
 * (the Query API's bound, which Bolt shares) is rolled back; its connection's next message in it then fails with
 * {@code Neo.ClientError.Transaction.TransactionNotFound}, as an expired HTTP transaction does.
 */
public enum BoltIds implements IdScheme {
    INSTANCE;

    @Override
    public String label() {
        return "bolt";
    }

    @Override
    public Duration defaultIdleTimeout() {
        return Duration.ofSeconds(60);
    }

    @Override
    public Duration sweepEvery(Duration idleTimeout) {
        Duration tenth = idleTimeout.dividedBy(10);
        return tenth.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : tenth;
    }

    @Override
    public String newId(long sequence, RandomGenerator random) {
        return Long.toString(sequence);
    }

    @Override
    public Neo4jError notFound(String id) {
        return new Neo4jError(Neo4jStatus.Transaction.TRANSACTION_NOT_FOUND,
                "The transaction was rolled back: it was idle longer than transactions.idle_timeout, or it ended.");
    }

    @Override
    public Neo4jError inUse() {
        return new Neo4jError(Neo4jStatus.Transaction.TRANSACTION_ACCESSED_CONCURRENTLY,
                "The transaction is being used concurrently by another request.");
    }

    /** The scheme, for the server that builds the registry. */
    public static IdScheme scheme() {
        return INSTANCE;
    }
}
