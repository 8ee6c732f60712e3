package io.sluice.bench;

import io.sluice.bench.Scenario.RowSource;
import io.sluice.bench.Scenario.Workload;
import io.sluice.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Open-loop load over Bolt ({@code --api bolt --rate R}): the schedule and the pool of {@link OpenLoop}, as
 * {@link OpenLoopLoad} has over HTTP, where each slot of the pool is one of {@code clients} threads with its session
 * ({@link BoltLoad}'s, writing as it does), and each latency runs from the transaction's due time.
 *
 * <p>A slot's thread blocks on its mailbox while it is idle in the pool; the pacing thread hands it a due time
 * there ({@link OpenLoop.Slot#send}, which must not block: the mailbox is unbounded, and holds at most one entry,
 * since the pool hands an idle slot one request or its close). When a transaction returns the thread records it
 * and asks the pool for the next ({@link OpenLoop#free}), so it takes the backlog's oldest at once.
 *
 * <p>Owns the driver, the slots' threads ({@code sluice-bench-bolt-open-N}) and the pacing thread, stopped by
 * {@link #awaitStop}: the pacer first, then the slots, as {@link BoltLoad#awaitThreads} does, every wait bounded.
 */
final class BoltOpenLoad implements Load {
    private static final Logger log = LoggerFactory.getLogger(BoltOpenLoad.class);
    /** What a slot's mailbox gets when the pool closes it; no due time is negative. */
    private static final long CLOSE = -1;

    private final LoadSpec spec;
    private final Workload workload;
    private final Time time;
    private final List<Thread> slots = new ArrayList<>();
    private final AtomicReference<String> firstFailure = new AtomicReference<>();
    /** Rows (writes) each transaction carries; the rate is of writes, so transactions are paced at a part of it. */
    private final int perTransaction;
    private BoltWriter writer;
    private Window window;
    private OpenLoop open;
    private Thread pacer;

    BoltOpenLoad(LoadSpec spec, Workload workload, Time time) {
        this.perTransaction = BoltWriter.rowsPerTransaction(spec.api());
        this.spec = spec;
        this.workload = workload;
        this.time = time;
    }

    @Override
    public void start(Tally tally) {
        window = tally.window();
        open = new OpenLoop(window, spec.rate() / perTransaction, tally);
        writer = BoltWriter.open(spec);
        var threads = Thread.ofPlatform().name("sluice-bench-bolt-open-", 0).daemon(true).factory();
        for (int i = 0; i < spec.clients(); i++) {
            Slot slot = new Slot(workload.stream(i), tally.newClient());
            Thread t = threads.newThread(slot::run);
            slots.add(t);
            t.start();
        }
        pacer = Thread.ofPlatform().name("sluice-bench-bolt-open-loop").daemon(true).start(() -> open.pace(time));
    }

    @Override
    public void awaitStop() throws InterruptedException {
        long deadline = window.end() + HttpTarget.REQUEST_TIMEOUT.toNanos() + 5_000_000_000L;
        try {
            pacer.join(Duration.ofNanos(Math.max(1, deadline - time.nanos())));
            pacer.interrupt(); // a no-op unless it overran: then it stops and counts its backlog as not sent
            pacer.join(Duration.ofSeconds(5));
            BoltLoad.awaitThreads(slots, deadline, time, writer, "open-loop Bolt sessions");
        } finally {
            writer.close();
        }
        String failure = firstFailure.get();
        if (failure != null) {
            log.warn("failed transactions during the run; the first: {}", failure);
        }
    }

    /** One slot of the pool: a session, its rows and its counts, on its own thread; the pacer only mails it. */
    private final class Slot implements OpenLoop.Slot {
        private final BlockingQueue<Long> mailbox = new LinkedBlockingQueue<>();
        private final RowSource rows;
        private final Tally.Client counts;

        Slot(RowSource rows, Tally.Client counts) {
            this.rows = rows;
            this.counts = counts;
        }

        @Override
        public void send(long intended) {
            mailbox.add(intended);
        }

        @Override
        public void close() {
            mailbox.add(CLOSE);
        }

        void run() {
            try (BoltWriter.Worker worker = writer.worker()) {
                for (long next = open.free(this); next != OpenLoop.STOP; ) {
                    long due = next == OpenLoop.IDLE ? mailbox.take() : next;
                    if (due == CLOSE) {
                        return;
                    }
                    next = write(worker, due);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // stopped: the run is being torn down
            }
        }

        /** Writes the row due at {@code due}, records it, and returns what the pool hands out next. */
        private long write(BoltWriter.Worker worker, long due) throws InterruptedException {
            long sent = time.nanos();
            BoltWriter.Failure failed = worker.write(rows);
            long end = time.nanos();
            if (!counts.recordBoltOpen(failed == null ? null : failed.code(), failed != null && failed.uncertain(),
                    perTransaction, due, sent, end)) {
                if (!open.isOver()) {
                    log.warn("an open-loop Bolt session reached its bound of recorded transactions; it stops early");
                }
                return OpenLoop.STOP;
            }
            if (failed != null) {
                firstFailure.compareAndSet(null, failed.code());
                if (failed.uncertain()) {
                    time.sleep(HttpTarget.TRANSPORT_ERROR_PAUSE);
                }
            }
            return open.free(this);
        }
    }
}
