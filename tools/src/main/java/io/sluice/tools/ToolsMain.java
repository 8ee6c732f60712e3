package io.sluice.tools;

import io.sluice.cli.Main;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;

/**
 * The whole {@code sluice} command line: the product's commands ({@link Main}) and the tools' ({@code bench},
 * {@code bench-sources}, {@code import-bench}, {@code kafka}), which live in this module so that the server's class
 * path carries none of them (nor Kafka's broker jars). The launcher runs the tools' commands, and {@code --help},
 * with this class.
 */
public final class ToolsMain {
    private ToolsMain() {}

    /** The tools' commands, by name. */
    static Map<String, Object> commands() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("bench", new BenchCommand());
        m.put("bench-sources", new BenchSourcesCommand());
        m.put("bench-debezium", new BenchDebeziumCommand());
        m.put("import-bench", new ImportBenchCommand());
        m.put("kafka", new KafkaCommand());
        return m;
    }

    /** Every command, the product's and the tools'. */
    public static CommandLine commandLine() {
        return Main.commandLine(commands());
    }

    public static void main(String[] args) {
        Main.run(args, commands());
    }
}
