package io.sluice.bench;

import io.sluice.vocab.Neo4jStatus;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * What the server did, read from its {@code GET /metrics} (counters, so two readings subtract): batches
 * committed, rows in them, time spent applying and committing them, and JVM GC pause time (the JVM the bench
 * shares with the server). The difference over the measured window says where the time went: an applier busy
 * near 100% means the database is the limit; well below, the requests do not arrive fast enough (clients,
 * HTTP, or the hand-off to the applier). Raw mode has no server side: its figures come from its own loop.
 * Besides the counters, the largest batch. A group of managed transactions ({@code transactions.group}) counts as a
 * batch of its members (each a write): rows/tx is then members per group, tx ms the group's commit.
 *
 * <p>Batches and rows are the count and sum of one meter, the rows-per-batch summary, which a scrape reads
 * together. They used to come from two meters (batches from {@code sluice_batches_total}), which a batch commit
 * updates one after the other and a scrape reads at different moments, so a reading taken under load could
 * count a batch without its rows: direct mode showed 1534 rows in 1535 one-row batches. Even one meter's count
 * and sum are two adders, so the mean may still be off by a batch committing at the instant of a reading;
 * {@code maxRowsPerBatch} is exact.
 *
 * @param maxRowsPerBatch the largest batch the server committed recently (Micrometer's window of about two
 *                        minutes before the reading, so possibly from before the measured time); 0 if none
 * @param cpuSeconds      CPU time of the server's process from the OS ({@link #withProcess}): the bench's, the
 *                        server's own when the load runs in a process of its own ({@code --load-process}), else
 *                        server and in-process load generator together (then compare it between modes of one run
 *                        only); for Neo4j's server in a process of its own, that process's ({@link #ofProcess})
 * @param loadCpuSeconds  CPU time of the load generator's process from the OS, when it has one; else 0
 * @param jitSeconds      time the bench JVM's JIT compilers spent compiling (for Neo4j's server in a process
 *                        of its own, that JVM's, {@link PerfData}): C2 still at work takes CPU from
 *                        the server (on 2 cores, up to half of one right after the prime), which is what makes
 *                        the first mode measured after it slower; see {@link BenchOptions#rounds}
 */
public record ServerStats(double batches, double rows, double commitSeconds, double gcPauseSeconds,
        double deadlockRetries, double maxRowsPerBatch, double cpuSeconds, double loadCpuSeconds, double jitSeconds) {
    public static final ServerStats NONE = new ServerStats(0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** The later reading minus the earlier one; the max is a recent maximum, not a counter: the later one's. */
    public ServerStats minus(ServerStats o) {
        return new ServerStats(batches - o.batches, rows - o.rows, commitSeconds - o.commitSeconds,
                gcPauseSeconds - o.gcPauseSeconds, deadlockRetries - o.deadlockRetries, maxRowsPerBatch,
                cpuSeconds - o.cpuSeconds, loadCpuSeconds - o.loadCpuSeconds, jitSeconds - o.jitSeconds);
    }

    /**
     * This reading with what the OS and the JVM count so far: the CPU time of this process and of {@code load},
     * the load generator's process (null: it runs in this one), and this JVM's compilation time.
     */
    public ServerStats withProcess(ProcessHandle load) {
        var jit = ManagementFactory.getCompilationMXBean();
        double compiled = jit != null && jit.isCompilationTimeMonitoringSupported()
                ? jit.getTotalCompilationTime() / 1e3 : 0;
        return new ServerStats(batches, rows, commitSeconds, gcPauseSeconds, deadlockRetries, maxRowsPerBatch,
                cpuSeconds(ProcessHandle.current()), load == null ? 0 : cpuSeconds(load), compiled);
    }

    /**
     * A reading of a server in a process of its own ({@code server}, the bench's Neo4j peer): its CPU time from
     * the OS, {@code load}'s (null: none), and its GC pause and JIT times as read of it.
     */
    static ServerStats ofProcess(ProcessHandle server, ProcessHandle load, double gcPauseSeconds,
            double jitSeconds) {
        return new ServerStats(0, 0, 0, gcPauseSeconds, 0, 0, cpuSeconds(server), load == null ? 0 : cpuSeconds(load),
                jitSeconds);
    }

    static double cpuSeconds(ProcessHandle p) {
        return p.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0);
    }

    /** The same figures for raw mode, whose transactions bypass the server: {@code batches} of {@code rows}. */
    ServerStats withBatches(double batches, double rows, double commitSeconds, double maxRowsPerBatch) {
        return new ServerStats(batches, rows, commitSeconds, gcPauseSeconds, 0, maxRowsPerBatch, cpuSeconds,
                loadCpuSeconds, jitSeconds);
    }

    /** The bench process's CPU microseconds per acknowledged write, or 0 when either is unknown. */
    public double cpuMicrosPerWrite(long writes) {
        return writes > 0 ? cpuSeconds * 1e6 / writes : 0;
    }

    /** The load process's CPU microseconds per acknowledged write, or 0 when it has none. */
    public double loadCpuMicrosPerWrite(long writes) {
        return writes > 0 ? loadCpuSeconds * 1e6 / writes : 0;
    }

    public double rowsPerBatch() {
        return batches > 0 ? rows / batches : 0;
    }

    public double commitMs() {
        return batches > 0 ? commitSeconds * 1000 / batches : 0;
    }

    /**
     * Transactions in flight on average over {@code seconds}: the time spent in them divided by the wall time.
     * With one applier (sync) it is the share of time the applier was busy, 1.0 when saturated; in direct mode
     * it is the mean number of concurrent one-row transactions.
     */
    public double inTransaction(double seconds) {
        return seconds > 0 ? commitSeconds / seconds : 0;
    }

    /** Grouped transactions' commits (issue 29's groups) count as batches of their members: a member is a write. */
    private static final String GROUPS_COMMITTED = "sluice_group_members_count{outcome=\"committed\"}";
    private static final String GROUP_MEMBERS_COMMITTED = "sluice_group_members_sum{outcome=\"committed\"}";

    /** Parses the Prometheus text format; absent series count as zero. */
    public static ServerStats parse(String text) {
        double batches = 0;
        double rows = 0;
        double commit = 0;
        double gc = 0;
        double deadlocks = 0;
        double max = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String name = line.substring(0, space);
            double v = Double.parseDouble(line.substring(space + 1));
            if (name.equals("sluice_batch_rows_count") || name.equals(GROUPS_COMMITTED)) {
                batches += v;
            } else if (name.equals("sluice_batch_rows_sum") || name.equals(GROUP_MEMBERS_COMMITTED)) {
                rows += v;
            } else if (name.equals("sluice_batch_rows_max")) {
                max = v;
            } else if (name.equals("sluice_commit_seconds_sum") || name.equals("sluice_group_commit_seconds_sum")) {
                commit += v;
            } else if (name.startsWith("jvm_gc_pause_seconds_sum")) {
                gc += v;
            } else if (name.startsWith("sluice_transient_retries_total") && name.contains(Neo4jStatus.Transaction.DEADLOCK_DETECTED)) {
                deadlocks += v;
            }
        }
        return new ServerStats(batches, rows, commit, gc, deadlocks, max, 0, 0, 0);
    }

    /** Reads the server's metrics; a failure to read is logged by the caller and counts as {@link #NONE}. */
    static ServerStats fetch(HttpClient http, URI metrics, String authorization) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(Bench.authorized(HttpRequest.newBuilder(metrics), authorization)
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + metrics + " answered " + r.statusCode());
        }
        return parse(r.body());
    }
}
