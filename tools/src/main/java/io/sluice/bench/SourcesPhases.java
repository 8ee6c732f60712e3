package io.sluice.bench;

import io.sluice.metrics.PrometheusMetrics;
import io.sluice.server.SluiceServer;
import io.sluice.source.KafkaSources;
import io.sluice.time.Time;
import io.sluice.write.Template;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * The measured phases of {@code sluice bench-sources} ({@link SourcesBench}) on the filled topic, each on the fresh
 * server it is given: {@code raw} (the limit), {@code sources} (sluice's consumers) and {@code naive} (a transaction
 * per record); the topic's filling; and the prime, all three on one throwaway server. The lag phase is
 * {@link LagPhase}. Used by the run's one thread.
 */
final class SourcesPhases {
    /** The priming producer's rate: above what sluice applies here, so a backlog forms as in the sources phase. */
    private static final double PRIME_RATE = 30_000;
    /** The raw phase's window: a bound, never reached (it stops at its rows). */
    private static final Duration RAW_BOUND = Duration.ofMinutes(30);

    private final SourcesRun run;
    private final SourcesKafka kafka;
    private final PhaseWatch watch;
    private final Time time;

    SourcesPhases(SourcesRun run, SourcesKafka kafka, PhaseWatch watch) {
        this.run = run;
        this.kafka = kafka;
        this.watch = watch;
        this.time = run.time();
    }

    /**
     * Raw, sources while a producer sends, naive: a quarter, a half and a quarter of {@code prime}, one throwaway
     * server, nothing kept. Sources' half starts once the producer has sent a second of records (its JVM takes
     * seconds to start), so it is spent applying.
     */
    void prime(Duration prime) throws InterruptedException {
        Duration slice = prime.dividedBy(4);
        run.progress().printf(Locale.ROOT, "bench-sources: priming the JIT on a throwaway server: raw %.0f s, sources"
                + " %.0f s, naive %.0f s%n", slice.toMillis() / 1e3, slice.toMillis() / 1e3 * 2, slice.toMillis() / 1e3);
        run.onFreshServer("prime", server -> {
            Scenario s = run.scenario();
            RawLoad raw = new RawLoad(server.sink(), Template.compile(s.name(), s.template()),
                    s.workload(run.seed()).stream(0), time);
            Tally tally = new Tally(Window.of(time.nanos(), 0, slice.toNanos()), 1);
            raw.start(tally);
            watch.follow("prime raw", tally::writes, Long.MAX_VALUE, time.nanos(), slice, raw::finished);
            raw.awaitStop();
            String topic = kafka.topic("prime");
            kafka.createTopic(topic);
            Duration sourcesSlice = slice.multipliedBy(2);
            try (ProducerProcess producer = ProducerProcess.start(new ProducerProcess.Spec(kafka.bootstrap(), topic,
                    s.name(), run.seed(), Long.MAX_VALUE, PRIME_RATE, sourcesSlice.plusSeconds(2).toNanos(), "prime"),
                    run.progress())) {
                long bound = time.nanos() + SourcesKafka.ADMIN.toNanos();
                while (kafka.endOffsets(topic).values().stream().mapToLong(Long::longValue).sum() < PRIME_RATE
                        && !producer.finished() && time.nanos() - bound < 0) {
                    time.sleep(Duration.ofMillis(100));
                }
                try (PrometheusMetrics metrics = new PrometheusMetrics();
                        KafkaSources sources = run.startSources(server.sink(), topic, metrics)) {
                    watch.follow("prime sources", SourcesRun.applied(sources, topic), Long.MAX_VALUE, time.nanos(),
                            sourcesSlice, () -> false);
                }
                producer.await(SourcesKafka.ADMIN);
            }
            try (NaiveConsumer naive = new NaiveConsumer(kafka.bootstrap(), topic, topic + "-naive",
                    run.consumers(), server.sink(), run.statement(), time)) {
                watch.follow("prime naive", naive::applied, Long.MAX_VALUE, time.nanos(), slice, () -> false);
            }
            return null;
        });
    }

    /** A fresh topic of N records, filled by a producer process. */
    void fill(String topic) throws InterruptedException {
        kafka.createTopic(topic);
        ProducerProcess.Summary sum;
        try (ProducerProcess p = ProducerProcess.start(new ProducerProcess.Spec(kafka.bootstrap(), topic,
                run.scenario().name(), run.seed(), run.records(), 0, 0, "fill"), run.progress())) {
            sum = p.await(Duration.ofSeconds(120 + run.records() / 2_000));
        }
        Map<Integer, Long> ends = kafka.endOffsets(topic);
        long total = ends.values().stream().mapToLong(Long::longValue).sum();
        if (sum.failed() > 0 || total != run.records()) {
            throw new IllegalStateException("the producer filled " + topic + " with " + total + " records, not "
                    + run.records() + " (" + sum.failed() + " failed: " + sum.firstError() + ")");
        }
        run.progress().printf(Locale.ROOT, "bench-sources: %s filled: %,d records in %.1f s (%,.0f/s), partitions"
                + " %s%n", topic, total, sum.seconds(), sum.ratePerSecond(), ends);
    }

