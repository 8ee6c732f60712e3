package io.sluice.cli;

import java.util.Locale;
import java.util.Map;
import io.sluice.format.Version;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine;

/**
 * The {@code sluice} command line of the product: {@code serve}, {@code status}, {@code import},
 * {@code set-initial-password}, {@code neo4j}. The tools' commands ({@code bench}, {@code import-bench},
 * {@code kafka}) are added by the tools module's {@code ToolsMain} through {@link #run}; the
 * launcher runs each command on its own module's class path.
 */
@Command(name = "sluice", mixinStandardHelpOptions = true, versionProvider = Main.VersionLines.class,
        description = "A write gateway for Neo4j: group commit, journal, backpressure, bulk import.",
        subcommands = {ServeCommand.class, Neo4jCommand.class, ImportCommand.class, StatusCommand.class,
                SetInitialPasswordCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    /** The log format: {@code text} (the default) or {@code json}, one object a line (docs/OPERATIONS.md, Logs). */
    static final String LOG_FORMAT_ENV = "SLUICE_LOG_FORMAT";
    private static final String LOGBACK_CONFIG = "logback.configurationFile";

    /** {@code --version}: the version and commit, and the Java runtime. */
    static final class VersionLines implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {Version.line(), "Java " + Runtime.version() + " (" + System.getProperty("java.home")
                    + ")"};
        }
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    /** {@code text} or {@code json} from the variable's value (unset or empty: text); null for anything else. */
    static String logFormat(String value) {
        String v = value == null || value.isBlank() ? "text" : value.strip().toLowerCase(Locale.ROOT);
        return v.equals("text") || v.equals("json") ? v : null;
    }

    public static void main(String[] args) {
        run(args, Map.of());
    }

    /** The command line with {@code extra} commands (name to picocli command object) added. */
    public static CommandLine commandLine(Map<String, Object> extra) {
        CommandLine cl = new CommandLine(new Main());
        extra.forEach(cl::addSubcommand);
        return cl;
    }

    /** Runs {@code args} with {@code extra} commands; exits the JVM (but after serve, neo4j and kafka: see below). */
    public static void run(String[] args, Map<String, Object> extra) {
        // Neo4j ships its own SLF4J provider; sluice logs through Logback (logback.xml), and SLF4J need not say so
        System.setProperty("slf4j.provider", "ch.qos.logback.classic.spi.LogbackServiceProvider");
        System.setProperty("slf4j.internal.verbosity", "WARN");
        String format = logFormat(System.getenv(LOG_FORMAT_ENV));
        if (format == null) {
            System.err.println("sluice: " + LOG_FORMAT_ENV + " is text or json, not '" + System.getenv(LOG_FORMAT_ENV) + "'");
            System.exit(2);
        }
        if (format.equals("json") && System.getProperty(LOGBACK_CONFIG) == null) {
            System.setProperty(LOGBACK_CONFIG, "logback-json.xml"); // before anything logs: Logback reads it once
        }
        int code = commandLine(extra)
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    cmd.getErr().println("sluice: " + e.getMessage());
                    LoggerFactory.getLogger(Main.class).debug("failure", e);
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
