package io.sluice.durable;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The highest journal offset processed (committed, or dead-lettered) by the applier; readers wait on it for
 * read-your-writes. Thread-safe.
 */
final class AppliedWatermark {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition advanced = lock.newCondition();
    private long applied;

    AppliedWatermark(long initial) {
        this.applied = initial;
    }

    void advanceTo(long offset) {
        lock.lock();
        try {
            if (offset > applied) {
                applied = offset;
                advanced.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    long get() {
        lock.lock();
        try {
            return applied;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until {@code offset} is applied or {@code wait} passes; true if applied. */
    boolean await(long offset, Duration wait) throws InterruptedException {
        long left = wait.toNanos();
        lock.lock();
        try {
            while (applied < offset) {
                if (left <= 0) {
                    return false;
                }
                left = advanced.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }
}
