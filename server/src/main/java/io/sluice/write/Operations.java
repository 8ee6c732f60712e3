package io.sluice.write;

import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an operator (or a client waiting for its async writes) asks of the write path, beside the writes
 * themselves: health, warm-up, where the appliers stand, dead letters, transient retries. Protocol-neutral; the
 * HTTP front end serves it at {@code /health}, {@code /status}, {@code /db/{db}/warmup}, {@code /db/{db}/applied}
 * and {@code /db/{db}/dead-letters}. Thread-safe.
 */
public interface Operations {

    /** A snapshot for /health. */
    Health health();

    /**
     * Starts reading the database into Neo4j's page cache unless that runs already; answers at once. /health says
     * WARMING until it ends.
     */
    WarmUp warmUp();

    /** What {@link #warmUp} did: whether this call started it, and the warm-up's state. */
    record WarmUp(boolean started, Map<String, Object> state) {
        public WarmUp {
            state = Collections.unmodifiableMap(new LinkedHashMap<>(state));
        }
    }

    /**
     * Waits up to {@code wait} for the journal record at {@code offset} (of Kafka partition {@code partition}; -1
     * for the local journal) to be applied; reports where the applier is.
     */
    Applied awaitApplied(int partition, long offset, Duration wait) throws InterruptedException;

    /** What {@link #awaitApplied} found. */
    record Applied(long offset, boolean applied, long appliedOffset) {}

    /** Dead letters (writes that failed on apply), from the {@code from}-th, at most {@code limit}. */
    List<Map<String, Object>> deadLetters(long from, int limit) throws IOException;

    /**
     * Transient retries (deadlocks, lock timeouts ...) the write path has made since it started, per Neo4j status
     * code: what an in-process client such as the online importer reports.
     */
    Map<String, Long> transientRetries();
}
