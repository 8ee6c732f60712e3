package io.sluice.bench;

import io.sluice.metrics.PrometheusMetrics;
import io.sluice.server.SluiceServer;
import io.sluice.source.KafkaSources;
import io.sluice.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code sluice bench-sources}' lag phase ({@link SourcesBench}): sluice consuming a fresh topic while a producer
 * sends at a target rate; every second, every partition's lag as sluice reports it and the backlog by the broker's
 * end offsets; then the drain. Used by the run's one thread.
 */
final class LagPhase {
    /** How long the lag phase waits for sluice to reach the end after the producer stops. */
    private static final Duration DRAIN = Duration.ofSeconds(120);
    /** How long the lag phase lets sluice's consumer group settle before the producer starts. */
    private static final Duration SETTLE = Duration.ofSeconds(5);

    private final SourcesRun run;
    private final SourcesKafka kafka;
    private final PhaseWatch watch;
    private final Time time;

    LagPhase(SourcesRun run, SourcesKafka kafka, PhaseWatch watch) {
        this.run = run;
        this.kafka = kafka;
        this.watch = watch;
        this.time = run.time();
    }

    /**
     * Sluice consuming a fresh topic while a producer sends at {@code target} records/s ({@code rate} as the command
     * line gave it) for {@code duration}; the lag every second.
     */
    SourcesReport.Lag run(SluiceServer server, Rate rate, double target, Duration duration)
            throws InterruptedException {
        String topic = kafka.topic("lag");
        kafka.createTopic(topic);
        String label = rate.percent() ? rate.label() : String.format(Locale.ROOT, "%.0f/s", target);
        run.progress().printf(Locale.ROOT, "bench-sources lag: a producer at %,.0f records/s (%s) for %.0f s%n",
                target, label, duration.toMillis() / 1e3);
        try (PrometheusMetrics metrics = new PrometheusMetrics();
                KafkaSources sources = run.startSources(server.sink(), topic, metrics)) {
            awaitAssigned(sources, topic);
            List<SourcesReport.Sample> samples = new ArrayList<>();
            PhaseWatch.Reading before = watch.reading();
            ProducerProcess.Summary sum;
            long produced;
            try (ProducerProcess producer = ProducerProcess.start(new ProducerProcess.Spec(kafka.bootstrap(), topic,
                    run.scenario().name(), run.seed(), Long.MAX_VALUE, target, duration.toNanos(), "lag"),
                    run.progress())) {
                long start = before.nanos();
                long bound = start + duration.plus(SourcesKafka.ADMIN).toNanos();
                Map<Integer, Long> seen = new HashMap<>();
                for (long tick = start + 1_000_000_000L; !producer.finished() && time.nanos() - bound < 0;
                        tick += 1_000_000_000L) {
                    watch.sleepUntil(tick);
                    SourcesReport.Sample s = sample(sources.partitions(), topic, (time.nanos() - start) / 1e9, seen);
                    samples.add(s);
                    run.progress().printf(Locale.ROOT, "bench-sources lag  %4.0f s  sluice's lag %s records, %s s;"
                            + " backlog by the end offsets %s records%n", s.at(), text(s.lagRecords()),
                            s.lagSeconds() == null ? "?" : String.format(Locale.ROOT, "%.2f", s.lagSeconds()),
                            text(s.endLagRecords()));
                }
                sum = producer.await(SourcesKafka.ADMIN);
                produced = time.nanos();
            }
            Map<Integer, Long> ends = kafka.endOffsets(topic);
            long total = ends.values().stream().mapToLong(Long::longValue).sum();
            PhaseWatch.Followed f = watch.follow("lag drain", SourcesRun.applied(sources, topic), total, produced,
                    DRAIN, () -> false);
            PhaseWatch.Reading after = watch.reading(f.end());
            double drain = f.applied() >= total ? (f.end() - produced) / 1e9 : -1;
            if (drain < 0) {
                run.notes().add(String.format(Locale.ROOT, "lag: %,d of %,d records applied %.0f s after the"
                        + " producer stopped (%s)", f.applied(), total, DRAIN.toSeconds(), f.stopped()));
            }
            if (sum.failed() > 0) {
                run.notes().add("lag: the producer failed to send " + sum.failed() + " records: " + sum.firstError());
            }
            ServerStats stats = ServerStats.parse(metrics.scrape());
            return SourcesReport.Lag.of(label, target, sum.acked(), sum.seconds(), samples, drain,
                    after.cpu() - before.cpu(), f.applied(), stats.rowsPerBatch(), Math.round(stats.deadlockRetries()));
        }
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
            backlog = kafka.endOffsets(topic).values().stream().mapToLong(Long::longValue).sum() - applied;
        } catch (IllegalStateException e) {
            run.progress().println("bench-sources lag: " + e.getMessage());
        }
        return new SourcesReport.Sample(at, known == run.partitions() ? records : null, seconds, backlog);
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
        long bound = time.nanos() + SourcesKafka.ADMIN.toNanos();
        while (sources.partitions().stream().filter(p -> topic.equals(p.get("topic"))
                && ((Number) p.get("next")).longValue() >= 0).count() < run.partitions()) {
            if (time.nanos() - bound >= 0) {
                throw new IllegalStateException("sluice's consumers did not get every partition of " + topic
                        + " within " + SourcesKafka.ADMIN + ": " + sources.partitions());
            }
            time.sleep(PhaseWatch.POLL);
        }
    }
}
