package io.sluice.bench;

import io.sluice.config.Format;
import io.sluice.apply.BatchRunner;
import io.sluice.apply.BatchSizeController;
import io.sluice.apply.RetryPolicy;
import io.sluice.config.SluiceConfig;
import io.sluice.config.Sources;
import io.sluice.durable.RecordApplier;
import io.sluice.metrics.Metrics;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One {@code sluice bench-sources} run ({@link SourcesBench}) as its phases share it: the settings, resolved (the
 * statement each record runs, the consumers), the notes the report gets, and sluice's side of a phase: a fresh
 * server, the sources section started on it as {@code serve} starts it, and what the graph holds after. Used by the
 * run's one thread.
 *
 * @param records    records the topic gets, and rows raw applies (N)
 * @param partitions the topics' partitions (P)
 * @param consumers  sluice's consumers, and the naive baseline's
 * @param statement  the scenario's statement as the Cypher strategy runs it ({@code event.x})
 * @param bootstrap  the broker's bootstrap servers
 * @param notes      what the report notes, added to as the phases go
 */
record SourcesRun(Scenario scenario, long records, int partitions, int consumers, String statement, long seed,
        SluiceConfig config, Path workDir, String bootstrap, Time time, PrintStream progress, List<String> notes) {
    /** Sluice's positions in the graph (SourcePositions' label): not the scenario's nodes. */
    static final String POSITION_LABEL = "SluicePosition";

    /** Work on a fresh server. */
    @FunctionalInterface
    interface OnServer<T> {
        T run(SluiceServer server) throws InterruptedException;
    }

    /**
     * A fresh sluice (embedded Neo4j in a temporary directory under the work directory, no listener, the scenario's
     * schema, no sources of the config's own), given {@code work}, stopped, its directory deleted.
     */
    <T> T onFreshServer(String phase, OnServer<T> work) throws InterruptedException {
        Path dir;
        try {
            Files.createDirectories(workDir);
            dir = Files.createTempDirectory(workDir, "sluice-bench-sources-" + phase + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a temporary database directory in " + workDir, e);
        }
        SluiceConfig c = config.withTemplates(Map.of(), scenario.schema()).with(Sources.DEFAULT);
        c = c.with(c.warmup().withoutRehearsal());
        try (SluiceServer server = SluiceServer.start(new SluiceServer.Options(c, dir, null, null), time)) {
            return work.run(server);
        } finally {
            BenchServers.deleteTree(dir);
        }
    }

    /** The sources section for {@code topic}, as a config file would give it, started on {@code sink}. */
    KafkaSources startSources(Sink sink, String topic, Metrics metrics) {
        Sources.KafkaSource configured = config.sources().kafka();
        Sources.KafkaSource section = new Sources.KafkaSource(bootstrap, topic + "-sluice",
                configured == null ? Map.of() : configured.properties(), consumers, Sources.Start.EARLIEST, null,
                null, Sources.OnError.STOP, Sources.DeadLetter.NONE, List.of(new Sources.Topic(topic, null,
                        Format.STRING, Format.JSON, new Sources.Cypher(List.of(statement), null,
                        Sources.Binding.DEFAULT, lockOrder()), null, false)));
        try {
            KafkaSources sources = KafkaSources.create(section, sink, parts(sink, metrics), metrics, time, "bench");
            sources.start();
            return sources;
        } catch (GraphException e) {
            throw new IllegalStateException("cannot start the sources on " + topic + ": " + e.getMessage(), e);
        }
    }

    /**
     * The scenario template's lock order as the Cypher strategy's paths: what a user writes for it
     * ({@code lock_order: [__value.url]} for visited: the sites every consumer's batches MERGE).
     */
    private List<String> lockOrder() {
        return Template.compile(scenario.name(), scenario.template()).lockOrder().stream()
                .map(f -> "__value." + f).toList();
    }

    /**
     * The apply loop's parts as {@code serve} builds them for the sources ({@code WritePathBuilder#sources}): a
     * batch runner with the config's lock order, coalescing and bounded retries; its adaptive row limit.
     */
    private RecordApplier.Parts parts(Sink sink, Metrics metrics) {
        return parts(config, sink, metrics);
    }

    /** The same for any config (the Debezium bench's too). */
    static RecordApplier.Parts parts(SluiceConfig config, Sink sink, Metrics metrics) {
        var r = config.retry();
        var b = config.batch();
        Supplier<BatchSizeController> sizes = b.adaptive() ? () -> new BatchSizeController(b.minRows(), b.maxRows(),
                b.targetCommit(), b.minRows() * 4) : null;
        return new RecordApplier.Parts(clock -> new BatchRunner(sink, new RetryPolicy(r.maxAttempts(),
                r.initialBackoff(), r.maxBackoff()), clock, Jitter.RANDOM, metrics, config.apply().lockOrder(),
                config.apply().coalesceCypher()), sizes, b.maxRows());
    }

    /** Records applied of {@code topic}: every partition's position, the highest seen (a revoked one is not listed). */
    static LongSupplier applied(KafkaSources sources, String topic) {
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

    /** What the graph holds: the scenario's nodes (sluice's positions aside) and relationships. */
    static Map<String, Long> graph(Sink sink) {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("nodes", count(sink, "MATCH (n) WHERE NOT n:" + POSITION_LABEL + " RETURN count(n)", Map.of()));
        m.put("relationships", count(sink, "MATCH ()-[r]->() RETURN count(r)", Map.of()));
        return m;
    }

    static long count(Sink sink, String cypher, Map<String, Object> params) {
        try {
            return sink.inReadTransaction(tx -> ((Number) tx.run(cypher, params).rows().getFirst().getFirst())
                    .longValue());
        } catch (GraphException e) {
            throw new IllegalStateException("cannot count what the phase left: " + e.getMessage(), e);
        }
    }
}
