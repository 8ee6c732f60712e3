package io.sluice.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code sluice bench}: placeholder until the bench package lands (this same issue). */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Benchmark sluice's modes against each other.")
final class BenchCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return 1;
    }
}