    /** The raw limit on the topic's rows: stream 0 of the seed, N of them. */
    SourcesReport.Phase raw(SluiceServer server) throws InterruptedException {
        Scenario s = run.scenario();
        RawLoad load = new RawLoad(server.sink(), Template.compile(s.name(), s.template()),
                s.workload(run.seed()).stream(0), time, run.records());
        Tally tally = new Tally(Window.of(time.nanos(), 0, RAW_BOUND.toNanos()), 1);
        PhaseWatch.Reading before = watch.reading();
        load.start(tally);
        PhaseWatch.Followed f = watch.follow("raw", tally::writes, run.records(), before.nanos(), null,
                load::finished);
        load.awaitStop();
        PhaseWatch.Reading after = watch.reading();
        LoadSummary sum = tally.summary();
        if (sum.errors() > 0) {
            run.notes().add("raw: " + sum.errors() + " transactions failed (" + sum.errorsByStatus() + ")");
        }
        return watch.phase(SourcesReport.Phase.RAW, sum.writes(), before, after, f, sum.writes() == run.records(),
                SourcesRun.graph(server.sink()), sum.samples() > 0 ? (double) sum.writes() / sum.samples() : 0, 0,
                "UNWIND in transactions of " + BenchMode.RAW_BATCH_ROWS + " rows, one thread, no Kafka");
    }

    /** Sluice applying the filled topic, from the start of consuming to every partition's position at its end. */
    SourcesReport.Phase sources(SluiceServer server, String topic) throws InterruptedException {
        PhaseWatch.Followed f;
        PhaseWatch.Reading before;
        PhaseWatch.Reading after;
        double started;
        ServerStats stats;
        try (PrometheusMetrics metrics = new PrometheusMetrics()) {
            long t0 = time.nanos();
            try (KafkaSources sources = run.startSources(server.sink(), topic, metrics)) {
                before = watch.reading();
                started = (before.nanos() - t0) / 1e9;
                f = watch.follow("sources", SourcesRun.applied(sources, topic), run.records(), before.nanos(), null,
                        () -> false);
                after = watch.reading(f.end());
                stats = ServerStats.parse(metrics.scrape());
            }
        }
        long positions = SourcesRun.count(server.sink(), "MATCH (p:" + SourcesRun.POSITION_LABEL + " {source:"
                + " $source}) RETURN coalesce(sum(p.next), 0)", Map.of("source", "topic:" + topic));
        boolean complete = f.applied() == run.records() && positions == run.records();
        if (!complete) {
            run.notes().add(String.format(Locale.ROOT, "sources: %,d of %,d records applied (%s), positions in the"
                    + " graph %,d", f.applied(), run.records(), f.stopped(), positions));
        }
        return watch.phase(SourcesReport.Phase.SOURCES, f.applied(), before, after, f, complete,
                SourcesRun.graph(server.sink()), stats.rowsPerBatch(), Math.round(stats.deadlockRetries()),
                String.format(Locale.ROOT, "%d consumers, %d partitions, Cypher strategy (its start took %.2f s, not"
                        + " timed)", run.consumers(), run.partitions(), started));
    }

    /** One transaction per record, as many consumers, the same topic, up to {@code limit}. */
    SourcesReport.Phase naive(SluiceServer server, String topic, Duration limit) throws InterruptedException {
        PhaseWatch.Followed f;
        PhaseWatch.Reading before;
        PhaseWatch.Reading after;
        long retries;
        try (NaiveConsumer naive = new NaiveConsumer(kafka.bootstrap(), topic, topic + "-naive", run.consumers(),
                server.sink(), run.statement(), time)) {
            before = watch.reading();
            f = watch.follow("naive", naive::applied, run.records(), before.nanos(), limit, () -> false);
            after = watch.reading(f.end());
            retries = naive.retries();
            if (naive.failure() != null) {
                run.notes().add("naive: a consumer stopped: " + naive.failure());
            }
        }
        boolean complete = f.applied() >= run.records();
        return watch.phase(SourcesReport.Phase.NAIVE, f.applied(), before, after, f, complete,
                complete ? SourcesRun.graph(server.sink()) : null, 1, retries, String.format(Locale.ROOT,
                        "%d consumers, a transaction per record%s", run.consumers(), complete ? ""
                        : String.format(Locale.ROOT, ", stopped after %.0f s (%s)", (f.end() - before.nanos()) / 1e9,
                        f.stopped())));
    }
}
