package io.sluice.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a bench run found: one {@link ModeResult} per mode, and each mode's throughput as a ratio of
 * {@code direct}'s (how much sluice's batching gains over one transaction per request) and of {@code raw}'s
 * (how close it gets to the limit). Ratios are what to compare across machines; absolute numbers are noise.
 * The table and the JSON are laid out in {@link ReportFormat}.
 *
 * @param ratios e.g. {@code "sync/direct" -> 21.3, "sync/raw" -> 0.62}, for every mode against direct (through
 *               the same api) and raw when those ran; every raw-Cypher api against the template in the same mode
 *               ({@code "query-v2:sync/template:sync"}); auth on against off; sluice's sync mode against Neo4j's
 *               own server through the same api ({@code "query-v2:sync/query-v2:neo4j"}, over Bolt {@code
 *               "bolt-run:sync/bolt-run:neo4j"}, with the CPU per write over Neo4j's); Neo4j's server in a
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
        ratios = Collections.unmodifiableMap(new LinkedHashMap<>(ratios));
        ratiosByRound = Collections.unmodifiableMap(new LinkedHashMap<>(ratiosByRound));
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
                List<ModeResult> same = results.stream().filter(s -> s.mode() == BenchMode.SYNC
                        && s.api() == peer.api() && s.auth() == peer.auth()).toList();
                same.forEach(s -> ratios.put(label(all, s) + "/" + label(all, peer),
                        s.writesPerS() / peer.writesPerS()));
                if (peer.server().cpuSeconds() > 0) { // and what a write costs each server, sluice's over Neo4j's
                    same.stream().filter(s -> s.writes() > 0 && s.server().cpuSeconds() > 0)
                            .forEach(s -> ratios.put(CPU + label(all, s) + "/" + label(all, peer),
                                    s.server().cpuMicrosPerWrite(s.writes())
                                            / peer.server().cpuMicrosPerWrite(peer.writes())));
                }
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
        Arrays.sort(s);
        return s.length == 0 ? 0 : s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /**
     * The measurements most of whose requests failed (more errors than acknowledged writes), each as
     * {@code mode (api): N writes, M errors (status: count ...)}: a table of them measures nothing.
     */
    public List<String> failed() {
        List<String> out = new ArrayList<>();
        for (ModeResult r : results) {
            if (r.errors() > 0 && r.errors() >= r.writes()) {
                out.add(r.mode().label() + " (" + r.api().label() + "): " + r.writes() + " writes, " + r.errors()
                        + " errors " + (r.api().bolt() ? r.errorsByCode() : r.errorsByStatus()));
            }
        }
        return out;
    }

    /**
     * The summary table, one row per mode, then the ratios, the medians over the rounds (with several), the
     * open-loop runs and the notes ({@link ReportFormat#table}).
     */
    public String table() {
        return new ReportFormat(this).table();
    }

    /** The report as JSON ({@link ReportFormat#toJson}). */
    public Map<String, Object> toJson() {
        return new ReportFormat(this).toJson();
    }

    public void writeJson(Path file) throws IOException {
        new ReportFormat(this).writeJson(file);
    }
}
