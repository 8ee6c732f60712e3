package io.sluice.bench;

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
import java.util.Optional;

/**
 * What a bench run found: one {@link ModeResult} per mode, and each mode's throughput as a ratio of
 * {@code direct}'s (how much sluice's batching gains over one transaction per request) and of {@code raw}'s
 * (how close it gets to the limit). Ratios are what to compare across machines; absolute numbers are noise.
 *
 * @param ratios e.g. {@code "sync/direct" -> 21.3, "sync/raw" -> 0.62}, for every mode against direct (through
 *               the same api) and raw when those ran; every raw-Cypher api against the template in the same mode
 *               ({@code "query-v2:sync/template:sync"}); auth on against off; sluice's sync mode against Neo4j's
 *               own server through the same api ({@code "query-v2:sync/query-v2:neo4j"}); Neo4j's server in a
 *               JVM of its own against the same in the bench's JVM
 *               ({@code "query-v2:neo4j/query-v2:neo4j-in-jvm"}); the {@link #CPU} ratios. With several rounds,
 *               each ratio is taken within each round and this is their geometric mean
 * @param ratiosByRound each ratio in each round, in round order (one each with one round)
 * @param openLoop      the open-loop runs ({@code --rate}), in the order they ran; not in the ratios
 */
public record BenchReport(String scenario, List<ModeResult> results, Map<String, Double> ratios,
        Map<String, List<Double>> ratiosByRound, List<OpenLoopResult> openLoop) {
    /**
     * The prefix of a CPU ratio: {@code "cpu sync/raw" -> 2.7} is the process CPU per acknowledged write in sync
     * mode over the CPU per row of the raw limit (the server's own with {@code --load-process}; else client and
     * server together, which overstates the ratio).
     */
    public static final String CPU = "cpu ";
    /** The label suffix of Neo4j's own server run in the bench's JVM ({@link BenchPeer#IN_JVM}). */
    static final String IN_JVM = "-in-jvm";

    public BenchReport {
        results = List.copyOf(results);
        openLoop = openLoop == null ? List.of() : List.copyOf(openLoop);
        ratios = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(ratios));
        ratiosByRound = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(ratiosByRound));
    }

    public static BenchReport of(String scenario, List<ModeResult> results) {
        return of(scenario, results, List.of());
    }

    /** The report of closed-loop {@code results} (the ratios are theirs) and {@code openLoop} runs. */
    public static BenchReport of(String scenario, List<ModeResult> results, List<OpenLoopResult> openLoop) {
        Map<String, List<Double>> byRound = new LinkedHashMap<>();
        for (int round : results.stream().map(ModeResult::round).distinct().sorted().toList()) {
            ratios(results, results.stream().filter(r -> r.round() == round).toList())
                    .forEach((k, v) -> byRound.computeIfAbsent(k, x -> new ArrayList<>()).add(v));
        }
        Map<String, Double> ratios = new LinkedHashMap<>();
        byRound.forEach((k, vs) -> ratios.put(k, vs.size() == 1 ? vs.getFirst()
                : Math.exp(vs.stream().mapToDouble(Math::log).average().orElse(0))));
        return new BenchReport(scenario, results, ratios, byRound, openLoop);
    }

    /** The ratios between the results of one round ({@code results}), labelled as in the whole report ({@code all}). */
    private static Map<String, Double> ratios(List<ModeResult> all, List<ModeResult> results) {
        Map<String, Double> ratios = new LinkedHashMap<>();
        for (ModeResult r : results) { // batching's gain over one transaction per request, through the same api
            if (r.mode() != BenchMode.DIRECT) {
                results.stream().filter(d -> d.mode() == BenchMode.DIRECT && (d.api() == r.api() || !r.mode().overHttp())
                        && d.writesPerS() > 0).findFirst()
                        .ifPresent(d -> ratios.put(label(all, r) + "/" + label(all, d), r.writesPerS() / d.writesPerS()));
            }
        }
        for (ModeResult raw : results) { // each against the raw limit under the same Neo4j settings
            if (raw.mode() != BenchMode.RAW) {
                continue;
            }
            List<ModeResult> same = results.stream().filter(r -> r.mode() != BenchMode.RAW
                    && (r.settings().equals(raw.settings()) || r.mode() == BenchMode.NEO4J)).toList();
            if (raw.writesPerS() > 0) {
                same.forEach(r -> ratios.put(label(all, r) + "/" + label(all, raw), r.writesPerS() / raw.writesPerS()));
            }
            if (raw.writes() > 0 && raw.server().cpuSeconds() > 0) { // what a write costs the server against a raw row
                same.stream().filter(r -> r.writes() > 0 && r.server().cpuSeconds() > 0)
                        .forEach(r -> ratios.put(CPU + label(all, r) + "/" + label(all, raw),
                                r.server().cpuMicrosPerWrite(r.writes()) / raw.server().cpuMicrosPerWrite(raw.writes())));
            }
        }
        for (ModeResult v : results) { // what a Neo4j settings variant gains: each against the config's settings
            if (!v.settings().isEmpty()) {
                results.stream().filter(base -> base.settings().isEmpty() && base.mode() == v.mode()
                        && base.api() == v.api() && base.appliers() == v.appliers() && base.auth() == v.auth()
                        && base.coalesce() == v.coalesce() && base.journal().equals(v.journal())
                        && base.writesPerS() > 0).findFirst().ifPresent(base -> {
                            ratios.put(label(all, v) + "/" + label(all, base), v.writesPerS() / base.writesPerS());
                            if (v.writes() > 0 && v.server().cpuSeconds() > 0 && base.server().cpuSeconds() > 0) {
                                ratios.put(CPU + label(all, v) + "/" + label(all, base),
                                        v.server().cpuMicrosPerWrite(v.writes())
                                                / base.server().cpuMicrosPerWrite(base.writes()));
                            }
                        });
            }
        }
        for (ModeResult r : results) { // raw Cypher through Neo4j's APIs against the template, mode for mode
            if (r.mode().overHttp() && r.api() != BenchApi.TEMPLATE) {
                results.stream().filter(t -> t.api() == BenchApi.TEMPLATE && t.mode() == r.mode()
                        && t.appliers() == r.appliers() && t.auth() == r.auth() && t.writesPerS() > 0).findFirst()
                        .ifPresent(t -> ratios.put(label(all, r) + "/" + label(all, t),
                                r.writesPerS() / t.writesPerS()));
            }
        }
        for (ModeResult on : results) { // what coalescing raw Cypher gains
            results.stream().filter(off -> !off.coalesce() && on.coalesce() && on.api() != BenchApi.TEMPLATE
                    && off.mode() == on.mode() && off.api() == on.api() && off.appliers() == on.appliers()
                    && off.auth() == on.auth() && off.writesPerS() > 0).findFirst()
                    .ifPresent(off -> ratios.put(label(all, on) + "/" + label(all, off),
                            on.writesPerS() / off.writesPerS()));
        }
        for (ModeResult k : results) { // the journal on Kafka against the local journal, same mode and settings
            results.stream().filter(l -> k.kafka() && !l.kafka() && l.mode() == k.mode() && l.api() == k.api()
                    && l.auth() == k.auth() && l.coalesce() == k.coalesce() && l.appliers() == k.appliers()
                    && l.writesPerS() > 0).findFirst()
                    .ifPresent(l -> ratios.put(label(all, k) + "/" + label(all, l), k.writesPerS() / l.writesPerS()));
        }
        for (ModeResult on : results) { // what checking credentials costs: each mode with auth on against off
            results.stream().filter(off -> !off.auth() && on.auth() && off.mode() == on.mode() && off.api() == on.api()
                    && off.coalesce() == on.coalesce() && off.appliers() == on.appliers() && off.writesPerS() > 0)
                    .findFirst()
                    .ifPresent(off -> ratios.put(label(all, on) + "/" + label(all, off),
                            on.writesPerS() / off.writesPerS()));
        }
        for (ModeResult peer : results) { // what sluice gains over Neo4j's own server, to a client of the same api
            if (peer.mode() == BenchMode.NEO4J && peer.writesPerS() > 0) {
                results.stream().filter(s -> s.mode() == BenchMode.SYNC && s.api() == peer.api()
                        && s.auth() == peer.auth()).forEach(s -> ratios.put(label(all, s) + "/" + label(all, peer),
                                s.writesPerS() / peer.writesPerS()));
            }
        }
        for (ModeResult process : results) { // what the bench's JVM lent Neo4j's server: a warm JIT, a shared heap
            if (process.processPeer()) {
                results.stream().filter(in -> in.inJvmPeer() && in.api() == process.api() && in.auth() == process.auth()
                        && in.writesPerS() > 0).forEach(in -> ratios.put(label(all, process) + "/" + label(all, in),
                                process.writesPerS() / in.writesPerS()));
            }
        }
        return ratios;
    }

    /**
     * The mode's name: prefixed with its api ({@code query-v2:sync}) when the report has raw-Cypher apis, with
     * {@code @N} appliers when the mode ran with several applier counts, {@code -uncoalesced} for raw Cypher on a
     * server that did not coalesce it when the report has both, and {@code -noauth} for a run without
     * authentication when the report has both, {@code -kafka} for async writes journaled on Kafka, {@code -in-jvm}
     * for Neo4j's own server run in the bench's JVM, {@code [k=v]} for a run under Neo4j settings on top of the
     * config's.
     */
    static String label(List<ModeResult> results, ModeResult r) {
        long counts = results.stream().filter(x -> x.mode() == r.mode()).map(ModeResult::appliers).distinct().count();
        boolean both = results.stream().anyMatch(ModeResult::auth) && results.stream().anyMatch(x -> !x.auth());
        boolean apis = results.stream().anyMatch(x -> x.mode().overHttp() && x.api() != BenchApi.TEMPLATE);
        String label = (apis && r.mode().overHttp() ? r.api().label() + ":" : "") + r.mode().label();
        label = counts > 1 ? label + "@" + r.appliers() : label;
        boolean coalescing = results.stream().anyMatch(ModeResult::coalesce) && results.stream().anyMatch(x -> !x.coalesce());
        label = coalescing && !r.coalesce() && r.mode().overHttp() && r.mode() != BenchMode.NEO4J
                && r.api() != BenchApi.TEMPLATE ? label + "-uncoalesced" : label;
        label = r.kafka() ? label + "-kafka" : label;
        label = r.inJvmPeer() ? label + IN_JVM : label;
        label = r.settings().isEmpty() ? label : label + "[" + r.settings() + "]";
        return both && !r.auth() && r.mode().overHttp() ? label + "-noauth" : label;
    }

    public Optional<ModeResult> result(BenchMode mode) {
        return find(results, mode);
    }

    private static Optional<ModeResult> find(List<ModeResult> results, BenchMode mode) {
        return results.stream().filter(r -> r.mode() == mode).findFirst();
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
    public String table() {
        StringBuilder sb = new StringBuilder();
        sb.append("scenario ").append(scenario).append('\n');
        String mode = modeColumn();
        String head = mode + " %-14s %7s %9s %10s %7s %10s %8s %8s %6s %8s %7s %7s %6s %6s %9s %9s %9s%n";
        String row = mode + " %-14s %7d %9d %10d %7.1f %10.0f %8.2f %8.2f %6d %8.1f %7.2f %7.2f %6.2f %6.1f %9d %9.1f %9s%n";
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
            medians().forEach((label, m) -> sb.append(String.format(Locale.ROOT, mode + " %10.0f %8.2f %9.1f %9.1f%n",
                    label, m[0], m[1], m[2], m[3])));
        }
        sb.append(openLoopTable());
        for (ModeResult r : results) {
            if (r.errors() > 0) {
                sb.append("errors in ").append(label(results, r)).append(" by HTTP status (0: transport; 2xx: the"
                        + " answer reported errors): ").append(r.errorsByStatus()).append('\n');
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
                sb.append("errors in ").append(openLabel(o)).append(" by HTTP status (0: transport): ")
                        .append(o.run().errorsByStatus()).append('\n');
            }
        }
        return sb.toString();
    }

    /** An open-loop run's label: its mode's, as the closed-loop rows name it, and the rate. */
    private String openLabel(OpenLoopResult o) {
        List<ModeResult> all = new ArrayList<>(results);
        all.add(o.run());
        return label(all, o.run()) + " " + o.suffix();
    }

    /** Per label, over its rounds: the medians of writes/s, p99 ms, server and load CPU us per write. */
    Map<String, double[]> medians() {
        Map<String, List<ModeResult>> byLabel = new LinkedHashMap<>();
        for (ModeResult r : results) {
            byLabel.computeIfAbsent(label(results, r), k -> new ArrayList<>()).add(r);
        }
        Map<String, double[]> out = new LinkedHashMap<>();
        byLabel.forEach((label, rs) -> out.put(label, new double[] {
            median(rs.stream().mapToDouble(ModeResult::writesPerS).toArray()),
            median(rs.stream().mapToDouble(ModeResult::p99Ms).toArray()),
            median(rs.stream().mapToDouble(r -> r.server().cpuMicrosPerWrite(r.writes())).toArray()),
            median(rs.stream().mapToDouble(r -> r.server().loadCpuMicrosPerWrite(r.writes())).toArray())}));
        return out;
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        return s.length == 0 ? 0 : s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static String ratio(String k, double v) {
        return String.format(Locale.ROOT, v >= 10 ? "%s %.1fx" : v >= 0.1 ? "%s %.2f" : "%s %.4f", k, v);
    }

    /** The report as JSON: {@code {"scenario", "results": [{"mode", "clients", "writes", ...}], "ratios"}}. */
    public Map<String, Object> toJson() {
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
        medians().forEach((label, m) -> {
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

    public void writeJson(Path file) throws IOException {
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
