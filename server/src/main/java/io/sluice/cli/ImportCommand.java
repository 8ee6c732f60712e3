package io.sluice.cli;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.format.DataFormat;
import io.sluice.format.Version;
import io.sluice.csv.CsvFormat;
import io.sluice.csv.EntityKind;
import io.sluice.csv.InputGroup;
import io.sluice.csv.Tolerance;
import io.sluice.importer.ImportOptions;
import io.sluice.importer.ImportSummary;
import io.sluice.importer.Importer;
import io.sluice.importer.LegacyArguments;
import io.sluice.server.SluiceServer;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import io.sluice.time.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/** {@code sluice import}: neo4j-admin import's arguments and CSV format, into a new database or a live one. */
@Command(name = "import", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Bulk-load CSV files in neo4j-admin import's format.",
                "--into DIR: a new database, written by Neo4j's own importer (then: sluice serve --data DIR).",
                "--online [TARGET]: into a live database through sluice's write path: a running sluice "
                        + "(http://host:7474) or an embedded database directory (default ./data). See docs/IMPORT.md."})
final class ImportCommand implements Callable<Integer> {
    @Option(names = "--nodes", paramLabel = "[Label[:Label]=]FILES", description = "node files: header first, comma-separated; repeatable")
    List<String> nodes = new ArrayList<>();

    @Option(names = "--relationships", paramLabel = "[TYPE=]FILES", description = "relationship files; repeatable")
    List<String> relationships = new ArrayList<>();

    @Option(names = "--into", paramLabel = "DIR", description = "offline: write a new database in this sluice data directory")
    Path into;

    @Option(names = "--online", arity = "0..1", fallbackValue = "data", paramLabel = "TARGET",
            description = "online: http(s)://[user:password@]host:port of a running sluice (or credentials in NEO4J_USERNAME"
                    + " and NEO4J_PASSWORD), or an embedded database directory (default: data)")
    String online;

    @Option(names = "--config", description = "sluice YAML config: its schema is created; its neo4j section sizes the embedded database")
    Path config;

    @Option(names = "--delimiter", defaultValue = ",", description = "field delimiter: a character, TAB or U+XXXX (default: ${DEFAULT-VALUE})")
    String delimiter;

    @Option(names = "--array-delimiter", defaultValue = ";", description = "array element delimiter (default: ${DEFAULT-VALUE})")
    String arrayDelimiter;

    @Option(names = "--quote", defaultValue = "\"", description = "quote character (default: ${DEFAULT-VALUE})")
    String quote;

    @Option(names = "--id-type", defaultValue = "string", description = "string, integer or actual (offline only) (default: ${DEFAULT-VALUE})")
    String idType;

    @Option(names = "--skip-duplicate-nodes", arity = "0..1", fallbackValue = "true", description = "report and skip nodes whose ID is taken")
    boolean skipDuplicateNodes;

    @Option(names = "--skip-bad-relationships", arity = "0..1", fallbackValue = "true", description = "report and skip relationships with a missing end")
    boolean skipBadRelationships;

    @Option(names = "--bad-tolerance", defaultValue = "-1", description = "bad rows tolerated before stopping; -1 = no limit (default: ${DEFAULT-VALUE})")
    long badTolerance;

    @Option(names = "--ignore-empty-strings", arity = "0..1", fallbackValue = "true", description = "a quoted empty string is no value")
    boolean ignoreEmptyStrings;

    @Option(names = "--ignore-extra-columns", arity = "0..1", fallbackValue = "true", description = "drop fields beyond the header instead of rejecting the row")
    boolean ignoreExtraColumns;

    @Option(names = "--trim-strings", arity = "0..1", fallbackValue = "true", description = "strip white space around strings")
    boolean trimStrings;

    @Option(names = "--auto-skip-subsequent-headers", arity = "0..1", fallbackValue = "true", description = "skip a repeated header line at the start of later files")
    boolean skipSubsequentHeaders;

    @Option(names = "--report-file", defaultValue = "import.report", description = "rejected rows, one JSON object per line (default: ${DEFAULT-VALUE})")
    Path reportFile;

    @Option(names = "--threads", defaultValue = "0", description = "offline: importer threads; online: concurrent batches (default: the number of cores)")
    int threads;

    @Option(names = "--overwrite-destination", arity = "0..1", fallbackValue = "true", description = "offline: replace an existing database")
    boolean overwrite;

    @Option(names = "--multiline-fields", arity = "0..1", fallbackValue = "true", description = "offline: fields may span lines (slower); online reads them always")
    boolean multilineFields;

