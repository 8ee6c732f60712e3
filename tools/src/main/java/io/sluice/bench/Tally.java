package io.sluice.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counts of one mode's run. Load threads each own a {@link Client} and record into it; live totals are
 * {@link LongAdder}s that {@link Progress} reads while the run goes on. {@link #summary} is called after every
 * load thread has stopped (its caller joined them), which makes the clients' plain fields visible.
 */
final class Tally {
    /** Bound on the latency samples of a whole run (8 bytes each). */
    static final int MAX_SAMPLES = 8 << 20;

    private final Window window;
    private final int perClientSamples;
    private final List<Client> clients = new ArrayList<>();
    private final LongAdder warmupWrites = new LongAdder();
    private final LongAdder writes = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder acknowledged = new LongAdder();
    private final LongAdder uncertain = new LongAdder();
    private final LongAdder notSent = new LongAdder();

    Tally(Window window, int clientCount) {
        this.window = window;
        this.perClientSamples = Math.max(1024, MAX_SAMPLES / clientCount);
    }

    /** One load thread's counts. Not thread-safe: used by its thread only. */
    final class Client {
        private final Latencies latencies = new Latencies(perClientSamples);
        private final Map<Integer, Long> errorsByStatus = new HashMap<>();
        private final Map<String, Long> errorsByCode = new HashMap<>();
        private long writes;
        private long sent; // open loop: measured requests sent, those late to start, and their start lags
        private long late;
        private long startLagNanos;

        /**
         * Records one request (or raw batch) that took from {@code start} to {@code end}; {@code status} 2xx
         * is success. Returns false once this client has recorded all the samples it may: it must stop.
         */
        boolean record(int status, int rows, long start, long end) {
            return record(status, false, rows, start, end);
        }

        /**
         * The same for an answer whose body was read: {@code reportedErrors}, a 2xx whose body reports errors
         * ({@link Answers}), is an error, counted under its status.
         */
        boolean record(int status, boolean reportedErrors, int rows, long start, long end) {
            return !counted(status, reportedErrors, rows, end) || latencies.add(end - start);
        }

        /**
         * Records one open-loop request ({@link OpenLoop}) that was due at {@code intended}, sent at {@code sent}
         * and answered (or failed) at {@code end}: it belongs to the phase of its intended time, and its latency
         * runs from then, so the time it waited for a connection counts. Returns false as {@link #record} does.
         */
        boolean recordOpen(int status, int rows, long intended, long sent, long end) {
            return recordOpen(status, false, rows, intended, sent, end);
        }

        /** The same for an answer whose body was read: a 2xx reporting errors is an error, as in {@link #record}. */
        boolean recordOpen(int status, boolean reportedErrors, int rows, long intended, long sent, long end) {
            if (!counted(status, reportedErrors, rows, intended)) {
                return true; // warm-up, or never scheduled: the schedule ends with the window
            }
            return openSample(intended, sent, end);
        }

        /** A measured open-loop request's start lag and latency, from its due time. */
        private boolean openSample(long intended, long sent, long end) {
            this.sent++;
            long lag = sent - intended;
            startLagNanos += lag;
            if (lag > OpenLoop.LATE.toNanos()) {
                late++;
            }
            return latencies.add(end - intended);
        }

        /**
         * Records one Bolt transaction ({@link BoltLoad}) that took from {@code start} to {@code end}:
         * {@code errorCode} null when it committed, else what failed it, a Neo4j status code or, with
         * {@code uncertain}, a failure with no answer from the server (committed or not, the client cannot know).
         * Returns false as {@link #record} does.
         */
        boolean recordBolt(String errorCode, boolean uncertain, int rows, long start, long end) {
            return !counted(errorCode == null, uncertain, 0, errorCode, rows, end) || latencies.add(end - start);
        }

        /** {@link #recordBolt} for an open-loop transaction, due at {@code intended}, as {@link #recordOpen}. */
        boolean recordBoltOpen(String errorCode, boolean uncertain, int rows, long intended, long sent, long end) {
            if (!counted(errorCode == null, uncertain, 0, errorCode, rows, intended)) {
                return true;
            }
            return openSample(intended, sent, end);
        }

        /**
         * Counts an answer: acknowledged rows (in any phase: what the database must hold at the end) or rows lost
         * in transport (applied or not, the client cannot know); then, if {@code at} is in the measured window,
         * writes or errors by status. True when it was in the window (its latency is then to be recorded).
         */
        private boolean counted(int status, boolean reportedErrors, int rows, long at) {
            return counted(status >= 200 && status < 300 && !reportedErrors, status == 0, status, null, rows, at);
        }

        /**
         * {@link #counted(int, boolean, int, long)} for either protocol: an error is counted under {@code code}
         * (Bolt) when it is not null, else under {@code status} (HTTP).
         */
        private boolean counted(boolean ok, boolean uncertain, int status, String code, int rows, long at) {
            if (ok) {
                acknowledged.add(rows);
            } else if (uncertain) {
                Tally.this.uncertain.add(rows);
            }
            switch (window.phase(at)) {
                case WARMUP -> {
                    if (ok) {
                        warmupWrites.add(rows);
                    }
                    return false;
                }
                case OVER -> {
                    return false;
                }
                case MEASURE -> { }
            }
            if (ok) {
                writes += rows;
                Tally.this.writes.add(rows);
            } else {
                if (code != null) {
                    errorsByCode.merge(code, 1L, Long::sum);
                } else {
                    errorsByStatus.merge(status, 1L, Long::sum);
                }
                errors.add(1);
            }
            return true;
        }
    }

    /** Open loop: {@code n} requests of the measured window were never sent (the window ended first). */
    void notSent(long n) {
        notSent.add(n);
    }

    synchronized Client newClient() {
        Client c = new Client();
        clients.add(c);
        return c;
    }

    Window window() {
        return window;
    }

    long warmupWrites() {
        return warmupWrites.sum();
    }

    long writes() {
        return writes.sum();
    }

    long errors() {
        return errors.sum();
    }

    /**
     * The measurement; call only after every client's thread has stopped. Latencies are summarised here, where
     * the samples are, so a load in another process sends back only this.
     */
    synchronized LoadSummary summary() {
        long w = 0;
        Map<Integer, Long> byStatus = new HashMap<>();
        Map<String, Long> byCode = new HashMap<>();
        List<Latencies> parts = new ArrayList<>();
        long sent = 0;
        long late = 0;
        long lag = 0;
        for (Client c : clients) {
            w += c.writes;
            sent += c.sent;
            late += c.late;
            lag += c.startLagNanos;
            c.errorsByStatus.forEach((s, n) -> byStatus.merge(s, n, Long::sum));
            c.errorsByCode.forEach((code, n) -> byCode.merge(code, n, Long::sum));
            parts.add(c.latencies);
        }
        long[] sorted = Latencies.mergeSorted(parts);
        long sum = 0;
        for (long l : sorted) {
            sum += l;
        }
        return new LoadSummary(clients.size(), w, acknowledged.sum(), uncertain.sum(), Latencies.percentileMs(sorted, 50),
                Latencies.percentileMs(sorted, 99), byStatus, sorted.length, sum, Latencies.percentileMs(sorted, 99.9),
                Latencies.maxMs(sorted), new LoadSummary.OpenFigures(sent, late, lag, notSent.sum()), byCode);
    }
}
