package io.sluice.tools;

import io.sluice.bench.ImportBench;
import io.sluice.time.Time;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice import-bench}: the import paths against their baselines on the same generated data. */
@Command(name = "import-bench", mixinStandardHelpOptions = true,
        description = {"Benchmark sluice import against its baselines on generated data (see docs/BENCHMARKS.md, Import).",
                "offline: --into vs Neo4j's importer called bare; create: --online vs LOAD CSV IN [CONCURRENT] TRANSACTIONS;",
                "merge: --online --merge vs the raw UNWIND limit and LOAD CSV IN CONCURRENT TRANSACTIONS ON ERROR RETRY."})
final class ImportBenchCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SCENARIO", description = "offline, create or merge")
    String scenario;

    @Option(names = "--scale", defaultValue = "1", description = "dataset size factor (default: ${DEFAULT-VALUE}: offline 3.1M "
            + "records, create 2M rows, merge 520k rows)")
    double scale;

    @Option(names = "--threads", defaultValue = "0", description = "--threads for the imports (default: the number of cores)")
    int threads;

    @Option(names = "--batch-size", defaultValue = "5000", description = "--batch-size of the online imports (default: ${DEFAULT-VALUE})")
    int batchSize;

    @Option(names = "--apply-mode", defaultValue = "direct", description = "--apply-mode of the online imports (default: ${DEFAULT-VALUE})")
    String applyMode;

    @Option(names = "--no-warmup", description = "skip the untimed warm-up of the online modes")
    boolean noWarmup;

    @Option(names = "--work", paramLabel = "DIR", description = "where data and databases go (default: the system temp dir)")
    Path work;

    @Option(names = "--out", paramLabel = "FILE.json", description = "also write the results as JSON")
    Path out;

    @Override
    public Integer call() throws Exception {
        if (!(scale > 0)) {
            throw new IllegalArgumentException("--scale must be > 0, got " + scale);
        }
        Path w = work != null ? work : Path.of(System.getProperty("java.io.tmpdir"));
        Map<String, Object> report = new ImportBench(new ImportBench.Options(scenario, scale, w, threads, batchSize,
                !applyMode.equals("sync"), !noWarmup), System.err, Time.SYSTEM).run();
        System.out.print(ImportBench.table(report));
        if (out != null) {
            ImportBench.writeJson(report, out);
            System.out.println("results written to " + out);
        }
        return 0;
    }
}
