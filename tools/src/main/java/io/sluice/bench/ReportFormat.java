package io.sluice.bench;

import static io.sluice.bench.BenchReport.label;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A {@link BenchReport} written out: the table {@code sluice bench} prints ({@link #table}) and the JSON report
 * ({@link #toJson}). What they show is computed in the report (its ratios, {@link BenchReport#medians}, the labels
 * of {@link BenchReport#label}); here it is only laid out and rounded.
 */
final class ReportFormat {
    private final String scenario;
    private final List<ModeResult> results;
    private final Map<String, Double> ratios;
    private final Map<String, List<Double>> ratiosByRound;
    private final List<OpenLoopResult> openLoop;
    private final BenchReport report;

    ReportFormat(BenchReport report) {
        this.scenario = report.scenario();
        this.results = report.results();
        this.ratios = report.ratios();
        this.ratiosByRound = report.ratiosByRound();
        this.openLoop = report.openLoop();
        this.report = report;
    }

    /** The tables' first column: wide enough for the longest label with its round ({@code  #N}). */
    private String modeColumn() {
        int widest = results.stream().mapToInt(r -> label(results, r).length() + 4).max().orElse(0);
        return "%-" + Math.max(30, widest) + "s";
    }

    /**
     * The summary table, one row per mode, then the ratios. Besides the client's view (writes/s, latency,
     * errors) it shows the server's: rows per transaction, time per transaction, transactions in flight on
     * average (sync: the share of time its one applier was busy; direct: concurrent transactions; raw: the
     * loop), and JVM GC pause time (client and server share the JVM).
     */
    String table() {
        StringBuilder sb = new StringBuilder();
        sb.append("scenario ").append(scenario).append('\n');
        String mode = modeColumn();
        String head = mode + " %-18s %7s %9s %10s %7s %10s %8s %8s %6s %8s %7s %7s %6s %6s %9s %9s %9s%n";
        String row = mode + " %-18s %7d %9d %10d %7.1f %10.0f %8.2f %8.2f %6d %8.1f %7.2f %7.2f %6.2f %6.1f %9d %9.1f %9s%n";
        sb.append(String.format(Locale.ROOT, head, "mode", "client", "clients", "rows/req", "writes", "seconds",
                "writes/s", "p50 ms", "p99 ms", "errors", "rows/tx", "tx ms", "in tx", "gc s", "jit s", "deadlocks",
                "cpu us/w", "load us/w"));
        boolean rounds = results.stream().anyMatch(r -> r.round() > 1);
        for (ModeResult r : results) {
            ServerStats s = r.server();
            sb.append(String.format(Locale.ROOT, row, label(results, r) + (rounds ? " #" + r.round() : ""),
                    r.client() + (r.loadProcess() ? " (proc)" : ""), r.clients(), r.rowsPerRequest(), r.writes(),
                    r.seconds(), r.writesPerS(), r.p50Ms(), r.p99Ms(), r.errors(), s.rowsPerBatch(), s.commitMs(),
                    s.inTransaction(r.seconds()), s.gcPauseSeconds(), s.jitSeconds(), (long) s.deadlockRetries(),
                    s.cpuMicrosPerWrite(r.writes()), r.loadProcess()
                            ? String.format(Locale.ROOT, "%.1f", s.loadCpuMicrosPerWrite(r.writes())) : "-"));
        }
        List<String> parts = new ArrayList<>();
        ratios.forEach((k, v) -> parts.add(ratio(k, v)));
        if (!parts.isEmpty()) {
            sb.append(rounds ? "ratios (geometric mean of the rounds'): " : "ratios: ").append(String.join(", ", parts))
                    .append('\n');
        }
        if (rounds) {
            ratiosByRound.forEach((k, vs) -> sb.append("  ").append(k).append(" by round: ").append(String.join(" ",
                    vs.stream().map(v -> String.format(Locale.ROOT, "%.3f", v)).toList())).append('\n'));
            sb.append("medians over the rounds:\n");
            sb.append(String.format(Locale.ROOT, mode + " %10s %8s %9s %9s%n", "mode", "writes/s", "p99 ms", "cpu us/w",
                    "load us/w"));
            report.medians().forEach((label, m) -> sb.append(String.format(Locale.ROOT,
                    mode + " %10.0f %8.2f %9.1f %9.1f%n", label, m[0], m[1], m[2], m[3])));
        }
        sb.append(openLoopTable());
        for (ModeResult r : results) {
            if (r.errors() > 0) {
                sb.append("errors in ").append(label(results, r)).append(errorsBy(r)).append('\n');
            }
        }
        if (results.stream().anyMatch(ModeResult::processPeer)) {
            sb.append("neo4j: Neo4j's own server in a JVM of its own (the bench's heap and GC flags; its JIT warmed"
                    + " in it first unless --prime 0): cpu us/w is that process's CPU, gc s from its GC log, jit s from"
                    + " its perf data\n");
        }
        if (results.stream().anyMatch(ModeResult::inJvmPeer)) {
            sb.append("neo4j-in-jvm: Neo4j's own server in the bench's JVM (its JIT warmed by sluice's runs, the heap"
                    + " shared): cpu us/w, gc s and jit s are the bench JVM's\n");
        }
        if (results.stream().anyMatch(r -> r.api().bolt())) {
            sb.append("bolt-*: the scenario's statement, a transaction per row, through the official Java driver (a"
                    + " session per client; run: session.run, execute-write: session.executeWrite, executable-query:"
                    + " driver.executableQuery) to the server's Bolt address: sync's is whatever sluice serves on its"
                    + " Bolt listener, neo4j's Neo4j's own connector\n");
        }
        if (results.stream().anyMatch(r -> r.mode() == BenchMode.NEO4J)) {
            sb.append("Neo4j's own server has no sluice /metrics: rows/tx, tx ms, in tx and deadlocks are not measured"
                    + " (0)\n");
        }
        return sb.toString();
    }

    /**
     * The open-loop runs, one row each ({@code sync @50% (4123/s)}): the arrival rate asked and achieved (2xx
     * answers per second), latencies from each request's due time, errors, requests never sent, requests that
     * started more than {@link OpenLoop#LATE} late and the mean start lag, and CPU per write as above.
     */
    private String openLoopTable() {
        if (openLoop.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder("open loop (latency from each request's due time):\n");
        String mode = modeColumn();
        String head = mode + " %9s %10s %8s %8s %8s %8s %6s %8s %8s %7s %9s %9s%n";
        String row = mode + " %9.0f %10.0f %8.2f %8.2f %8.2f %8.2f %6d %8d %8d %7.3f %9.1f %9s%n";
        sb.append(String.format(Locale.ROOT, head, "mode", "target/s", "achieved/s", "p50 ms", "p99 ms", "p99.9 ms",
                "max ms", "errors", "not sent", "late>1ms", "lag ms", "cpu us/w", "load us/w"));
        boolean rounds = results.stream().anyMatch(r -> r.round() > 1);
        for (OpenLoopResult o : openLoop) {
            ModeResult r = o.run();
            ServerStats s = r.server();
            sb.append(String.format(Locale.ROOT, row, openLabel(o) + (rounds ? " #" + r.round() : ""), o.targetPerS(),
                    o.achievedPerS(), r.p50Ms(), r.p99Ms(), o.p999Ms(), o.maxMs(), r.errors(), o.notSent(), o.late(),
                    o.meanStartLagMs(), s.cpuMicrosPerWrite(r.writes()), r.loadProcess()
                            ? String.format(Locale.ROOT, "%.1f", s.loadCpuMicrosPerWrite(r.writes())) : "-"));
        }
        for (OpenLoopResult o : openLoop) {
            if (o.run().errors() > 0) {
                sb.append("errors in ").append(openLabel(o)).append(errorsBy(o.run())).append('\n');
            }
        }
        return sb.toString();
    }

    /** A result's errors, by what failed them: Neo4j's status codes over Bolt, HTTP statuses otherwise. */
    private static String errorsBy(ModeResult r) {
        return r.api().bolt() ? " by Neo4j code (else the driver's exception, no answer from the server): "
                + r.errorsByCode() : " by HTTP status (0: transport; 2xx: the answer reported errors): "
                + r.errorsByStatus();
    }

    /** An open-loop run's label: its mode's, as the closed-loop rows name it, and the rate. */
    private String openLabel(OpenLoopResult o) {
        List<ModeResult> all = new ArrayList<>(results);
        all.add(o.run());
        return label(all, o.run()) + " " + o.suffix();
    }

    private static String ratio(String k, double v) {
        return String.format(Locale.ROOT, v >= 10 ? "%s %.1fx" : v >= 0.1 ? "%s %.2f" : "%s %.4f", k, v);
    }

    /** The report as JSON: {@code {"scenario", "results": [{"mode", "clients", "writes", ...}], "ratios"}}. */
    Map<String, Object> toJson() {
        List<Object> rs = new ArrayList<>();
        for (ModeResult r : results) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("mode", label(results, r));
            m.put("api", r.api().label());
            m.put("round", r.round());
            m.put("coalesce", r.coalesce());
            m.put("journal", r.journal());
            m.put("neo4j_settings", r.settings());
            m.put("clients", r.clients());
            m.put("writes", r.writes());
            m.put("seconds", r.seconds());
            m.put("writes_per_s", round(r.writesPerS(), 1));
            m.put("p50_ms", round(r.p50Ms(), 3));
            m.put("p99_ms", round(r.p99Ms(), 3));
            m.put("errors", r.errors());
            Map<String, Long> byStatus = new LinkedHashMap<>();
            r.errorsByStatus().forEach((s, n) -> byStatus.put(Integer.toString(s), n));
            m.put("errors_by_status", byStatus);
            if (r.api().bolt()) {
                m.put("errors_by_code", r.errorsByCode());
            }
            m.put("sink", r.sink());
            if (r.mode() == BenchMode.NEO4J) {
                m.put("peer", (r.inJvmPeer() ? BenchPeer.IN_JVM : BenchPeer.PROCESS).label());
            }
            m.put("appliers", r.appliers());
            m.put("auth", r.auth());
            m.put("rows_per_request", r.rowsPerRequest());
            m.put("client", r.client());
            m.put("load", r.loadProcess() ? "process" : "in-process");
            m.put("acknowledged", r.acknowledged());
            m.put("stored", r.stored());
            ServerStats s = r.server();
            m.put("transactions", Math.round(s.batches()));
            m.put("rows_per_tx", round(s.rowsPerBatch(), 2));
            m.put("max_rows_per_tx", Math.round(s.maxRowsPerBatch()));
            m.put("tx_ms", round(s.commitMs(), 3));
            m.put("tx_in_flight", round(s.inTransaction(r.seconds()), 3));
            m.put("deadlock_retries", (long) s.deadlockRetries());
            m.put("gc_pause_s", round(s.gcPauseSeconds(), 3));
            m.put("jit_s", round(s.jitSeconds(), 3));
            m.put("process_cpu_us_per_write", round(s.cpuMicrosPerWrite(r.writes()), 2));
            if (r.loadProcess()) {
                m.put("load_cpu_us_per_write", round(s.loadCpuMicrosPerWrite(r.writes()), 2));
            }
            rs.add(m);
        }
        Map<String, Double> rounded = new LinkedHashMap<>();
        ratios.forEach((k, v) -> rounded.put(k, round(v, 4)));
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("scenario", scenario);
        root.put("results", rs);
        root.put("ratios", rounded);
        Map<String, List<Double>> byRound = new LinkedHashMap<>();
        ratiosByRound.forEach((k, vs) -> byRound.put(k, vs.stream().map(v -> round(v, 4)).toList()));
        root.put("ratios_by_round", byRound);
        Map<String, Object> medians = new LinkedHashMap<>();
        report.medians().forEach((label, m) -> {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("writes_per_s", round(m[0], 1));
            one.put("p99_ms", round(m[1], 3));
            one.put("process_cpu_us_per_write", round(m[2], 2));
            one.put("load_cpu_us_per_write", round(m[3], 2));
            medians.put(label, one);
        });
        root.put("medians", medians);
        root.put("open_loop", openLoop.stream().map(this::openLoopJson).toList());
        return root;
    }

    private Map<String, Object> openLoopJson(OpenLoopResult o) {
        ModeResult r = o.run();
        ServerStats s = r.server();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", openLabel(o));
        m.put("api", r.api().label());
        m.put("round", r.round());
        m.put("rate", o.rate().label());
        m.put("target_per_s", round(o.targetPerS(), 1));
        m.put("achieved_per_s", round(o.achievedPerS(), 1));
        m.put("clients", r.clients());
        m.put("writes", r.writes());
        m.put("seconds", o.windowSeconds());
        m.put("p50_ms", round(r.p50Ms(), 3));
        m.put("p99_ms", round(r.p99Ms(), 3));
        m.put("p999_ms", round(o.p999Ms(), 3));
        m.put("max_ms", round(o.maxMs(), 3));
        m.put("errors", r.errors());
        Map<String, Long> byStatus = new LinkedHashMap<>();
        r.errorsByStatus().forEach((st, n) -> byStatus.put(Integer.toString(st), n));
        m.put("errors_by_status", byStatus);
        if (r.api().bolt()) {
            m.put("errors_by_code", r.errorsByCode());
        }
        m.put("sent", o.sent());
        m.put("not_sent", o.notSent());
        m.put("late_starts", o.late());
        m.put("mean_start_lag_ms", round(o.meanStartLagMs(), 4));
        m.put("client", r.client());
        m.put("load", r.loadProcess() ? "process" : "in-process");
        m.put("appliers", r.appliers());
        m.put("auth", r.auth());
        m.put("journal", r.journal());
        m.put("acknowledged", r.acknowledged());
        m.put("stored", r.stored());
        m.put("process_cpu_us_per_write", round(s.cpuMicrosPerWrite(r.writes()), 2));
        if (r.loadProcess()) {
            m.put("load_cpu_us_per_write", round(s.loadCpuMicrosPerWrite(r.writes()), 2));
        }
        return m;
    }

    void writeJson(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(file.toFile(), toJson());
    }

    private static double round(double v, int decimals) {
        double f = Math.pow(10, decimals);
        return Math.round(v * f) / f;
    }
}
