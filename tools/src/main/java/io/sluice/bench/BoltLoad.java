package io.sluice.bench;

import io.sluice.bench.Scenario.RowSource;
import io.sluice.bench.Scenario.Workload;
import io.sluice.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closed-loop load over Bolt ({@code --api bolt}): {@code clients} threads, each with a session of one driver
 * ({@link BoltWriter}), each writing one row a transaction in the run's style and the next when it returns, until
 * the window ends: what an application of that many worker threads on the official driver does. Blocking calls on
 * platform threads, as most applications use the driver; a transaction counts when it returns inside the window
 * ({@link Tally.Client#recordBolt}). After a failure with no answer from the server a client pauses
 * {@link HttpTarget#TRANSPORT_ERROR_PAUSE}, so a dead server is not spun on.
 *
 * <p>Owns the driver and the client threads (named {@code sluice-bench-bolt-N}); {@link #awaitStop} waits for the
 * threads up to {@link HttpTarget#REQUEST_TIMEOUT} after the window, then closes the driver, which fails the calls
 * still in flight, and waits for them a bounded time more.
 */
final class BoltLoad implements Load {
    private static final Logger log = LoggerFactory.getLogger(BoltLoad.class);
    /** After the driver is closed under a client still in a call, how long its thread may take to return. */
    static final Duration AFTER_CLOSE = Duration.ofSeconds(5);

    private final LoadSpec spec;
    private final Workload workload;
    private final Time time;
    private final List<Thread> clients = new ArrayList<>();
    private final AtomicReference<String> firstFailure = new AtomicReference<>();
    /** Rows (writes) each transaction carries: see {@link BoltWriter#rowsPerTransaction}. */
    private final int perTransaction;
    private BoltWriter writer;
    private Window window;

    BoltLoad(LoadSpec spec, Workload workload, Time time) {
        this.spec = spec;
        this.workload = workload;
        this.time = time;
        this.perTransaction = BoltWriter.rowsPerTransaction(spec.api());
    }

    @Override
    public void start(Tally tally) {
        window = tally.window();
        writer = BoltWriter.open(spec);
        var threads = Thread.ofPlatform().name("sluice-bench-bolt-", 0).daemon(true).factory();
        for (int i = 0; i < spec.clients(); i++) {
            RowSource rows = workload.stream(i);
            Tally.Client counts = tally.newClient();
            long seed = i * 0x9E3779B97F4A7C15L + 1; // each client its own draws of which transactions roll back
            Thread t = threads.newThread(() -> run(rows, counts, seed));
            clients.add(t);
            t.start();
        }
    }

    /** One client's loop, on its own thread. */
    private void run(RowSource rows, Tally.Client counts, long seed) {
        try (BoltWriter.Worker worker = writer.worker(seed)) {
            while (time.nanos() < window.end()) {
                long start = time.nanos();
                BoltWriter.Failure failed = worker.write(rows);
                long end = time.nanos();
                if (!counts.recordBolt(failed == null ? null : failed.code(), failed != null && failed.uncertain(),
                        perTransaction, start, end)) {
                    log.warn("a bench client reached its bound of recorded transactions; it stops early");
                    return;
                }
                if (failed != null) {
                    firstFailure.compareAndSet(null, failed.code());
                    if (failed.uncertain()) {
                        time.sleep(HttpTarget.TRANSPORT_ERROR_PAUSE);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stopped: the run is being torn down
        }
    }

    @Override
    public void awaitStop() throws InterruptedException {
        try {
            awaitThreads(clients, window.end() + HttpTarget.REQUEST_TIMEOUT.toNanos() + 5_000_000_000L, time, writer,
                    "Bolt clients");
        } finally {
            writer.close();
        }
        String failure = firstFailure.get();
        if (failure != null) {
            log.warn("failed transactions during the run; the first: {}", failure);
        }
    }

    /**
     * Joins {@code threads} until {@code deadline} ({@link Time#nanos}); those still running then (a call the
     * server never answered) are told so in the log, {@code writer} is closed under them, and each gets
     * {@link #AFTER_CLOSE} more.
     */
    static void awaitThreads(List<Thread> threads, long deadline, Time time, BoltWriter writer, String what)
            throws InterruptedException {
        for (Thread t : threads) {
            t.join(Duration.ofNanos(Math.max(1, deadline - time.nanos())));
        }
        long alive = threads.stream().filter(Thread::isAlive).count();
        if (alive > 0) {
            log.warn("{} {} still in a call {} after the end; closing the driver under them", alive, what,
                    HttpTarget.REQUEST_TIMEOUT);
            writer.close();
            for (Thread t : threads) {
                t.interrupt();
                t.join(AFTER_CLOSE);
            }
        }
    }
}
