package io.sluice.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.sluice.source.KafkaSources;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code sluice bench-sources} found ({@link SourcesBench}): each phase's records per second and the bench
 * process's CPU per record, their ratios, and the lag at a fraction of the sources rate. Laid out as a table
 * ({@link #table}) and as JSON ({@link #toJson}).
 *
 * @param command  the command line as given, for the record
 * @param phases   raw, sources, naive, in the order they ran (a phase that failed is there with what it did)
 * @param lag      the lag phase, or null when it did not run
 * @param ratios   {@code sources/raw}, {@code naive/raw}, {@code sources/naive} (records per second), {@code cpu
 *                 sources/raw} and {@code cpu naive/raw} (CPU per record over raw's per row)
 * @param notes    what went wrong or differs, one line each (empty: nothing)
 */
public record SourcesReport(String scenario, String command, long records, int partitions, int consumers,
        List<Phase> phases, Lag lag, Map<String, Double> ratios, List<String> notes) {

    public SourcesReport {
        phases = List.copyOf(phases);
        ratios = Collections.unmodifiableMap(new LinkedHashMap<>(ratios));
        notes = List.copyOf(notes);
    }

    /** The report of {@code phases} and {@code lag}, with the ratios between the phases. */
    static SourcesReport of(String scenario, String command, long records, int partitions, int consumers,
            List<Phase> phases, Lag lag, List<String> notes) {
        Map<String, Double> ratios = new LinkedHashMap<>();
        Phase raw = find(phases, Phase.RAW);
        Phase sources = find(phases, Phase.SOURCES);
        Phase naive = find(phases, Phase.NAIVE);
        ratio(ratios, Phase.SOURCES + "/" + Phase.RAW, sources, raw);
        ratio(ratios, Phase.NAIVE + "/" + Phase.RAW, naive, raw);
        ratio(ratios, Phase.SOURCES + "/" + Phase.NAIVE, sources, naive);
        cpuRatio(ratios, sources, raw);
        cpuRatio(ratios, naive, raw);
        return new SourcesReport(scenario, command, records, partitions, consumers, phases, lag, ratios, notes);
    }

    private static Phase find(List<Phase> phases, String name) {
        return phases.stream().filter(p -> p.name().equals(name)).findFirst().orElse(null);
    }

    private static void ratio(Map<String, Double> ratios, String label, Phase a, Phase b) {
        if (a != null && b != null && a.perSecond() > 0 && b.perSecond() > 0) {
            ratios.put(label, a.perSecond() / b.perSecond());
        }
    }

    private static void cpuRatio(Map<String, Double> ratios, Phase a, Phase raw) {
        if (a != null && raw != null && a.cpuMicrosPerRecord() > 0 && raw.cpuMicrosPerRecord() > 0) {
            ratios.put(BenchReport.CPU + a.name() + "/" + raw.name(),
                    a.cpuMicrosPerRecord() / raw.cpuMicrosPerRecord());
        }
    }

    /**
     * One phase's measurement.
     *
     * @param name          {@link #RAW}, {@link #SOURCES} or {@link #NAIVE}
     * @param records       records (raw: rows) applied in the measured time
     * @param seconds       the measured time: raw, from its first transaction to its last commit; sources and naive,
     *                      from the start of consuming (the consumers started, the group not yet joined) to every
     *                      partition's position at its end (naive: or to its time limit)
     * @param cpuSeconds    the bench process's CPU time over {@code seconds} (sluice and Neo4j; not the producer's,
     *                      not the broker's: processes of their own)
     * @param jitSeconds    this JVM's JIT compilers' time over {@code seconds}
     * @param brokerCpuSeconds the broker's CPU time over {@code seconds}, when the bench started it; else 0
     * @param firstSeconds  from the start to the first record applied
     * @param complete      every record given was applied (naive stops at its time limit)
     * @param graph         what the graph holds after it ({@code nodes}, {@code relationships}; sluice's
     *                      positions not counted), or null when not counted
     * @param rowsPerTx     records (rows) per committed transaction: raw's fixed 1000, sluice's from its
     *                      metrics ({@code sluice_batch_rows}), naive's 1
     * @param retries       transient errors retried (sluice: deadlocks, from its metrics; naive: any transient)
     * @param detail        how it ran, for the table
     */
    public record Phase(String name, long records, double seconds, double cpuSeconds, double jitSeconds,
            double brokerCpuSeconds, double firstSeconds, boolean complete, Map<String, Long> graph,
            double rowsPerTx, long retries, String detail) {
        static final String RAW = "raw";
        static final String SOURCES = "sources";
        static final String NAIVE = "naive";

        public double perSecond() {
            return seconds > 0 ? records / seconds : 0;
        }

        public double cpuMicrosPerRecord() {
            return records > 0 ? cpuSeconds * 1e6 / records : 0;
        }

        public double brokerCpuMicrosPerRecord() {
            return records > 0 ? brokerCpuSeconds * 1e6 / records : 0;
        }
    }

    /**
     * One lag sample, {@code at} seconds after the producer's process started: sluice's own figures
     * ({@link KafkaSources#partitions}: every partition's {@code lag_records} summed, null unless
     * every partition's is known; the largest {@code lag_seconds}), and the backlog by the broker's end offsets
     * ({@code endLagRecords}: the topic's end offsets, read just after, minus sluice's positions; null when they
     * could not be read). Sluice's lag counts what its consumers have fetched the high watermark of (refreshed
     * once a second), so it reads low while they keep up; the end offsets' counts what the producer had sent.
     */
    public record Sample(double at, Long lagRecords, Double lagSeconds, Long endLagRecords) {}

    /**
     * The lag phase: sluice consuming while a producer sends at {@code targetRate}.
     *
     * @param rate            what was asked ({@code 80%} of the sources rate measured in this run, or a rate)
     * @param targetRate      records per second the producer was given
     * @param produced        records the producer had acknowledged
     * @param producedSeconds how long it sent
     * @param samples         one a second while it sent ({@link Sample}); the drain after is not sampled in them
     * @param growth          the backlog's growth (by the end offsets, {@link Sample#endLagRecords}) over the last
     *                        half of the samples (the least-squares slope times the half's length); null with too
     *                        few samples
     * @param bounded         the backlog did not grow over the last half: {@code growth} below one second of the
     *                        producer's records ({@link #GROWTH_ALLOWED}); null when unknown
     * @param drainSeconds    from the producer's last acknowledgement to every partition's position at its end;
     *                        -1 when it did not get there within the bound
     * @param cpuSeconds      the bench process's CPU time from the producer's start to the drain's end
     * @param applied         records applied by the end (every partition's position summed)
     * @param rowsPerTx       sluice's records per committed transaction over the phase (its metrics)
     * @param retries         sluice's deadlock retries over the phase (its metrics)
     */
    public record Lag(String rate, double targetRate, long produced, double producedSeconds, List<Sample> samples,
            Double growth, Boolean bounded, double drainSeconds, double cpuSeconds, long applied, double rowsPerTx,
            long retries) {
        /** How much the backlog may grow over the last half of the run, in seconds of the producer's records. */
        static final double GROWTH_ALLOWED = 1.0;

        public Lag {
            samples = List.copyOf(samples);
        }

        /** {@code samples} summed up: the growth over their last half, and whether that stayed bounded. */
        static Lag of(String rate, double targetRate, long produced, double producedSeconds, List<Sample> samples,
                double drainSeconds, double cpuSeconds, long applied, double rowsPerTx, long retries) {
            List<Sample> known = samples.stream().filter(s -> s.endLagRecords() != null).toList();
            Double growth = null;
            Boolean bounded = null;
            if (!known.isEmpty()) {
                double half = known.getLast().at() / 2;
                List<Sample> last = known.stream().filter(s -> s.at() >= half).toList();
                if (last.size() >= 3) {
                    growth = slope(last) * (last.getLast().at() - last.getFirst().at());
                    bounded = growth <= GROWTH_ALLOWED * targetRate;
                }
            }
            return new Lag(rate, targetRate, produced, producedSeconds, samples, growth, bounded, drainSeconds,
                    cpuSeconds, applied, rowsPerTx, retries);
        }

        /** The least-squares slope of the backlog (by the end offsets) over time. */
        static double slope(List<Sample> s) {
            double mt = s.stream().mapToDouble(Sample::at).average().orElse(0);
            double ml = s.stream().mapToDouble(x -> x.endLagRecords()).average().orElse(0);
            double num = 0;
            double den = 0;
            for (Sample x : s) {
                num += (x.at() - mt) * (x.endLagRecords() - ml);
                den += (x.at() - mt) * (x.at() - mt);
            }
            return den > 0 ? num / den : 0;
        }

        public double producedRate() {
            return producedSeconds > 0 ? produced / producedSeconds : 0;
        }

        public double maxRecords() {
            return max(records());
        }

        public double p99Records() {
            return p99(records());
        }

        public double maxEndRecords() {
            return max(endRecords());
        }

        public double p99EndRecords() {
            return p99(endRecords());
        }

        public double maxSeconds() {
            return max(seconds());
        }

        public double p99Seconds() {
            return p99(seconds());
        }

        public double cpuMicrosPerRecord() {
            return produced > 0 ? cpuSeconds * 1e6 / produced : 0;
        }

        private double[] records() {
            return samples.stream().filter(s -> s.lagRecords() != null).mapToDouble(Sample::lagRecords).toArray();
        }

        private double[] endRecords() {
            return samples.stream().filter(s -> s.endLagRecords() != null).mapToDouble(Sample::endLagRecords)
                    .toArray();
        }

        private double[] seconds() {
            return samples.stream().filter(s -> s.lagSeconds() != null).mapToDouble(Sample::lagSeconds).toArray();
        }

        private static double max(double[] v) {
            return Arrays.stream(v).max().orElse(Double.NaN);
        }

        /** The nearest-rank 99th percentile; NaN with no values. */
        static double p99(double[] v) {
            if (v.length == 0) {
                return Double.NaN;
            }
            double[] sorted = v.clone();
            Arrays.sort(sorted);
            return sorted[(int) Math.ceil(0.99 * sorted.length) - 1];
        }
    }

    /** The report as text: the phases, the lag, the ratios, the notes. */
    public String table() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "bench-sources %s: %,d records, %d partitions, %d consumers%n", scenario,
                records, partitions, consumers));
        b.append(String.format(Locale.ROOT, "%-8s %11s %8s %11s %10s %6s %13s %8s %9s %7s  %s%n", "phase",
                "records", "seconds", "records/s", "cpu us/rec", "jit s", "broker us/rec", "first s", "rows/tx",
                "retries", "how"));
        for (Phase p : phases) {
            b.append(String.format(Locale.ROOT, "%-8s %,11d %8.2f %,11.0f %10.1f %6.1f %13s %8s %9.1f %7d  %s%s%n",
                    p.name(), p.records(), p.seconds(), p.perSecond(), p.cpuMicrosPerRecord(), p.jitSeconds(),
                    p.brokerCpuSeconds() > 0 ? String.format(Locale.ROOT, "%.1f", p.brokerCpuMicrosPerRecord()) : "",
                    p.firstSeconds() < 0 ? "" : String.format(Locale.ROOT, "%.2f", p.firstSeconds()), p.rowsPerTx(),
                    p.retries(), p.detail(), p.complete() ? "" : " (NOT every record applied)"));
        }
        if (lag != null) {
            b.append(String.format(Locale.ROOT, "lag at %s of sources (%,.0f records/s asked, %,.0f produced over"
                    + " %.0f s, %,d records):%n", lag.rate(), lag.targetRate(), lag.producedRate(),
                    lag.producedSeconds(), lag.produced()));
            b.append(String.format(Locale.ROOT, "  sluice's lag (partitions()), %d samples: total records max %,.0f,"
                    + " p99 %,.0f; largest seconds max %.2f, p99 %.2f%n", lag.samples().size(), lag.maxRecords(),
                    lag.p99Records(), lag.maxSeconds(), lag.p99Seconds()));
            b.append(String.format(Locale.ROOT, "  backlog by the end offsets: records max %,.0f, p99 %,.0f%n",
                    lag.maxEndRecords(), lag.p99EndRecords()));
            String bounded = lag.bounded() == null ? "unknown (too few samples)" : (lag.bounded() ? "yes" : "NO")
                    + String.format(Locale.ROOT, " (grew %+,.0f records over the last half)", lag.growth());
            String drained = lag.drainSeconds() >= 0 ? String.format(Locale.ROOT, "in %.1f s", lag.drainSeconds())
                    : String.format(Locale.ROOT, "NOT (%,d of %,d applied)", lag.applied(), lag.produced());
            b.append(String.format(Locale.ROOT, "  bounded: %s; drained %s after the producer stopped; cpu us/rec"
                    + " %.1f; rows/tx %.1f; deadlock retries %d%n", bounded, drained, lag.cpuMicrosPerRecord(),
                    lag.rowsPerTx(), lag.retries()));
        }
        if (!ratios.isEmpty()) {
            b.append("ratios:").append(System.lineSeparator());
            ratios.forEach((k, v) -> b.append(String.format(Locale.ROOT, "  %-18s %.3f%n", k, v)));
        }
        for (String n : notes) {
            b.append("note: ").append(n).append(System.lineSeparator());
        }
        return b.toString();
    }

    /** The report as a JSON tree (maps and lists), figures rounded for reading. */
    public Map<String, Object> toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scenario", scenario);
        m.put("command", command);
        m.put("records", records);
        m.put("partitions", partitions);
        m.put("consumers", consumers);
        List<Map<String, Object>> ps = new ArrayList<>();
        for (Phase p : phases) {
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("phase", p.name());
            j.put("records", p.records());
            j.put("seconds", round(p.seconds(), 3));
            j.put("records_per_s", round(p.perSecond(), 1));
            j.put("cpu_us_per_record", round(p.cpuMicrosPerRecord(), 2));
            j.put("cpu_s", round(p.cpuSeconds(), 3));
            j.put("jit_s", round(p.jitSeconds(), 3));
            j.put("broker_cpu_us_per_record", round(p.brokerCpuMicrosPerRecord(), 2));
            j.put("first_applied_s", round(p.firstSeconds(), 3));
            j.put("complete", p.complete());
            j.put("graph", p.graph());
            j.put("rows_per_tx", round(p.rowsPerTx(), 1));
            j.put("retries", p.retries());
            j.put("how", p.detail());
            ps.add(j);
        }
        m.put("phases", ps);
        if (lag != null) {
            Map<String, Object> l = new LinkedHashMap<>();
            l.put("rate", lag.rate());
            l.put("target_records_per_s", round(lag.targetRate(), 1));
            l.put("produced", lag.produced());
            l.put("produced_s", round(lag.producedSeconds(), 3));
            l.put("produced_records_per_s", round(lag.producedRate(), 1));
            l.put("lag_records_max", finite(lag.maxRecords()));
            l.put("lag_records_p99", finite(lag.p99Records()));
            l.put("lag_seconds_max", finite(lag.maxSeconds()));
            l.put("lag_seconds_p99", finite(lag.p99Seconds()));
            l.put("end_lag_records_max", finite(lag.maxEndRecords()));
            l.put("end_lag_records_p99", finite(lag.p99EndRecords()));
            l.put("growth_last_half_records", lag.growth() == null ? null : round(lag.growth(), 1));
            l.put("bounded", lag.bounded());
            l.put("drain_s", round(lag.drainSeconds(), 3));
            l.put("applied", lag.applied());
            l.put("cpu_us_per_record", round(lag.cpuMicrosPerRecord(), 2));
            l.put("rows_per_tx", round(lag.rowsPerTx(), 1));
            l.put("deadlock_retries", lag.retries());
            List<Map<String, Object>> ss = new ArrayList<>();
            for (Sample s : lag.samples()) {
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("at_s", round(s.at(), 2));
                x.put("lag_records", s.lagRecords());
                x.put("lag_seconds", s.lagSeconds());
                x.put("end_lag_records", s.endLagRecords());
                ss.add(x);
            }
            l.put("samples", ss);
            m.put("lag", l);
        }
        Map<String, Double> r = new LinkedHashMap<>();
        ratios.forEach((k, v) -> r.put(k, round(v, 3)));
        m.put("ratios", r);
        m.put("notes", notes);
        return m;
    }

    public void writeJson(Path out) throws IOException {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), toJson());
    }

    /** {@code v}, or null (JSON's) when it is not a number: no sample had it. */
    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }

    private static double round(double v, int places) {
        if (!Double.isFinite(v)) {
            return v;
        }
        double f = Math.pow(10, places);
        return Math.round(v * f) / f;
    }
}
