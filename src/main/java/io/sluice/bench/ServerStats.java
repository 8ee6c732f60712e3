package io.sluice.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * What the server did, read from its {@code GET /metrics} (counters only, so two readings subtract): batches
 * committed, rows in them, time spent applying and committing them, and JVM GC pause time (the JVM the bench
 * shares with the server). The difference over the measured window says where the time went: an applier busy
 * near 100% means the database is the limit; well below, the requests do not arrive fast enough (clients,
 * HTTP, or the hand-off to the applier). Raw mode has no server side: its figures come from its own loop.
 */
public record ServerStats(double batches, double rows, double commitSeconds, double gcPauseSeconds,
        double deadlockRetries) {
    public static final ServerStats NONE = new ServerStats(0, 0, 0, 0, 0);

    public ServerStats(double batches, double rows, double commitSeconds, double gcPauseSeconds) {
        this(batches, rows, commitSeconds, gcPauseSeconds, 0);
    }

    public ServerStats minus(ServerStats o) {
        return new ServerStats(batches - o.batches, rows - o.rows, commitSeconds - o.commitSeconds,
                gcPauseSeconds - o.gcPauseSeconds, deadlockRetries - o.deadlockRetries);
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

    /** Parses the Prometheus text format; absent series count as zero. */
    public static ServerStats parse(String text) {
        double batches = 0;
        double rows = 0;
        double commit = 0;
        double gc = 0;
        double deadlocks = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String name = line.substring(0, space);
            double v = Double.parseDouble(line.substring(space + 1));
            if (name.equals("sluice_batches_total")) {
                batches = v;
            } else if (name.equals("sluice_batch_rows_sum")) {
                rows = v;
            } else if (name.equals("sluice_commit_seconds_sum")) {
                commit = v;
            } else if (name.startsWith("jvm_gc_pause_seconds_sum")) {
                gc += v;
            } else if (name.startsWith("sluice_transient_retries_total") && name.contains("DeadlockDetected")) {
                deadlocks += v;
            }
        }
        return new ServerStats(batches, rows, commit, gc, deadlocks);
    }

    /** Reads the server's metrics; a failure to read is logged by the caller and counts as {@link #NONE}. */
    static ServerStats fetch(HttpClient http, URI metrics) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException("GET " + metrics + " answered " + r.statusCode());
        }
        return parse(r.body());
    }
}
