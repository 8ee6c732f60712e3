package io.sluice.tools;

import io.sluice.bench.Rate;
import io.sluice.bench.Scenario;
import io.sluice.bench.SourcesBench;
import io.sluice.bench.SourcesReport;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.time.Time;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code sluice bench-sources}: application topics in (the {@code sources.kafka} section) against the raw UNWIND
 * limit and a consumer with a transaction per record, and the lag at a share of the rate ({@link SourcesBench}).
 */
@Command(name = "bench-sources", mixinStandardHelpOptions = true,
        description = {"Benchmark sluice applying a Kafka topic (sources.kafka, the Cypher strategy) in one run, on a"
                + " scenario's rows and statement: raw (the raw UNWIND limit on the same rows), sources (a topic"
                + " filled by a producer in its own process, then applied by sluice: records/s and CPU per record),"
                + " naive (a consumer applying one record per transaction) and lag (a producer at --rate of the"
                + " sources rate for --duration; every partition's lag each second).",
                "Each phase runs on a fresh embedded Neo4j; the broker is the bench's own (sluice kafka in a child"
                        + " process) unless --kafka names one. See docs/BENCHMARKS.md."})
final class BenchSourcesCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", defaultValue = "visited", paramLabel = "SCENARIO",
            description = "whose rows and statement: create-node, create-labeled, create-indexed or visited"
                    + " (default: ${DEFAULT-VALUE})")
    String scenario;

    @Option(names = "--records", defaultValue = "500000",
            description = "records the topic gets (and rows raw applies); the default is meant to make sources some"
                    + " 20-40 s and raw half that on a quiet 2-core machine (default: ${DEFAULT-VALUE})")
    long records;

    @Option(names = "--partitions", defaultValue = "4",
            description = "partitions of each topic; records are keyed by the scenario's key"
                    + " (default: ${DEFAULT-VALUE})")
    int partitions;

    @Option(names = "--consumers",
            description = "sluice's consumers, and the naive baseline's (default: the config's sources.kafka.consumers,"
                    + " or its default)")
    Integer consumers;

    @Option(names = "--naive-seconds", defaultValue = "20",
            description = "the naive baseline's time limit: it stops then, or when every record is applied"
                    + " (default: ${DEFAULT-VALUE})")
    double naiveSeconds;

    @Option(names = "--rate", defaultValue = "80%", paramLabel = "R|P%",
            description = "the lag phase's producer rate: records/s (3000) or a share of the sources rate measured in"
                    + " this run (80%%) (default: ${DEFAULT-VALUE})")
    String rate;

    @Option(names = "--duration", defaultValue = "60",
            description = "seconds the lag phase's producer sends (0: no lag phase) (default: ${DEFAULT-VALUE})")
    double duration;

    @Option(names = "--prime", defaultValue = "60",
            description = "seconds, before the first phase, of untimed raw, sources and naive (a third each) on a"
                    + " throwaway server, to warm up the JIT (default: ${DEFAULT-VALUE})")
    double prime;

    @Option(names = "--kafka", defaultValue = "start", paramLabel = "HOST:PORT[,...]|start",
            description = "the brokers (start: a broker of the bench's own, sluice kafka in a child process); each"
                    + " phase gets topics and groups of its own (default: ${DEFAULT-VALUE})")
    String kafka;

    @Option(names = "--config", description = "YAML config for the server (batch, retry, apply, neo4j; sources.kafka's"
            + " consumers and properties); its templates, schema and sources are replaced by the scenario's")
    Path config;

    @Option(names = "--work", paramLabel = "DIR",
            description = "where the temporary databases and the broker's data go (default: the system temp dir)")
    Path work;

    @Option(names = "--seed", defaultValue = "42",
            description = "seed of the row generator (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--out", paramLabel = "FILE.json", description = "also write the results as JSON")
    Path out;

    @Override
    public Integer call() throws Exception {
        SluiceConfig c = config == null ? SluiceConfig.defaults() : ConfigLoader.load(config);
        Path workDir = work != null ? work : Path.of(System.getProperty("java.io.tmpdir"));
        // the arguments as given: from the top of the command line, this command's name among them
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        String command = "sluice " + (args.isEmpty() || !args.getFirst().equals(spec.name()) ? spec.name() + " " : "")
                + String.join(" ", args);
        SourcesReport report = new SourcesBench(new SourcesBench.Options(Scenario.named(scenario), records, partitions,
                consumers, seconds(naiveSeconds, "--naive-seconds"), Rate.parse(rate), seconds(duration, "--duration"),
                seconds(prime, "--prime"), c, workDir, seed, kafka, command.strip()), Time.SYSTEM, System.err).run();
        System.out.print(report.table());
        if (out != null) {
            report.writeJson(out);
            System.out.println("results written to " + out);
        }
        return 0;
    }

    private static Duration seconds(double s, String option) {
        if (!(s >= 0) || s > 86_400) {
            throw new IllegalArgumentException(option + " must be a number of seconds in [0, 86400], got " + s);
        }
        return Duration.ofMillis(Math.round(s * 1000));
    }
}
