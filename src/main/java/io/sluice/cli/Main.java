package io.sluice.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code sluice} command line. */
@Command(name = "sluice", mixinStandardHelpOptions = true, version = "sluice 0.1.0",
        description = "A write gateway for Neo4j: group commit, journal, backpressure, bulk import.",
        subcommands = {ServeCommand.class, BenchCommand.class, ImportCommand.class, ImportBenchCommand.class,
                CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
        // Neo4j ships its own SLF4J provider; sluice logs through Logback (logback.xml).
        System.setProperty("slf4j.provider", "ch.qos.logback.classic.spi.LogbackServiceProvider");
        int code = new CommandLine(new Main())
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    cmd.getErr().println("sluice: " + e.getMessage());
                    org.slf4j.LoggerFactory.getLogger(Main.class).debug("failure", e);
                    return 2;
                })
                .execute(args);
        if (code != 0 || !"serve".equals(args.length > 0 ? args[0] : "")) {
            System.exit(code);
        }
    }
}
