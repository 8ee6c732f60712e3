package io.sluice.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code sluice} command line. */
@Command(name = "sluice", mixinStandardHelpOptions = true, version = "sluice 0.1.0",
        description = "A write gateway for Neo4j: group commit, journal, backpressure, bulk import.",
        subcommands = {ServeCommand.class, Neo4jCommand.class, KafkaCommand.class, BenchCommand.class, ImportCommand.class,
                ImportBenchCommand.class, StatusCommand.class, SetInitialPasswordCommand.class, CommandLine.HelpCommand.class})
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
        // serve, neo4j and kafka return from their shutdown hook: System.exit there would wait for that very hook
        String command = args.length > 0 ? args[0] : "";
        if (code != 0 || !(command.equals("serve") || command.equals("neo4j") || command.equals("kafka"))) {
            System.exit(code);
        }
    }
}
