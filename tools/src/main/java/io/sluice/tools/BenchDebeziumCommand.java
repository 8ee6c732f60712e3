package io.sluice.tools;

import io.sluice.bench.DebeziumBench;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.time.Time;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice bench-debezium}: Debezium change events from a backlog, row by row and whole transactions, against
 * the raw UNWIND limit, and the lag at half the transactions' rate ({@link DebeziumBench}).
 */
@Command(name = "bench-debezium", mixinStandardHelpOptions = true,
        description = {"Debezium change events (the PostgreSQL connector's shape) applied from a backlog: raw UNWIND"
                + " of the same rows, the debezium source row by row, and whole source transactions; then the lag at"
                + " half the transactions' rate.",
                "Each phase runs on a fresh embedded Neo4j; the broker is the bench's own (sluice kafka in a child"
                        + " process) unless --kafka names one. See docs/BENCHMARKS.md."})
final class BenchDebeziumCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--rows", defaultValue = "200000", description = "row events per phase (default: ${DEFAULT-VALUE})")
    long rows;

    @Option(names = "--tx-rows", defaultValue = "10",
            description = "rows per source transaction (default: ${DEFAULT-VALUE})")
    int txRows;

    @Option(names = "--prime", defaultValue = "30",
            description = "seconds of untimed phases first, to warm the JIT (default: ${DEFAULT-VALUE})")
    long prime;

    @Option(names = "--lag", defaultValue = "30",
            description = "seconds the lag phase's producer sends (0: none) (default: ${DEFAULT-VALUE})")
    long lag;

    @Option(names = "--format", defaultValue = "json-schema",
            description = "the events' converter: json-schema (schemas.enable=true, Debezium's types) or json"
                    + " (the payload alone) (default: ${DEFAULT-VALUE})")
    String format;

    @Option(names = "--kafka", defaultValue = "start", paramLabel = "HOST:PORT[,...]|start",
            description = "the brokers (start: the bench's own) (default: ${DEFAULT-VALUE})")
    String kafka;

    @Option(names = "--config", description = "YAML config for the server (batch, retry, apply)")
    Path config;

    @Option(names = "--work", paramLabel = "DIR", description = "where the temporary databases go")
    Path work;

    @Override
    public Integer call() throws Exception {
        if (!format.equals("json-schema") && !format.equals("json")) {
            throw new IllegalArgumentException("--format: json-schema or json");
        }
        if (rows < 1 || txRows < 1) {
            throw new IllegalArgumentException("--rows and --tx-rows must be >= 1");
        }
        SluiceConfig c = config == null ? SluiceConfig.defaults() : ConfigLoader.load(config);
        Path workDir = work != null ? work : Files.createTempDirectory("sluice-bench-debezium-");
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        String command = "sluice " + (args.isEmpty() || !args.getFirst().equals(spec.name()) ? spec.name() + " " : "")
                + String.join(" ", args);
        String report = new DebeziumBench(new DebeziumBench.Options(rows, txRows, Duration.ofSeconds(prime),
                Duration.ofSeconds(lag), format.equals("json-schema"), c, workDir, kafka, command.strip()), Time.SYSTEM, System.err).run();
        System.out.print(report);
        return 0;
    }
}
