package io.sluice.batch;

import io.sluice.time.Time;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Collects admitted requests and hands them out as batches, one transaction each.
 *
 * <h2>Design</h2>
 * Writers {@link #enqueue} into one FIFO queue (memory is bounded before this, by {@link Admission}). Appliers
 * call {@link #take}; a batch is ready when the queue holds {@code maxRows} rows, or when its oldest request has
 * waited {@code maxWait}, or when the batcher is closing. This is natural batching: while an applier is busy
 * committing, requests pile up, and the next batch takes them all (up to {@code maxRows}); when the applier is
 * idle, {@code maxWait} is the only latency a lone write pays. So batch size follows load without tuning.
 *
 * <p>A batch never splits a request (a request is atomic) and takes at least one request, even one larger than
 * {@code maxRows}. Requests leave the queue in arrival order, so writes are applied in the order they were
 * admitted as long as batches are applied one after another: each partition has one batcher and one applier.
 *
 * <p>Readiness is decided by {@link #poll()}, which never blocks and reads time from the injected
 * {@link Time}; {@link #take} is a thin blocking loop around it. Tests drive {@code poll} with a manual clock.
 *
 * <p>Thread-safe: one lock guards the queue; writers signal appliers when a batch may have become ready.
 */
public final class Batcher {
    private volatile int maxRows;
    private final long maxWaitNanos;
    private final Time time;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private long queuedRows;
    private boolean closed;

    public Batcher(int maxRows, Duration maxWait, Time time) {
        if (maxRows < 1) {
            throw new IllegalArgumentException("maxRows must be >= 1, got " + maxRows);
        }
        this.maxRows = maxRows;
        this.maxWaitNanos = maxWait.toNanos();
        this.time = time;
    }

    /** Changes the row limit (the adaptive batch size); takes effect for the next batch. */
    public void setMaxRows(int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("maxRows must be >= 1, got " + rows);
        }
        maxRows = rows;
    }

    public int maxRows() {
        return maxRows;
    }

    /** Adds an admitted request. Refused (false) once closed: the caller must then answer it itself. */
    public boolean enqueue(Pending p) {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            queue.addLast(p);
            queuedRows += p.rows();
            if (queue.size() == 1 || queuedRows >= maxRows) {
                changed.signal();
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** A batch if one is ready now, else an empty list. Never blocks. */
    public List<Pending> poll() {
        lock.lock();
        try {
            return ready() ? drain() : List.of();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits up to {@code maxBlock} for a ready batch. Returns an empty list on time-out, or when closed and
     * drained (then {@link #isDrained()} is true).
     */
    public List<Pending> take(Duration maxBlock) throws InterruptedException {
        lock.lock();
        try {
            long deadline = time.nanos() + maxBlock.toNanos();
            while (!ready()) {
                if (closed && queue.isEmpty()) {
                    return List.of();
                }
                long now = time.nanos();
                long wait = deadline - now;
                if (wait <= 0) {
                    return List.of();
                }
                if (!queue.isEmpty()) {
                    wait = Math.min(wait, queue.peekFirst().enqueuedNanos() + maxWaitNanos - now);
                }
                if (wait > 0) {
                    changed.awaitNanos(wait);
                }
            }
            return drain();
        } finally {
            lock.unlock();
        }
    }

    private boolean ready() {
        if (queue.isEmpty()) {
            return false;
        }
        return closed || queuedRows >= maxRows || time.nanos() - queue.peekFirst().enqueuedNanos() >= maxWaitNanos;
    }

    private List<Pending> drain() {
        List<Pending> batch = new ArrayList<>();
        long rows = 0;
        while (!queue.isEmpty()) {
            Pending next = queue.peekFirst();
            if (!batch.isEmpty() && rows + next.rows() > maxRows) {
                break;
            }
            queue.pollFirst();
            rows += next.rows();
            batch.add(next);
        }
        queuedRows -= rows;
        if (!queue.isEmpty()) {
            changed.signal(); // more may be ready for another applier
        }
        return batch;
    }

    /** Stops accepting; what is queued is still handed out. Wakes every waiting applier. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Closed and nothing left to hand out. */
    public boolean isDrained() {
        lock.lock();
        try {
            return closed && queue.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /**
     * How many appliers wait in {@link #take} at this moment. For tests: an applier counted here is parked on
     * the condition, so only a signal (a write, close) or its own deadline can wake it.
     */
    int waiters() {
        lock.lock();
        try {
            return lock.getWaitQueueLength(changed);
        } finally {
            lock.unlock();
        }
    }

    public long queuedRows() {
        lock.lock();
        try {
            return queuedRows;
        } finally {
            lock.unlock();
        }
    }
}
