package io.sluice.bench;

import io.sluice.apply.BatchRunner;
import io.sluice.apply.BatchSizeController;
import io.sluice.apply.RetryPolicy;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.config.Sources;
import io.sluice.cypher.CypherText;
import io.sluice.durable.RecordApplier;
import io.sluice.metrics.Metrics;
import io.sluice.metrics.PrometheusMetrics;
import io.sluice.server.SluiceServer;
import io.sluice.sink.Sink;
import io.sluice.source.KafkaSources;
import io.sluice.time.Jitter;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.write.Template;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code sluice bench-sources}: how fast sluice applies an application topic (docs/SOURCES.md, the Cypher strategy)
 * against the raw UNWIND limit and against a consumer that applies one record per transaction, on one scenario's
 * rows and statement, in one run; and whether its lag stays bounded at a fraction of that rate.
 *
 * <h2>Design</h2>
 * The house rules of {@code sluice bench} (docs/BENCHMARKS.md, "Method"): ratios within one run, the JIT primed
 * first, the load in a process of its own, the bench process's CPU per record from the OS. So:
 * <ul>
 *   <li><b>One broker, producers in processes of their own.</b> {@code --kafka start} (the default) runs
 *       {@code sluice kafka} as a child ({@link BenchBroker}); each topic is filled by a producer JVM of its own
 *       ({@link ProducerProcess}, {@link ProducerMain}): the scenario's rows, stream 0 of the seed, as JSON values
 *       keyed by the scenario's key, so Kafka's partitioner keeps a key's rows in one partition, in order. The
 *       bench's process is then sluice (its consumers, its apply loop, the embedded Neo4j) and nothing else: its CPU
 *       time over a phase is sluice's cost of applying it. The broker's CPU is reported beside it.</li>
 *   <li><b>Every phase on a fresh server</b> ({@link SluiceServer}, embedded Neo4j in a temporary directory, no
 *       listener, the scenario's schema), so each one's MERGEs find the same graph.</li>
 *   <li><b>{@code raw}</b>: the bench's raw mode ({@link RawLoad}, {@code UNWIND} transactions of 1000 rows, one
 *       thread, straight into the sink) on exactly the rows the topic holds, the same count in the same order: the
 *       graphs they leave are compared with sources' (nodes and relationships; a difference is a note).</li>
 *   <li><b>{@code sources}</b>: the topic filled first (P partitions, N records; not timed, before raw: the
 *       bench's JVM idle meanwhile, the JIT finishes what the prime left it), then
 *       {@link KafkaSources} started on it as {@code serve} starts the {@code sources.kafka} section: the Cypher
 *       strategy with the scenario's statement rewritten from {@code row.x} to {@code event.x}, value format JSON,
 *       key format string, {@code on_error: stop}, a group and a topic of its own, its apply loop's parts built from
 *       the config's {@code batch}, {@code retry} and {@code apply} as {@code WritePathBuilder#sources} builds them.
 *       The clock starts when {@link KafkaSources#start} returns (its consumers started; the group join, the fetches
 *       and the applying are timed; its mapping checks and its positions' constraint, once per start, are not) and
 *       stops when every partition's position ({@link KafkaSources#partitions}, polled every
 *       {@value #POLL_MILLIS} ms) is at its end offset; the positions in the graph are checked after.</li>
 *   <li><b>{@code naive}</b>: the lower baseline, {@link NaiveConsumer}: as many consumers, one transaction per
 *       record through the same sink; on the same topic (a group of its own, from its start), up to
 *       {@code --naive-seconds} (it would take minutes to apply N); its records per second over that time.</li>
 *   <li><b>{@code lag}</b>: sluice consuming a fresh topic while a producer sends at {@code --rate} (80% of the
 *       sources rate measured in this run, or records/s) for {@code --duration}; every second, every partition's
 *       lag as sluice reports it ({@link KafkaSources#partitions}: records summed, seconds the largest), and the
 *       backlog by the broker's end offsets (read by the admin client) minus sluice's positions, since sluice's
 *       own figure counts only what its consumers have fetched the high watermark of and reads low while they keep
 *       up; each reported as max and p99. Bounded: the backlog did not grow over the last half of the run (its
 *       least-squares slope there, times the half's length, under one second of the producer's records). Then the
 *       drain: how long after the producer's last acknowledgement every partition reached its end.</li>
 *   <li><b>Prime</b> ({@code --prime}): raw, sources (while a producer sends) and naive, a quarter, a half and a
 *       quarter, on one throwaway server, nothing recorded.</li>
 * </ul>
 * Owns, for a run: the broker (when started), an admin client, one producer process at a time, the server of the
 * phase and what runs on it; all closed before {@link #run} returns. Used by one thread.
 */
public final class SourcesBench {
    /** How often a phase's progress is read: the resolution of its end time. */
    static final long POLL_MILLIS = 20;
    private static final Duration POLL = Duration.ofMillis(POLL_MILLIS);
    /** A phase whose applied count has not moved for this long is over: something is stuck (a held partition). */
    private static final Duration STALL = Duration.ofSeconds(60);
    /** How long the lag phase waits for sluice to reach the end after the producer stops. */
    private static final Duration DRAIN = Duration.ofSeconds(120);
    /** The priming producer's rate: above what sluice applies here, so a backlog forms as in the sources phase. */
    private static final double PRIME_RATE = 30_000;
    /** The raw phase's window: a bound, never reached (it stops at its rows). */
    private static final Duration RAW_BOUND = Duration.ofMinutes(30);
    private static final Duration ADMIN = Duration.ofSeconds(30);
    /** How long the lag phase lets sluice's consumer group settle before the producer starts. */
    private static final Duration SETTLE = Duration.ofSeconds(5);
    /** Sluice's positions in the graph (SourcePositions' label): not the scenario's nodes. */
    private static final String POSITION_LABEL = "SluicePosition";

    /**
     * What to run.
     *
     * @param records    records the topic gets, and rows raw applies (N)
     * @param partitions the topics' partitions (P)
     * @param consumers  sluice's consumers, and the naive baseline's (null: the config's {@code sources.kafka}, or its
     *                   default)
     * @param naive      the naive baseline's time limit
     * @param rate       the lag phase's producer rate: a share of the sources rate ({@code 80%}) or records/s
     * @param duration   how long the lag phase's producer sends (0: no lag phase)
     * @param prime      the JIT's warm-up (0: none)
     * @param kafka      {@code start} (a broker of the bench's own) or the bootstrap servers of one
     * @param command    the command line, recorded in the report
     */
    public record Options(Scenario scenario, long records, int partitions, Integer consumers, Duration naive,
            Rate rate, Duration duration, Duration prime, SluiceConfig config, Path workDir, long seed, String kafka,
            String command) {
        public Options {
            Objects.requireNonNull(scenario, "scenario");
            Objects.requireNonNull(config, "config");
            Objects.requireNonNull(workDir, "workDir");
            if (records < 1 || partitions < 1 || (consumers != null && consumers < 1)) {
                throw new IllegalArgumentException("--records, --partitions and --consumers must be >= 1");
            }
            kafka = kafka == null || kafka.isBlank() ? "start" : kafka.strip();
        }
    }

    /** A reading of the processes' clocks: this process's CPU and JIT time, the broker's CPU, the time. */
    private record Reading(long nanos, double cpu, double jit, double brokerCpu) {}

    /** Where a followed phase got to: records applied, when it stopped, when the first was applied, and why. */
    private record Followed(long applied, long end, long first, String stopped) {}

    private final Options o;
    private final Time time;
    private final PrintStream progress;
    private final String statement;
    private final int consumers;
    private final List<String> notes = new ArrayList<>();
    private String bootstrap;
    private ProcessHandle broker;
    private Admin admin;

    public SourcesBench(Options o, Time time, PrintStream progress) {
        this.o = o;
        this.time = time;
        this.progress = progress;
        this.statement = CypherText.parametersAsFields(o.scenario().rawCypher(), "event");
        Sources.KafkaSource configured = o.config().sources().kafka();
        this.consumers = o.consumers() != null ? o.consumers()
                : configured != null ? configured.consumers() : defaultConsumers();
    }

    /** Primes, then runs raw, sources, naive and lag, each on a fresh server; returns the report. */
    public SourcesReport run() throws InterruptedException {
        progress.printf(Locale.ROOT, "bench-sources %s: %,d records, %d partitions, %d consumers; each record"
                + " runs: %s%n", o.scenario().name(), o.records(), o.partitions(), consumers, statement);
        try (BenchBroker b = "start".equals(o.kafka()) ? startBroker() : null) {
            bootstrap = b != null ? b.bootstrap() : o.kafka();
            broker = b != null ? b.handle() : null;
            Properties p = new Properties();
            p.put("bootstrap.servers", bootstrap);
            try (Admin a = Admin.create(p)) {
                admin = a;
                return phases();
            }
        }
    }

    private SourcesReport phases() throws InterruptedException {
        if (!o.prime().isZero()) {
            prime();
        }
        // filled first: the bench's JVM is idle meanwhile, so what the prime left in the JIT's queue compiles before
        // the first phase measured
        String topic = topic(SourcesReport.Phase.SOURCES);
        fill(topic);
        List<SourcesReport.Phase> phases = new ArrayList<>();
        SourcesReport.Phase raw = onFreshServer(SourcesReport.Phase.RAW, this::raw);
        phases.add(raw);
        SourcesReport.Phase sources = onFreshServer(SourcesReport.Phase.SOURCES, s -> sources(s, topic));
        phases.add(sources);
        if (raw.complete() && sources.complete() && !raw.graph().equals(sources.graph())) {
            notes.add("WRONG: the same rows left another graph through sources " + sources.graph() + " than raw "
                    + raw.graph());
        }
        SourcesReport.Phase naive = onFreshServer(SourcesReport.Phase.NAIVE, s -> naive(s, topic));
        phases.add(naive);
        if (raw.complete() && naive.complete() && !raw.graph().equals(naive.graph())) {
            notes.add("WRONG: the same rows left another graph through naive " + naive.graph() + " than raw "
                    + raw.graph());
        }
        SourcesReport.Lag lag = null;
        if (o.duration().isZero()) {
            notes.add("no lag phase (--duration 0)");
        } else if (o.rate().percent() && !(sources.complete() && sources.perSecond() > 0)) {
            notes.add("no lag phase: " + o.rate().label() + " of the sources rate, and the sources phase did not"
                    + " apply every record");
        } else {
            double target = o.rate().perSecond(sources.perSecond());
            lag = onFreshServer("lag", s -> lag(s, target));
        }
        return SourcesReport.of(o.scenario().name(), o.command(), o.records(), o.partitions(), consumers, phases, lag,
                notes);
    }

    // ---- the phases ----

    /**
     * Raw, sources while a producer sends, naive: a quarter, a half and a quarter of the prime, one throwaway server,
     * nothing kept. Sources' half starts once the producer has sent a second of records (its JVM takes seconds to
     * start), so it is spent applying.
     */
    private void prime() throws InterruptedException {
        Duration slice = o.prime().dividedBy(4);
        progress.printf(Locale.ROOT, "bench-sources: priming the JIT on a throwaway server: raw %.0f s, sources %.0f"
                + " s, naive %.0f s%n", slice.toMillis() / 1e3, slice.toMillis() / 1e3 * 2, slice.toMillis() / 1e3);
        onFreshServer("prime", server -> {
            Scenario s = o.scenario();
            RawLoad raw = new RawLoad(server.sink(), Template.compile(s.name(), s.template()),
                    s.workload(o.seed()).stream(0), time);
            Tally tally = new Tally(Window.of(time.nanos(), 0, slice.toNanos()), 1);
            raw.start(tally);
            follow("prime raw", tally::writes, Long.MAX_VALUE, time.nanos(), slice, raw::finished);
            raw.awaitStop();
            String topic = topic("prime");
            createTopic(topic);
            Duration sourcesSlice = slice.multipliedBy(2);
            try (ProducerProcess producer = ProducerProcess.start(new ProducerProcess.Spec(bootstrap, topic,
                    s.name(), o.seed(), Long.MAX_VALUE, PRIME_RATE, sourcesSlice.plusSeconds(2).toNanos(), "prime"),
                    progress)) {
                long bound = time.nanos() + ADMIN.toNanos();
                while (endOffsets(topic).values().stream().mapToLong(Long::longValue).sum() < PRIME_RATE
                        && !producer.finished() && time.nanos() - bound < 0) {
                    time.sleep(Duration.ofMillis(100));
                }
                try (PrometheusMetrics metrics = new PrometheusMetrics();
                        KafkaSources sources = startSources(server.sink(), topic, metrics)) {
                    follow("prime sources", applied(sources, topic), Long.MAX_VALUE, time.nanos(), sourcesSlice,
                            () -> false);
                }
                producer.await(ADMIN);
            }
            try (NaiveConsumer naive = new NaiveConsumer(bootstrap, topic, topic + "-naive", consumers,
                    server.sink(), statement, time)) {
                follow("prime naive", naive::applied, Long.MAX_VALUE, time.nanos(), slice, () -> false);
            }
            return null;
        });
    }

    /** The raw limit on the topic's rows: stream 0 of the seed, N of them. */
    private SourcesReport.Phase raw(SluiceServer server) throws InterruptedException {
        Scenario s = o.scenario();
        RawLoad load = new RawLoad(server.sink(), Template.compile(s.name(), s.template()),
                s.workload(o.seed()).stream(0), time, o.records());
        Tally tally = new Tally(Window.of(time.nanos(), 0, RAW_BOUND.toNanos()), 1);
        Reading before = reading();
        load.start(tally);
        Followed f = follow("raw", tally::writes, o.records(), before.nanos(), null, load::finished);
        load.awaitStop();
        Reading after = reading();
        LoadSummary sum = tally.summary();
        if (sum.errors() > 0) {
            notes.add("raw: " + sum.errors() + " transactions failed (" + sum.errorsByStatus() + ")");
        }
        return phase(SourcesReport.Phase.RAW, sum.writes(), before, after, f, sum.writes() == o.records(),
                graph(server.sink()), sum.samples() > 0 ? (double) sum.writes() / sum.samples() : 0, 0,
                "UNWIND in transactions of " + BenchMode.RAW_BATCH_ROWS + " rows, one thread, no Kafka");
    }

    /** A fresh topic of N records, filled by a producer process. */
    private void fill(String topic) throws InterruptedException {
        createTopic(topic);
        ProducerProcess.Summary sum;
        try (ProducerProcess p = ProducerProcess.start(new ProducerProcess.Spec(bootstrap, topic,
                o.scenario().name(), o.seed(), o.records(), 0, 0, "fill"), progress)) {
            sum = p.await(Duration.ofSeconds(120 + o.records() / 2_000));
        }
        Map<Integer, Long> ends = endOffsets(topic);
        long total = ends.values().stream().mapToLong(Long::longValue).sum();
        if (sum.failed() > 0 || total != o.records()) {
            throw new IllegalStateException("the producer filled " + topic + " with " + total + " records, not "
                    + o.records() + " (" + sum.failed() + " failed: " + sum.firstError() + ")");
        }
        progress.printf(Locale.ROOT, "bench-sources: %s filled: %,d records in %.1f s (%,.0f/s), partitions %s%n",
                topic, total, sum.seconds(), sum.ratePerSecond(), ends);
    }

    /** Sluice applying the filled topic, from the start of consuming to every partition's position at its end. */
    private SourcesReport.Phase sources(SluiceServer server, String topic) throws InterruptedException {
        Followed f;
        Reading before;
        Reading after;
        double started;
        ServerStats stats;
        try (PrometheusMetrics metrics = new PrometheusMetrics()) {
            long t0 = time.nanos();
            try (KafkaSources sources = startSources(server.sink(), topic, metrics)) {
                before = reading();
                started = (before.nanos() - t0) / 1e9;
                f = follow("sources", applied(sources, topic), o.records(), before.nanos(), null, () -> false);
                after = reading(f.end());
                stats = ServerStats.parse(metrics.scrape());
            }
        }
        long positions = count(server.sink(), "MATCH (p:" + POSITION_LABEL + " {source: $source}) RETURN"
                + " coalesce(sum(p.next), 0)", Map.of("source", "topic:" + topic));
        boolean complete = f.applied() == o.records() && positions == o.records();
        if (!complete) {
            notes.add(String.format(Locale.ROOT, "sources: %,d of %,d records applied (%s), positions in the graph"
                    + " %,d", f.applied(), o.records(), f.stopped(), positions));
        }
        return phase(SourcesReport.Phase.SOURCES, f.applied(), before, after, f, complete, graph(server.sink()),
                stats.rowsPerBatch(), Math.round(stats.deadlockRetries()), String.format(Locale.ROOT,
                        "%d consumers, %d partitions, Cypher strategy (its start took %.2f s, not timed)", consumers,
                        o.partitions(), started));
    }

    /** One transaction per record, as many consumers, the same topic, up to {@code --naive-seconds}. */
    private SourcesReport.Phase naive(SluiceServer server, String topic) throws InterruptedException {
        Followed f;
        Reading before;
        Reading after;
        long retries;
        try (NaiveConsumer naive = new NaiveConsumer(bootstrap, topic, topic + "-naive", consumers, server.sink(),
                statement, time)) {
            before = reading();
            f = follow("naive", naive::applied, o.records(), before.nanos(), o.naive(), () -> false);
            after = reading(f.end());
            retries = naive.retries();
            if (naive.failure() != null) {
                notes.add("naive: a consumer stopped: " + naive.failure());
            }
        }
        boolean complete = f.applied() >= o.records();
        return phase(SourcesReport.Phase.NAIVE, f.applied(), before, after, f, complete,
                complete ? graph(server.sink()) : null, 1, retries, String.format(Locale.ROOT, "%d consumers, a"
                        + " transaction per record%s", consumers, complete ? "" : String.format(Locale.ROOT,
                        ", stopped after %.0f s (%s)", (f.end() - before.nanos()) / 1e9, f.stopped())));
    }

    /** Sluice consuming a fresh topic while a producer sends at {@code target} records/s; the lag every second. */
    private SourcesReport.Lag lag(SluiceServer server, double target) throws InterruptedException {
        String topic = topic("lag");
        createTopic(topic);
        String rate = o.rate().percent() ? o.rate().label() : String.format(Locale.ROOT, "%.0f/s", target);
        progress.printf(Locale.ROOT, "bench-sources lag: a producer at %,.0f records/s (%s) for %.0f s%n", target,
                rate, o.duration().toMillis() / 1e3);
        try (PrometheusMetrics metrics = new PrometheusMetrics();
                KafkaSources sources = startSources(server.sink(), topic, metrics)) {
            awaitAssigned(sources, topic);
            List<SourcesReport.Sample> samples = new ArrayList<>();
            Reading before = reading();
            ProducerProcess.Summary sum;
            long produced;
            try (ProducerProcess producer = ProducerProcess.start(new ProducerProcess.Spec(bootstrap, topic,
                    o.scenario().name(), o.seed(), Long.MAX_VALUE, target, o.duration().toNanos(), "lag"),
                    progress)) {
                long start = before.nanos();
                long bound = start + o.duration().plus(ADMIN).toNanos();
                Map<Integer, Long> seen = new HashMap<>();
                for (long tick = start + 1_000_000_000L; !producer.finished() && time.nanos() - bound < 0;
                        tick += 1_000_000_000L) {
                    sleepUntil(tick);
                    SourcesReport.Sample s = sample(sources.partitions(), topic, (time.nanos() - start) / 1e9, seen);
                    samples.add(s);
                    progress.printf(Locale.ROOT, "bench-sources lag  %4.0f s  sluice's lag %s records, %s s;"
                            + " backlog by the end offsets %s records%n", s.at(), text(s.lagRecords()),
                            s.lagSeconds() == null ? "?" : String.format(Locale.ROOT, "%.2f", s.lagSeconds()),
                            text(s.endLagRecords()));
                }
                sum = producer.await(ADMIN);
                produced = time.nanos();
            }
            Map<Integer, Long> ends = endOffsets(topic);
            long total = ends.values().stream().mapToLong(Long::longValue).sum();
            Followed f = follow("lag drain", applied(sources, topic), total, produced, DRAIN, () -> false);
            Reading after = reading(f.end());
            double drain = f.applied() >= total ? (f.end() - produced) / 1e9 : -1;
            if (drain < 0) {
                notes.add(String.format(Locale.ROOT, "lag: %,d of %,d records applied %.0f s after the producer"
                        + " stopped (%s)", f.applied(), total, DRAIN.toSeconds(), f.stopped()));
            }
            if (sum.failed() > 0) {
                notes.add("lag: the producer failed to send " + sum.failed() + " records: " + sum.firstError());
            }
            ServerStats stats = ServerStats.parse(metrics.scrape());
            return SourcesReport.Lag.of(rate, target, sum.acked(), sum.seconds(), samples, drain,
                    after.cpu() - before.cpu(), f.applied(), stats.rowsPerBatch(), Math.round(stats.deadlockRetries()));
        }
    }

    // ---- the parts ----

    private SourcesReport.Phase phase(String name, long records, Reading before, Reading after, Followed f,
            boolean complete, Map<String, Long> graph, double rowsPerTx, long retries, String detail) {
        SourcesReport.Phase p = new SourcesReport.Phase(name, records, (after.nanos() - before.nanos()) / 1e9,
                after.cpu() - before.cpu(), after.jit() - before.jit(),
                broker == null ? 0 : after.brokerCpu() - before.brokerCpu(),
                f.first() == Long.MIN_VALUE ? -1 : (f.first() - before.nanos()) / 1e9, complete, graph, rowsPerTx,
                retries, detail);
        progress.printf(Locale.ROOT, "bench-sources %s: %,d records in %.2f s: %,.0f/s, %.1f us of CPU a record%n",
                name, p.records(), p.seconds(), p.perSecond(), p.cpuMicrosPerRecord());
        return p;
    }

    /**
     * The scenario template's lock order as the Cypher strategy's paths: what a user writes for it
     * ({@code lock_order: [__value.url]} for visited: the sites every consumer's batches MERGE).
     */
    private List<String> lockOrder() {
        return Template.compile(o.scenario().name(), o.scenario().template()).lockOrder().stream()
                .map(f -> "__value." + f).toList();
    }

    /** The sources section for {@code topic}, as a config file would give it, started on {@code sink}. */
    private KafkaSources startSources(Sink sink, String topic, Metrics metrics) {
        Sources.KafkaSource configured = o.config().sources().kafka();
        Sources.KafkaSource config = new Sources.KafkaSource(bootstrap, topic + "-sluice",
                configured == null ? Map.of() : configured.properties(), consumers, Sources.Start.EARLIEST, null,
                null, Sources.OnError.STOP, Sources.DeadLetter.NONE, List.of(new Sources.Topic(topic, null,
                        Sources.Format.STRING, Sources.Format.JSON, new Sources.Cypher(List.of(statement), null,
                        Sources.Binding.DEFAULT, lockOrder()), null, false)));
        try {
            KafkaSources sources = KafkaSources.create(config, sink, parts(sink, metrics), metrics, time, "bench");
            sources.start();
            return sources;
        } catch (GraphException e) {
            throw new IllegalStateException("cannot start the sources on " + topic + ": " + e.getMessage(), e);
        }
    }

    /**
     * The apply loop's parts as {@code serve} builds them for the sources ({@code WritePathBuilder#sources}): a
     * batch runner with the config's lock order, coalescing and bounded retries; its adaptive row limit.
     */
    private RecordApplier.Parts parts(Sink sink, Metrics metrics) {
        SluiceConfig c = o.config();
        var r = c.retry();
        var b = c.batch();
        Supplier<BatchSizeController> sizes = b.adaptive() ? () -> new BatchSizeController(b.minRows(), b.maxRows(),
                b.targetCommit(), b.minRows() * 4) : null;
        return new RecordApplier.Parts(clock -> new BatchRunner(sink, new RetryPolicy(r.maxAttempts(),
                r.initialBackoff(), r.maxBackoff()), clock, Jitter.RANDOM, metrics, c.apply().lockOrder(),
                c.apply().coalesceCypher()), sizes, b.maxRows());
    }

    /** What a config file without {@code consumers} gets. */
    static int defaultConsumers() {
        try {
            return ConfigLoader.parse("sources:\n  kafka:\n    topics:\n      - topic: t\n        cypher: RETURN 1\n")
                    .sources().kafka().consumers();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Records applied of {@code topic}: every partition's position, the highest seen (a revoked one is not listed). */
    private static LongSupplier applied(KafkaSources sources, String topic) {
        Map<Integer, Long> seen = new HashMap<>();
        return () -> {
            for (Map<String, Object> p : sources.partitions()) {
                if (topic.equals(p.get("topic"))) {
                    seen.merge((Integer) p.get("partition"), ((Number) p.get("next")).longValue(), Math::max);
                }
            }
            return seen.values().stream().mapToLong(v -> Math.max(0, v)).sum();
        };
    }

    private static String text(Long n) {
        return n == null ? "?" : String.format(Locale.ROOT, "%,d", n);
    }

    /**
     * Every partition's lag now, as sluice reports it ({@code partitions}: records summed, null unless every
     * partition's is known; the largest in seconds), and the backlog by the topic's end offsets, read now, minus
     * sluice's positions ({@code seen}: the highest seen per partition, kept across samples for one revoked a moment).
     */
    private SourcesReport.Sample sample(List<Map<String, Object>> partitions, String topic, double at,
            Map<Integer, Long> seen) throws InterruptedException {
        long records = 0;
        int known = 0;
        Double seconds = null;
        for (Map<String, Object> p : partitions) {
            if (!topic.equals(p.get("topic"))) {
                continue;
            }
            seen.merge((Integer) p.get("partition"), ((Number) p.get("next")).longValue(), Math::max);
            if (p.get("lag_records") instanceof Number n) {
                records += n.longValue();
                known++;
            }
            if (p.get("lag_seconds") instanceof Number n) {
                seconds = seconds == null ? n.doubleValue() : Math.max(seconds, n.doubleValue());
            }
        }
        Long backlog = null;
        try {
            long applied = seen.values().stream().mapToLong(v -> Math.max(0, v)).sum();
            backlog = endOffsets(topic).values().stream().mapToLong(Long::longValue).sum() - applied;
        } catch (IllegalStateException e) {
            progress.println("bench-sources lag: " + e.getMessage());
        }
        return new SourcesReport.Sample(at, known == o.partitions() ? records : null, seconds, backlog);
    }

    /**
     * Waits until every partition of {@code topic} is assigned and positioned, then {@link #SETTLE} for the group to
     * settle (a consumer that joins after the first assignment rebalances it) and until they are again: the
     * producer's first records count, and no rebalance is measured as lag.
     */
    private void awaitAssigned(KafkaSources sources, String topic) throws InterruptedException {
        awaitAllAssigned(sources, topic);
        time.sleep(SETTLE);
        awaitAllAssigned(sources, topic);
    }

    private void awaitAllAssigned(KafkaSources sources, String topic) throws InterruptedException {
        long bound = time.nanos() + ADMIN.toNanos();
        while (sources.partitions().stream().filter(p -> topic.equals(p.get("topic"))
                && ((Number) p.get("next")).longValue() >= 0).count() < o.partitions()) {
            if (time.nanos() - bound >= 0) {
                throw new IllegalStateException("sluice's consumers did not get every partition of " + topic
                        + " within " + ADMIN + ": " + sources.partitions());
            }
            time.sleep(POLL);
        }
    }

    /**
     * Reads {@code applied} every {@link #POLL} until it reaches {@code total}, {@code over} says the work ended,
     * {@code limit} passes (null: none), or it has not moved for {@link #STALL}; a progress line a second.
     */
    private Followed follow(String label, LongSupplier applied, long total, long start, Duration limit,
            BooleanSupplier over) throws InterruptedException {
        long last = 0;
        long lastChange = start;
        long first = Long.MIN_VALUE;
        long nextLine = start + 1_000_000_000L;
        long lastLine = 0;
        while (true) {
            long now = time.nanos();
            long a = applied.getAsLong();
            if (a > 0 && first == Long.MIN_VALUE) {
                first = now;
            }
            if (a != last) {
                last = a;
                lastChange = now;
            }
            if (a >= total) {
                return new Followed(a, now, first, "every record applied");
            }
            if (over.getAsBoolean()) {
                return new Followed(applied.getAsLong(), now, first, "its work ended");
            }
            if (limit != null && now - start >= limit.toNanos()) {
                return new Followed(a, now, first, "its time limit");
            }
            if (now - lastChange >= STALL.toNanos()) {
                return new Followed(a, now, first, "nothing applied for " + STALL.toSeconds() + " s");
            }
            if (now - nextLine >= 0) {
                double s = (now - start) / 1e9;
                progress.printf(Locale.ROOT, "bench-sources %s  %4.0f s  %,12d%s applied  %,10.0f/s  (last 1 s:"
                        + " %,10d)%n", label, s, a, total == Long.MAX_VALUE ? ""
                        : String.format(Locale.ROOT, " / %,d", total), a / s, a - lastLine);
                lastLine = a;
                nextLine += 1_000_000_000L;
            }
            time.sleep(POLL);
        }
    }

    private Reading reading() {
        return reading(time.nanos());
    }

    /** The processes' clocks, dated {@code nanos} (the moment the phase's end was seen). */
    private Reading reading(long nanos) {
        var jit = ManagementFactory.getCompilationMXBean();
        return new Reading(nanos, cpuSeconds(ProcessHandle.current()),
                jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() / 1e3 : 0,
                broker == null ? 0 : cpuSeconds(broker));
    }

    private static double cpuSeconds(ProcessHandle p) {
        return p.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0);
    }

    /** What the graph holds: the scenario's nodes (sluice's positions aside) and relationships. */
    private Map<String, Long> graph(Sink sink) {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("nodes", count(sink, "MATCH (n) WHERE NOT n:" + POSITION_LABEL + " RETURN count(n)", Map.of()));
        m.put("relationships", count(sink, "MATCH ()-[r]->() RETURN count(r)", Map.of()));
        return m;
    }

    private static long count(Sink sink, String cypher, Map<String, Object> params) {
        try {
            return sink.inReadTransaction(tx -> ((Number) tx.run(cypher, params).rows().getFirst().getFirst())
                    .longValue());
        } catch (GraphException e) {
            throw new IllegalStateException("cannot count what the phase left: " + e.getMessage(), e);
        }
    }

    /** Work on a fresh server. */
    @FunctionalInterface
    private interface OnServer<T> {
        T run(SluiceServer server) throws InterruptedException;
    }

    /**
     * A fresh sluice (embedded Neo4j in a temporary directory under the work directory, no listener, the scenario's
     * schema, no sources of the config's own), given {@code work}, stopped, its directory deleted.
     */
    private <T> T onFreshServer(String phase, OnServer<T> work) throws InterruptedException {
        Path dir;
        try {
            Files.createDirectories(o.workDir());
            dir = Files.createTempDirectory(o.workDir(), "sluice-bench-sources-" + phase + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a temporary database directory in " + o.workDir(), e);
        }
        SluiceConfig c = o.config().withTemplates(Map.of(), o.scenario().schema()).with(Sources.DEFAULT);
        c = c.with(c.warmup().withoutRehearsal());
        try (SluiceServer server = SluiceServer.start(new SluiceServer.Options(c, dir, null, null), time)) {
            return work.run(server);
        } finally {
            BenchServers.deleteTree(dir);
        }
    }

    private String topic(String phase) {
        return "sluice-bench-sources-" + o.scenario().name() + "-" + phase + "-" + Long.toHexString(time.nanos());
    }

    private void createTopic(String topic) throws InterruptedException {
        try {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(o.partitions()), Optional.empty()))).all()
                    .get(ADMIN.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create the topic " + topic + ": " + e, e);
        }
    }

    /** Each partition's end offset (its record count: the topics are fresh). */
    private Map<Integer, Long> endOffsets(String topic) throws InterruptedException {
        Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
        for (int i = 0; i < o.partitions(); i++) {
            ask.put(new TopicPartition(topic, i), OffsetSpec.latest());
        }
        try {
            Map<Integer, Long> ends = new TreeMap<>();
            admin.listOffsets(ask).all().get(ADMIN.toMillis(), TimeUnit.MILLISECONDS)
                    .forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
            return ends;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the end offsets of " + topic + ": " + e, e);
        }
    }

    private BenchBroker startBroker() throws InterruptedException {
        try {
            return BenchBroker.start(o.workDir(), progress);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the bench's Kafka broker", e);
        }
    }

    private void sleepUntil(long nanos) throws InterruptedException {
        long left = nanos - time.nanos();
        if (left > 0) {
            time.sleep(Duration.ofNanos(left));
        }
    }
}
