package io.sluice.consumer;

import io.sluice.time.Time;
import java.time.Duration;
import org.apache.kafka.common.TopicPartition;

/**
 * A partition a {@link GroupConsumer} owns, and where it stands: its next offset to apply, whether it is paused (an
 * outage being retried, or a hold at a record) and why, its end offset and the head record's age (for the lag).
 * Written by the consumer's thread and its Neo4j worker (the position as batches commit, a hold), the end by whoever
 * reads the brokers' end offsets; read by status from others.
 */
public final class Partition {
    static final Duration FIRST_BACKOFF = Duration.ofMillis(500);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

    private final TopicPartition tp;
    volatile long next = -1;
    private volatile long end = -1;
    volatile long fetched = -1; // the consumer's position after a poll's records were all applied
    long fetchedAhead = -1; // the same, read before the next poll was taken ahead (the consumer's thread only)
    volatile long headTimestamp = -1;
    volatile long pausedUntil; // nanos; 0: not paused
    volatile String pausedFor;
    private volatile Duration backoff = FIRST_BACKOFF;
    volatile long holdUntil; // nanos; set by a dead-letter callback that refused, read after the batch

    Partition(TopicPartition tp) {
        this.tp = tp;
    }

    public TopicPartition tp() {
        return tp;
    }

    /** The next offset to apply (-1 until its position was read). */
    public long next() {
        return next;
    }

    public boolean paused() {
        return pausedUntil != 0;
    }

    /** Why it is paused, or null. */
    public String pausedFor() {
        return pausedUntil == 0 ? null : pausedFor;
    }

    /** The partition's end offset, as the brokers last said (-1: not known yet). */
    public void end(long end) {
        this.end = end;
    }

    /**
     * Holds the partition at the record being applied until {@code untilNanos} (of the consumer's clock), saying
     * why: for a dead-letter callback that does not move past its record. After the batch, the consumer pauses the
     * partition until then, and then retries from the graph's position.
     */
    public void hold(long untilNanos, String why) {
        holdUntil = untilNanos;
        pausedFor = why;
    }

    /** The wait before the next retry; the one after waits twice as long (up to 30 s). */
    public Duration backoffThenGrow() {
        Duration now = backoff;
        Duration twice = now.multipliedBy(2);
        backoff = twice.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : twice;
        return now;
    }

    Duration backoff() {
        return backoff;
    }

    /** Applied: the next wait starts from the first again. */
    void progressed() {
        backoff = FIRST_BACKOFF;
        pausedFor = null;
    }

    /** Records between its position and the end; NaN while either is unknown. */
    public Number lagRecords() {
        if (end < 0 || next < 0) {
            return Double.NaN;
        }
        // all applied and the consumer past them: what is left before the end is no record (a transaction's marker)
        long applied = pausedUntil == 0 && fetched >= next ? fetched : next;
        return Math.max(0, end - applied);
    }

    /** The age of the oldest record fetched and not applied yet, in seconds; 0 when none is left. */
    public Number lagSeconds(Time time) {
        Number records = lagRecords();
        if (records.doubleValue() == 0) {
            return 0;
        }
        return headTimestamp < 0 ? Double.NaN : Math.max(0, time.now().toEpochMilli() - headTimestamp) / 1000.0;
    }
}
