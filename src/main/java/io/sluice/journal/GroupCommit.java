package io.sluice.journal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group fsync: many appenders, few forces, and nobody acknowledged before the force that covers them.
 *
 * <h2>Design</h2>
 * State, under one lock: {@code durableOffset} (every record below it is on disk), {@code forcing} (a leader is
 * forcing now) and {@code failure}. An appender that has written its records calls {@link #awaitCommit} with
 * the offset just past them. If a force is in progress it waits on the condition; when none is, it becomes the
 * leader: it calls {@link Force#forceWritten()} <em>outside the lock</em>, which forces everything written so
 * far, by anyone, and returns how far that reaches. The leader publishes the new watermark and wakes everyone;
 * followers whose records are covered return, and the rest elect the next leader among themselves. While one
 * force runs, the next group collects, so the group size follows the load and there is no thread of our own,
 * no timer, and no waiting for a batch to fill.
 *
 * <p><b>Commit point:</b> {@code durableOffset} advances only after {@code forceWritten} has returned; an
 * append returns, and a reader may see a record, only once {@code durableOffset} is past it.
 *
 * <p><b>Failure:</b> if a force throws, the failure is recorded for good and every waiter not yet covered gets
 * an {@link IOException}; no later force is attempted (after a failed fsync the kernel may have dropped the
 * dirty pages and cleared the error, so a second fsync that succeeds proves nothing). The journal also records
 * write failures here through {@link #fail}. No waiter is ever left hanging: each returns, throws the failure,
 * or is woken by {@link #close}.
 *
 * <p>Thread-safe.
 */
final class GroupCommit {
    private static final Logger log = LoggerFactory.getLogger(GroupCommit.class);

    /** Forces every record written so far and returns the offset that all records below are now durable to. */
    @FunctionalInterface
    interface Force {
        long forceWritten(long durableOffset) throws IOException;
    }

    private final String name;
    private final Force force;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile long durableOffset; // written under lock
    private volatile IOException failure; // written under lock
    private boolean forcing; // guarded by lock
    private boolean closed; // guarded by lock

    GroupCommit(String name, long durableOffset, Force force) {
        this.name = name;
        this.durableOffset = durableOffset;
        this.force = force;
    }

    long durableOffset() {
        return durableOffset;
    }

    /** The failure that stopped the journal, or null. */
    IOException failure() {
        return failure;
    }

    /** Returns once every record below {@code end} is durable, leading a force when none is in progress. */
    void awaitCommit(long end) throws IOException {
        while (true) {
            lock.lock();
            try {
                while (durableOffset < end && forcing && failure == null) {
                    changed.await();
                }
                if (durableOffset >= end) {
                    return; // acknowledged: the covering force has returned
                }
                if (failure != null) {
                    throw new IOException(name + ": fsync failed; records up to offset " + (end - 1)
                            + " are not acknowledged", failure);
                }
                forcing = true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException(name + ": interrupted waiting for fsync; records up to offset "
                        + (end - 1) + " are not acknowledged but may still become durable");
            } finally {
                lock.unlock();
            }
            lead();
        }
    }

    /** As leader: force outside the lock, then publish the covered offset or the failure, and wake all. */
    private void lead() {
        long covered = -1;
        IOException error = null;
        try {
            covered = force.forceWritten(durableOffset);
        } catch (IOException e) {
            error = e;
        } catch (RuntimeException | Error e) {
            error = new IOException("force threw " + e, e);
            throw e;
        } finally {
            lock.lock();
            try {
                forcing = false;
                if (covered >= 0) {
                    durableOffset = Math.max(durableOffset, covered); // commit point
                } else {
                    record(error);
                }
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Fails the journal (a write went wrong): waiters not yet covered get {@code cause}. */
    void fail(IOException cause) {
        lock.lock();
        try {
            record(cause);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void record(IOException cause) { // under lock
        if (failure == null) {
            failure = cause;
            log.error("{} failed with records below offset {} durable; refusing appends until reopened", name,
                    durableOffset, cause);
        }
    }

    /** Waits until {@code durableOffset > offset}; false on timeout; throws if failed or closed before. */
    boolean awaitDurable(long offset, Duration timeout) throws IOException, InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while (durableOffset <= offset) {
                if (failure != null) {
                    throw new IOException(name + " has failed; offset " + offset + " will not become durable",
                            failure);
                }
                if (closed) {
                    throw new IOException(name + " is closed");
                }
                if (nanos <= 0) {
                    return false;
                }
                nanos = changed.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits (bounded) for a force in flight, so the files are not closed under it, and wakes every
     * {@link #awaitDurable} waiter to see the close.
     */
    void close(Duration maxWait) {
        lock.lock();
        try {
            closed = true;
            long nanos = maxWait.toNanos();
            while (forcing && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            if (forcing) {
                log.warn("{}: a force is still running after {}; closing the files under it", name, maxWait);
            }
            changed.signalAll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }
}
