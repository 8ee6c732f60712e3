package io.sluice.bench;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.config.Sources;
import io.sluice.cypher.CypherText;
import io.sluice.server.SluiceServer;
import io.sluice.source.KafkaSources;
import io.sluice.time.Time;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;

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
 *       {@value PhaseWatch#POLL_MILLIS} ms) is at its end offset; the positions in the graph are checked after.</li>
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
 *
 * <p>Here the run's order; the phases are {@link SourcesPhases} (prime, fill, raw, sources, naive) and
 * {@link LagPhase}, on what they share: {@link SourcesRun} (the settings, the notes, sluice's side: a fresh server,
 * the sources started on it, the graph counted), {@link SourcesKafka} (the topics) and {@link PhaseWatch} (the
 * clocks, following a phase's applied count).
 */
public final class SourcesBench {
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

    private final Options o;
    private final Time time;
    private final PrintStream progress;
    private final String statement;
    private final int consumers;

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
            String bootstrap = b != null ? b.bootstrap() : o.kafka();
            Properties p = new Properties();
            p.put("bootstrap.servers", bootstrap);
            try (Admin admin = Admin.create(p)) {
                SourcesRun run = new SourcesRun(o.scenario(), o.records(), o.partitions(), consumers, statement,
                        o.seed(), o.config(), o.workDir(), bootstrap, time, progress, new ArrayList<>());
                return phases(run, new SourcesKafka(bootstrap, admin, o.partitions(), o.scenario().name(), time),
                        new PhaseWatch(time, progress, b != null ? b.handle() : null));
            }
        }
    }

    private SourcesReport phases(SourcesRun run, SourcesKafka kafka, PhaseWatch watch) throws InterruptedException {
        SourcesPhases measured = new SourcesPhases(run, kafka, watch);
        List<String> notes = run.notes();
        if (!o.prime().isZero()) {
            measured.prime(o.prime());
        }
        // filled first: the bench's JVM is idle meanwhile, so what the prime left in the JIT's queue compiles before
        // the first phase measured
        String topic = kafka.topic(SourcesReport.Phase.SOURCES);
        measured.fill(topic);
        List<SourcesReport.Phase> phases = new ArrayList<>();
        SourcesReport.Phase raw = run.onFreshServer(SourcesReport.Phase.RAW, measured::raw);
        phases.add(raw);
        SourcesReport.Phase sources = run.onFreshServer(SourcesReport.Phase.SOURCES, s -> measured.sources(s, topic));
        phases.add(sources);
        if (raw.complete() && sources.complete() && !raw.graph().equals(sources.graph())) {
            notes.add("WRONG: the same rows left another graph through sources " + sources.graph() + " than raw "
                    + raw.graph());
        }
        SourcesReport.Phase naive = run.onFreshServer(SourcesReport.Phase.NAIVE,
                s -> measured.naive(s, topic, o.naive()));
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
            LagPhase phase = new LagPhase(run, kafka, watch);
            lag = run.onFreshServer("lag", s -> phase.run(s, o.rate(), target, o.duration()));
        }
        return SourcesReport.of(o.scenario().name(), o.command(), o.records(), o.partitions(), consumers, phases, lag,
                notes);
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

    private BenchBroker startBroker() throws InterruptedException {
        try {
            return BenchBroker.start(o.workDir(), progress);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the bench's Kafka broker", e);
        }
    }
}
