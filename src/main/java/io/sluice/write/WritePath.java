package io.sluice.write;

import io.sluice.config.Access;
import io.sluice.config.Mode;
import java.util.Optional;

/**
 * The one interface through which the HTTP layer reaches the write path. {@link #execute} blocks the calling
 * (virtual) thread until the request has its {@link Outcome}, and never throws for a client's mistake.
 */
public interface WritePath {
    /** Runs {@code request} for a caller who may send everything (an in-process client such as the importer). */
    default Outcome execute(WriteRequest request, Mode mode) {
        return execute(request, mode, Access.CYPHER);
    }

    /** Runs {@code request} if {@code access} allows it; a refusal is {@code Neo.ClientError.Security.Forbidden}. */
    Outcome execute(WriteRequest request, Mode mode, Access access);

    /**
     * {@link #execute} without blocking the caller where the write path can: the outcome's future. What cannot
     * start without waiting (here, everything) runs on {@code blocking}, which may block.
     */
    default java.util.concurrent.CompletableFuture<Outcome> submit(WriteRequest request, Mode mode, Access access,
            java.util.concurrent.Executor blocking) {
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> execute(request, mode, access), blocking);
    }

    Optional<Template> template(String name);

    /** The database name requests must address (Neo4j Community has one user database). */
    String database();

    /**
     * Waits up to {@code wait} for the journal record at {@code offset} (of Kafka partition {@code partition}; -1
     * for the local journal) to be applied; reports where the applier is.
     */
    Applied awaitApplied(int partition, long offset, java.time.Duration wait) throws InterruptedException;

    /** What {@link #awaitApplied} found. */
    record Applied(long offset, boolean applied, long appliedOffset) {}

    /** Dead letters (writes that failed on apply), from the {@code from}-th, at most {@code limit}. */
    java.util.List<java.util.Map<String, Object>> deadLetters(long from, int limit) throws java.io.IOException;

    /**
     * Transient retries (deadlocks, lock timeouts ...) the write path has made since it started, per Neo4j status
     * code: what an in-process client such as the online importer reports.
     */
    java.util.Map<String, Long> transientRetries();

    /**
     * What Neo4j plans {@code cypher} as (read, write, alone), or null when it does not compile: from the same
     * cache the write path classifies with.
     */
    io.sluice.sink.QueryKind kind(String cypher);

    /** The Query API's explicit transactions ({@code /db/{db}/query/v2/tx...}). */
    ExplicitTransactions queryTransactions();

    /** The classic transactional API's explicit transactions ({@code /db/{db}/tx...}). */
    ExplicitTransactions classicTransactions();

    /** A snapshot for /health. */
    java.util.Map<String, Object> health();

    /**
     * Starts reading the database into Neo4j's page cache unless that runs already; answers at once:
     * {@code started} (whether this call started it) and the warm-up's state. /health says WARMING until it ends.
     */
    java.util.Map<String, Object> warmUp();
}
