package io.sluice.write;

import java.util.Optional;

/**
 * The one interface through which the HTTP layer reaches the write path. {@link #execute} blocks the calling
 * (virtual) thread until the request has its {@link Outcome}, and never throws for a client's mistake.
 */
public interface WritePath {
    Outcome execute(WriteRequest request, Mode mode);

    Optional<Template> template(String name);

    /** The database name requests must address (Neo4j Community has one user database). */
    String database();

    /** Waits up to {@code wait} for journal offset {@code offset} to be applied; reports where the applier is. */
    Applied awaitApplied(long offset, java.time.Duration wait) throws InterruptedException;

    /** What {@link #awaitApplied} found. */
    record Applied(long offset, boolean applied, long appliedOffset) {}

    /** Dead letters (writes that failed on apply), from the {@code from}-th, at most {@code limit}. */
    java.util.List<java.util.Map<String, Object>> deadLetters(long from, int limit) throws java.io.IOException;

    /**
     * Transient retries (deadlocks, lock timeouts ...) the write path has made since it started, per Neo4j status
     * code: what an in-process client such as the online importer reports.
     */
    java.util.Map<String, Long> transientRetries();

    /** A snapshot for /health. */
    java.util.Map<String, Object> health();
}
