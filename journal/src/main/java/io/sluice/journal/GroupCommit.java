package io.sluice.journal;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
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
 * leader: it calls {@link Force#forceWritten(long)} <em>outside the lock</em>, which forces everything written so
 * far, by anyone, and returns how far that reaches. The leader publishes the new watermark and wakes everyone;
 * followers whose records are covered return, and the rest elect the next leader among themselves. While one
 * force runs, the next group collects, so the group size follows the load and there is no thread of our own,
 * no timer, and no waiting for a batch to fill.
 *
 * <p><b>Appends that wait on no thread</b> ({@link #enqueue}): the appender leaves a future in a queue, in
 * offset order, and goes on; whoever's force covers it (a blocking appender leading, or the syncer) completes it
 * once the force has returned. The syncer is a platform thread of this object's own, started at the first
 * such append: it leads a force whenever futures are queued and none is running, so those appends form groups
 * the same way (while one force runs, the next group collects). Completing a future runs what the appender
 * chained to it on the completing thread: that must be short (hand it to another thread).
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
    /** Appends that wait on no thread, in offset order. */
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>(); // guarded by lock
    /** Signalled for the syncer: a waiter queued, or a force finished with waiters left. */
    private final Condition queued = lock.newCondition();
    private final ThreadFactory threads;
    private Thread syncer; // guarded by lock; null until the first enqueue

    private record Waiter(long first, long end, CompletableFuture<Long> future) { }

    /** {@code threads} makes the syncer (see {@link #enqueue}). */
    GroupCommit(String name, long durableOffset, Force force, ThreadFactory threads) {
        this.name = name;
        this.durableOffset = durableOffset;
        this.force = force;
        this.threads = threads;
    }

    /**
     * Completes {@code future} with {@code first} once every record below {@code end} is durable, or
     * exceptionally with the failure that stops the journal (or its close). Called in offset order (under the
     * journal's write lock, right after the records were written); never blocks on a force.
     */
    void enqueue(long first, long end, CompletableFuture<Long> future) {
        IOException refused = null;
        lock.lock();
        try {
            if (failure != null) {
                refused = notAcknowledged(end, failure);
            } else if (closed) {
                refused = new IOException(name + " is closed; records up to offset " + (end - 1)
                        + " are not acknowledged");
            } else {
                waiters.add(new Waiter(first, end, future));
                if (syncer == null) { // set once started: if start throws, the next enqueue tries again
                    Thread t = threads.newThread(this::sync);
                    t.start();
                    syncer = t;
                }
                if (!forcing) {
                    queued.signal();
                }
            }
        } finally {
            lock.unlock();
        }
        if (refused != null) {
            future.completeExceptionally(refused);
        }
    }

    /** The syncer's loop: leads a force whenever waiters are queued and none is running; ends at close or failure. */
    private void sync() {
        while (true) {
            lock.lock();
            try {
                while ((waiters.isEmpty() || forcing) && failure == null && !closed) {
                    queued.await();
                }
                if (failure != null || closed) {
                    return; // whoever recorded the failure or closed has completed the waiters
                }
                forcing = true;
            } catch (InterruptedException e) {
                syncer = null; // nobody interrupts it; if someone does, the next enqueue starts another
                return;
            } finally {
                lock.unlock();
            }
            lead();
        }
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
                    throw notAcknowledged(end, failure);
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

    private IOException notAcknowledged(long end, IOException cause) {
        return new IOException(name + ": a write or fsync failed (" + cause.getMessage() + "); records up to offset "
                + (end - 1) + " are not acknowledged", cause);
    }

    /**
     * As leader: force outside the lock, then publish the covered offset or the failure, wake all, and complete
     * the queued appends it settled (outside the lock).
     */
    private void lead() {
        long covered = -1;
        IOException error = null;
        List<Waiter> settled;
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
                settled = settle();
            } finally {
                lock.unlock();
            }
            complete(settled);
        }
    }

    /**
     * Under lock: takes the waiters the current state settles (covered, or all of them once failed or closed) and
     * signals the syncer if some are left. They are completed outside the lock by {@link #complete}.
     */
    private List<Waiter> settle() {
        List<Waiter> settled = new ArrayList<>();
        boolean all = failure != null || closed;
        while (!waiters.isEmpty() && (all || waiters.peek().end() <= durableOffset)) {
            settled.add(waiters.poll());
        }
        if (!waiters.isEmpty()) {
            queued.signal();
        }
        return settled;
    }

    private void complete(List<Waiter> settled) {
        for (Waiter w : settled) {
            if (durableOffset >= w.end()) {
                w.future().complete(w.first());
            } else {
                IOException cause = failure;
                w.future().completeExceptionally(cause != null ? notAcknowledged(w.end(), cause)
                        : new IOException(name + " closed before records up to offset " + (w.end() - 1)
                                + " were forced; they are not acknowledged"));
            }
        }
    }

    /** Fails the journal (a write went wrong): waiters not yet covered get {@code cause}. */
    void fail(IOException cause) {
        List<Waiter> settled;
        lock.lock();
        try {
            record(cause);
            changed.signalAll();
            queued.signal();
            settled = settle();
        } finally {
            lock.unlock();
        }
        complete(settled);
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
        List<Waiter> settled;
        lock.lock();
        try {
            closed = true;
            long nanos = maxWait.toNanos();
            while (forcing && nanos > 0) {
                nanos = changed.awaitNanos(nanos);
            }
            if (forcing) {
                log.warn("{}: a force is still running after {}; closing the files, which waits for it to return",
                        name, maxWait);
            }
            changed.signalAll();
            queued.signal();
            settled = settle();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            settled = settle();
        } finally {
            lock.unlock();
        }
        complete(settled);
    }
}