    @Option(names = "--max-off-heap-memory", description = "offline: the importer's memory bound, e.g. 2G or 50%")
    String maxOffHeapMemory;

    @Option(names = "--merge", description = "online: MERGE nodes on their ID and relationships on their ends (default: CREATE)")
    boolean merge;

    @Option(names = "--batch-size", defaultValue = "5000", description = "online: rows per transaction (default: ${DEFAULT-VALUE})")
    int batchSize;

    @Option(names = "--apply-mode", defaultValue = "direct", description = "online: direct (each batch its own transaction, concurrently) "
            + "or sync (through the group-committing batcher) (default: ${DEFAULT-VALUE})")
    String applyMode;

    @Option(names = "--restart", description = "online: start over, ignoring the progress of an earlier run of the same import")
    boolean restart;

    @Option(names = "--progress-interval", defaultValue = "10", description = "seconds between progress lines when not on a terminal (default: ${DEFAULT-VALUE})")
    double progressInterval;

    @Option(names = "--verbose", description = "offline: show Neo4j's importer output")
    boolean verbose;

    /** Neo 4j 3.x's {@code --nodes:Label files} form (and its value), rewritten by {@link LegacyArguments}. */
    @Unmatched
    List<String> legacy = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        if ((into == null) == (online == null)) {
            throw new IllegalArgumentException("give exactly one of --into DIR (a new database) and --online [TARGET] (a live one)");
        }
        List<InputGroup> groups = new ArrayList<>();
        nodes.forEach(s -> groups.add(InputGroup.parse(EntityKind.NODES, s)));
        relationships.forEach(s -> groups.add(InputGroup.parse(EntityKind.RELATIONSHIPS, s)));
        for (String[] g : LegacyArguments.groups(legacy)) {
            groups.add(InputGroup.parse(g[0].equals("--nodes") ? EntityKind.NODES : EntityKind.RELATIONSHIPS, g[1]));
        }
        SluiceConfig c = config == null ? SluiceConfig.defaults() : ConfigLoader.load(config);
        CsvFormat format = new CsvFormat(CsvFormat.character("--delimiter", delimiter),
                CsvFormat.character("--array-delimiter", arrayDelimiter), CsvFormat.character("--quote", quote),
                ignoreEmptyStrings, ignoreExtraColumns, trimStrings, skipSubsequentHeaders, CsvFormat.IdType.parse(idType));
        if (!(progressInterval > 0)) {
            throw new IllegalArgumentException("--progress-interval must be > 0 seconds, got " + progressInterval);
        }
        ImportOptions o = new ImportOptions(groups, format,
                new Tolerance(skipDuplicateNodes, skipBadRelationships, badTolerance), reportFile, threads, c,
                Duration.ofMillis(Math.round(progressInterval * 1000)));
        ImportSummary s;
        if (into != null) {
            // a data directory like serve's: a newer one refused before the import writes into it, a new one marked
            System.err.println(DataFormat.open(into, Version.line(), Time.SYSTEM.now()).said());
            s = Importer.offline(o, new ImportOptions.Offline(into, overwrite, multilineFields, maxOffHeapMemory, verbose),
                    SluiceServer.IN_PROCESS, System.out, System.err);
        } else {
            if (!applyMode.equals("direct") && !applyMode.equals("sync")) {
                throw new IllegalArgumentException("--apply-mode must be direct or sync, got '" + applyMode + "'");
            }
            s = Importer.online(o, new ImportOptions.Online(withCredentials(online), merge, batchSize,
                    applyMode.equals("direct"), restart), SluiceServer.IN_PROCESS, System.out, System.err);
        }
        return s.finished() ? 0 : 1;
    }

    /**
     * A running sluice's URL with the credentials Neo4j's own tools take from the environment
     * ({@code NEO4J_USERNAME}, default neo4j, and {@code NEO4J_PASSWORD}), unless the URL carries its own
     * ({@code http://user:password@host:7474}). A directory target is returned as it is.
     */
    static String withCredentials(String target) {
        String password = System.getenv("NEO4J_PASSWORD");
        if (!target.matches("(?i)https?://.*") || password == null || URI.create(target).getUserInfo() != null) {
            return target;
        }
        String user = System.getenv().getOrDefault("NEO4J_USERNAME", "neo4j");
        String info = (URLEncoder.encode(user, StandardCharsets.UTF_8) + ":"
                + URLEncoder.encode(password, StandardCharsets.UTF_8)).replace("+", "%20");
        return target.replaceFirst("(?i)^(https?://)", "$1" + Matcher.quoteReplacement(info) + "@");
    }
}
