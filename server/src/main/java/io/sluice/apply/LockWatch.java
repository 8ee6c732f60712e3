package io.sluice.apply;

import io.sluice.batch.Pending;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The appliers' lock watch: finds a batch whose transaction waits for a lock that someone outside sluice's batches
 * holds (a client's open transaction, a group's, a client of the same Neo4j who bypasses sluice), and ends it, so
 * that the requests batched with the blocked one need not wait with it ({@link BatchRunner} runs them again at
 * once, and the blocked one alone, where it waits as long as Neo4j lets it).
 *
 * <h2>Design</h2>
 * A batch is {@linkplain #watch registered} before its transaction begins and {@linkplain Watched#close closed}
 * after it ends: a lock, a set insert and remove, nothing else on the appliers' path. One thread
 * ({@code sluice-lock-watch}) waits for the oldest registered batch to have run for {@code after}; only a batch
 * still running then is asked, through its {@link Sink.Running}, whether it waits for another's lock (Neo4j's
 * registry of transactions when embedded, {@code SHOW TRANSACTIONS} over Bolt), and asked again while it runs,
 * each time twice as long after the last (at most 16 times {@code after}): a look over Bolt is a round trip and a
 * query on the server, so a batch that runs long without waiting for anyone is not asked every {@code after}. A wait for another batch's lock is left alone: batches take their locks in one
 * order and commit in milliseconds. A blocked one is marked with the requests of the statement it runs (what its
 * runner told {@link Watched#at}), then ended; the runner, its statement failed, reads the mark. When the batch
 * could not be ended (it was committing), the mark is taken back: it is as if the watch never looked.
 *
 * <p>Time comes from the injected {@link Time}: the thread's waits are condition waits whose deadlines come from
 * it. A failed look (the remote server briefly away) is logged and tried again at the next due time.
 */
public final class LockWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LockWatch.class);
    /** A long batch is looked at after {@code after}, then twice that later, ... at most 16 times {@code after} apart. */
    private static final int MAX_BACKOFF = 4;

    /** No watch: batches are never ended for a lock (the apply's setting {@code set_aside_after: 0}). */
    public static final LockWatch OFF = new LockWatch(null, Time.SYSTEM, null);

    private final Duration after;
    private final Time time;
    private final Thread thread;
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when the first batch registers, and at close. */
    private final Condition changed = lock.newCondition();
    private final LinkedHashSet<Watched> running = new LinkedHashSet<>(); // guarded by lock: oldest first
    private boolean closed; // guarded by lock

    private LockWatch(Duration after, Time time, ThreadFactory threads) {
        this.after = after;
        this.time = Objects.requireNonNull(time, "time");
        this.thread = threads == null ? null : threads.newThread(this::run);
    }

    /** Starts the watch: a batch still running {@code after} is looked into. */
    public static LockWatch start(Duration after, Time time, ThreadFactory threads) {
        if (!after.isPositive()) {
            return OFF;
        }
        LockWatch w = new LockWatch(after, time, Objects.requireNonNull(threads, "threads"));
        w.thread.start();
        return w;
    }

    /** Whether batches are watched at all. */
    public boolean on() {
        return thread != null;
    }

    /** Registers a batch about to begin its transaction; close what it returns once the transaction has ended. */
    Watched watch() {
        Watched w = new Watched(time.nanos() + (after == null ? 0 : after.toNanos()));
        if (thread == null) {
            return w;
        }
        lock.lock();
        try {
            running.add(w);
            if (running.size() == 1) {
                changed.signal();
            }
        } finally {
            lock.unlock();
        }
        return w;
    }

    /** One batch's transaction while it runs, as the watch sees it. */
    final class Watched implements AutoCloseable {
        private volatile Sink.Running tx;
        private volatile List<Pending> at = List.of();
        private long due; // guarded by lock
        private int looks; // guarded by lock
        private boolean finished; // guarded by lock
        private volatile List<Pending> blocked; // written under lock (against finished), read without

        private Watched(long due) {
            this.due = due;
        }

        /** Its transaction has begun (on the runner's thread). */
        void opened(Sink.Running tx) {
            this.tx = tx;
        }

        /** It runs a statement of these requests now (on the runner's thread). */
        void at(List<Pending> requests) {
            this.at = requests;
        }

        /**
         * The requests of the statement that waited for another's lock when the watch ended the transaction, or
         * null when it did not: read by the runner once its transaction failed.
         */
        List<Pending> blocked() {
            return blocked;
        }

        /** Its transaction has ended, however: the watch forgets it. */
        @Override
        public void close() {
            if (thread == null) {
                return;
            }
            lock.lock();
            try {
                finished = true;
                running.remove(this);
            } finally {
                lock.unlock();
            }
        }
    }

    private void run() {
        while (true) {
            List<Watched> due = new ArrayList<>();
            lock.lock();
            try {
                if (!awaitDue()) {
                    return;
                }
                long now = time.nanos();
                for (Watched w : running) {
                    if (w.due <= now) {
                        due.add(w);
                        // a batch that runs long without being blocked is looked at less and less often
                        w.due = now + (after.toNanos() << Math.min(++w.looks, MAX_BACKOFF));
                    }
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            for (Watched w : due) {
                try {
                    look(w);
                } catch (GraphException | RuntimeException e) {
                    log.warn("the lock watch could not look into a batch's transaction (tried again in {}): {}",
                            after, e.toString());
                }
            }
        }
    }

    /** Waits (under the lock) until a registered batch is due; false once closed. */
    private boolean awaitDue() throws InterruptedException {
        while (!closed) {
            if (running.isEmpty()) {
                changed.await();
                continue;
            }
            long now = time.nanos();
            long left = Long.MAX_VALUE;
            for (Watched w : running) {
                left = Math.min(left, w.due - now);
            }
            if (left <= 0) {
                return true;
            }
            changed.awaitNanos(left);
        }
        return false;
    }

    private void look(Watched w) throws GraphException {
        Sink.Running tx = w.tx;
        if (tx == null || !tx.blockedByOther()) {
            return;
        }
        lock.lock();
        try {
            if (w.finished) {
                return;
            }
            w.blocked = w.at; // before it is ended: its runner reads it when its statement fails
        } finally {
            lock.unlock();
        }
        if (!tx.terminate()) {
            lock.lock();
            try {
                w.blocked = null; // it was committing: as if never looked at
            } finally {
                lock.unlock();
            }
        }
    }

    /** Stops the thread (bounded wait); batches running on are no longer looked into. */
    @Override
    public void close() {
        if (thread == null) {
            return;
        }
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        try {
            if (!thread.join(Duration.ofSeconds(5))) {
                log.warn("the lock watch did not stop within 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
