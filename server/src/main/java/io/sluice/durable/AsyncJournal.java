package io.sluice.durable;

import io.sluice.write.Outcome;
import io.sluice.write.WriteRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Where {@code mode=async} writes go: a durable log that acknowledges a write once it cannot be lost and applies it
 * later, exactly once, with a bounded backlog. Two implementations: the local journal ({@link AsyncPath}) and Kafka
 * (the {@code KafkaJournal} of package {@code kafka}), chosen by config. Thread-safe.
 */
public interface AsyncJournal extends AutoCloseable {

    /** Makes the request durable: Accepted (its place in the log), Overloaded at the backlog's bound, or Failed. */
    Outcome submit(WriteRequest r);

    /**
     * {@link #submit} without blocking the caller (an HTTP I/O thread): the future completes with what
     * {@code submit} would have returned, on a thread of the journal's (what is chained to it must be short).
     * Null when it cannot be done without waiting (the backlog is at its bound, or this journal only blocks):
     * the caller then calls {@code submit} on a thread that may block.
     */
    default CompletableFuture<Outcome> submitNow(WriteRequest r) {
        return null;
    }

    /**
     * Waits up to {@code wait} for the record at ({@code partition}, {@code offset}) to be applied (committed or
     * dead-lettered). The local journal has one partition, numbered -1 or 0.
     */
    boolean awaitApplied(int partition, long offset, Duration wait) throws InterruptedException;

    /** The highest applied offset of {@code partition} (-1: none). */
    long appliedOffset(int partition);

    /** Unapplied records (Kafka) or rows (the local journal), for the gauges, /health and backpressure. */
    long lagRows();

    long lagBytes();

    long deadLetterCount();

    /** Dead letters from {@code from} on, at most {@code limit}, oldest first. */
    List<Map<String, Object>> deadLetters(long from, int limit) throws IOException;

    /** The applier's transient retries, per Neo4j status code. */
    Map<String, Long> transientRetries();

    /** Fields of its own for /health (next and applied offsets, batch limit, ...). */
    Map<String, Object> describe();

    /** Refuses new writes from now on (and wakes those waiting at the bound); applying goes on. */
    void stopAccepting();

    /** Refuses new writes, stops applying after the batch in flight, releases what it holds. */
    @Override
    void close();
}
