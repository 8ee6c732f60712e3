package io.sluice.batch;

import io.sluice.time.Time;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A two-dimensional bound on pending work (rows and bytes). {@link #acquire} waits up to a timeout for room;
 * {@link #release} gives it back. A single request larger than a bound is admitted when nothing else is
 * pending, so it cannot starve forever (the body-size limit keeps it finite). Thread-safe.
 */
public final class Admission {
    private final long maxRows;
    private final long maxBytes;
    private final Time time;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private long rows;
    private long bytes;
    private boolean closed;

    public Admission(long maxRows, long maxBytes, Time time) {
        if (maxRows < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("admission bounds must be >= 1, got rows=" + maxRows + " bytes=" + maxBytes);
        }
        this.maxRows = maxRows;
        this.maxBytes = maxBytes;
        this.time = time;
    }

    /** The result of an {@link #acquire}: admitted, or refused because full or closed. */
    public enum Result { ADMITTED, FULL, CLOSED }

    public Result acquire(long r, long b, Duration timeout) throws InterruptedException {
        lock.lock();
        try {
            long deadline = time.nanos() + timeout.toNanos();
            while (!closed && !fits(r, b)) {
                long left = deadline - time.nanos();
                if (left <= 0) {
                    return Result.FULL;
                }
                released.awaitNanos(left);
            }
            if (closed) {
                return Result.CLOSED;
            }
            rows += r;
            bytes += b;
            return Result.ADMITTED;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@link #acquire} without waiting: FULL unless the work fits now and nobody waits in {@link #acquire} (a
     * caller that cannot wait would otherwise take the room a waiter was woken for, again and again).
     */
    public Result tryAcquire(long r, long b) {
        lock.lock();
        try {
            if (closed) {
                return Result.CLOSED;
            }
            if (!fits(r, b) || lock.hasWaiters(released)) {
                return Result.FULL;
            }
            rows += r;
            bytes += b;
            return Result.ADMITTED;
        } finally {
            lock.unlock();
        }
    }

    private boolean fits(long r, long b) {
        boolean empty = rows == 0 && bytes == 0;
        return empty || (rows + r <= maxRows && bytes + b <= maxBytes);
    }

    /** Counts work that is already pending whatever the bounds (a journal backlog found at start-up). */
    public void forceAcquire(long r, long b) {
        lock.lock();
        try {
            rows += r;
            bytes += b;
        } finally {
            lock.unlock();
        }
    }

    public void release(long r, long b) {
        lock.lock();
        try {
            rows -= r;
            bytes -= b;
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sets what is pending to a measurement taken elsewhere (a backlog applied by others too: the fleet's lag on
     * Kafka, re-read from the broker and the graph); waiters see the new figure at once.
     */
    public void reset(long r, long b) {
        lock.lock();
        try {
            rows = r;
            bytes = b;
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Refuses every waiting and future {@link #acquire}; releases still work. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public long pendingRows() {
        lock.lock();
        try {
            return rows;
        } finally {
            lock.unlock();
        }
    }

    public long pendingBytes() {
        lock.lock();
        try {
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    /**
     * How many threads wait in {@link #acquire} for room at this moment. For tests: a waiter counted here is
     * parked on the condition, so only a wake-up (release or close) or its own timeout can let it go.
     */
    int waiters() {
        lock.lock();
        try {
            return lock.getWaitQueueLength(released);
        } finally {
            lock.unlock();
        }
    }

    /** A hint for Retry-After: the configured wait, rounded up to whole seconds, at least one. */
    public static long retryAfterSeconds(Duration timeout) {
        return Math.max(1, (timeout.toMillis() + 999) / 1000);
    }

}
