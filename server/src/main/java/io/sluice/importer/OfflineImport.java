package io.sluice.importer;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.csv.CsvFormat;
import io.sluice.csv.EntityKind;
import io.sluice.csv.InputGroup;
import io.sluice.csv.Rejection;
import io.sluice.csv.Tolerance;
import io.sluice.importer.ImportOptions.Offline;
import io.sluice.time.Time;
import io.sluice.write.InProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.neo4j.cli.AdminTool;
import org.neo4j.cli.ExecutionContext;
import org.neo4j.io.fs.DefaultFileSystemAbstraction;

/**
 * {@code sluice import --into DIR}: a new database written by Neo4j's own importer, run in-process through its
 * admin command ({@code neo4j-admin database import full}) with DIR as the Neo4j home, so that
 * {@code sluice serve --data DIR} opens it. Then the config's schema (constraints, indexes) is created, which the
 * importer cannot do on Community's record format. Options are passed through with neo4j-admin's names; the
 * importer's own output goes to {@code DIR/logs/sluice-import.log} (and to the terminal with {@code --verbose}),
 * and its stages feed the progress bar.
 */
final class OfflineImport {
    private final ImportOptions options;
    private final Offline offline;
    private final InProcess.Starter sluice;
    private final PrintStream err;
    private final Time time;
    private final boolean terminal;

    OfflineImport(ImportOptions options, Offline offline, InProcess.Starter sluice, PrintStream err,
            Time time, boolean terminal) {
        this.sluice = sluice;
        this.options = options;
        this.offline = offline;
        this.err = err;
        this.time = time;
        this.terminal = terminal;
    }

    ImportSummary run() throws IOException {
        long t0 = time.nanos();
        Path home = offline.into().toAbsolutePath();
        String database = options.config().neo4j().database();
        Path store = home.resolve("data/databases").resolve(database);
        if (!offline.overwrite() && Files.isDirectory(store) && hasFiles(store)) {
            throw new IllegalArgumentException(home + " already holds database '" + database
                    + "'; --overwrite-destination replaces it, or choose another --into directory");
        }
        Files.createDirectories(home.resolve("logs"));
        Path reportFile = options.reportFile().toAbsolutePath();
        int rc;
        AdminOutput output;
        try (PrintStream log = new PrintStream(Files.newOutputStream(home.resolve("logs/sluice-import.log")), true,
                StandardCharsets.UTF_8)) {
            output = new AdminOutput(log, offline.verbose() ? err : null);
            ReportLines rejected = new ReportLines(reportFile);
            ImportProgress progress = ImportProgress.start(() -> output.sample(rejected.count()), terminal, err,
                    options.progressInterval(), time);
            try (PrintStream toOutput = new PrintStream(output, true, StandardCharsets.UTF_8)) {
                List<String> args = arguments(database, reportFile);
                log.println("neo4j-admin " + String.join(" ", args));
                ExecutionContext ctx = new ExecutionContext(home, home.resolve("conf"), toOutput, toOutput,
                        new DefaultFileSystemAbstraction());
                rc = AdminTool.execute(ctx, args.toArray(String[]::new));
            } finally {
                progress.close();
            }
        }
        Map<Rejection.Problem, Long> rejected = rejectedByProblem(reportFile);
        long rejectedTotal = rejected.values().stream().mapToLong(Long::longValue).sum();
        if (rc != 0) {
            String why = output.lastLines().stream().filter(l -> !l.isBlank() && !l.startsWith("WARNING"))
                    .collect(Collectors.joining("\n    "));
            return new ImportSummary("offline", 0, 0, 0, rejected, 0, 0, (time.nanos() - t0) / 1e9,
                    "Neo4j's importer failed (exit " + rc + "); its last output:\n    " + why, null);
        }
        if (!options.config().schema().isEmpty()) {
            err.println("import: creating " + options.config().schema().size() + " schema statement(s) of the config");
            sluice.start(home, options.config()).close();
        }
        long nodes = Math.max(0, output.nodes());
        long rels = Math.max(0, output.relationships());
        return new ImportSummary("offline", nodes, rels, Math.max(0, output.properties()), rejected,
                nodes + rels + rejectedTotal, 0, (time.nanos() - t0) / 1e9, null, null);
    }

    /** The admin command line: the database name first (a name after the file options is read as a file). */
    List<String> arguments(String database, Path reportFile) {
        CsvFormat f = options.format();
        Tolerance t = options.tolerance();
        List<String> a = new ArrayList<>(List.of("database", "import", "full", database));
        for (InputGroup g : options.groups()) {
            String prefix = g.kind() == EntityKind.NODES ? String.join(":", g.labels()) : g.type() == null ? "" : g.type();
            String files = g.files().stream().map(p -> p.toAbsolutePath().toString()).collect(Collectors.joining(","));
            a.add(g.kind().option() + "=" + (prefix.isEmpty() ? "" : prefix + "=") + files);
        }
        a.add("--delimiter=" + unicode(f.delimiter()));
        a.add("--array-delimiter=" + unicode(f.arrayDelimiter()));
        a.add("--quote=" + unicode(f.quote()));
        a.add("--id-type=" + f.idType().name().toLowerCase(Locale.ROOT));
        a.add("--ignore-empty-strings=" + f.ignoreEmptyStrings());
        a.add("--ignore-extra-columns=" + f.ignoreExtraColumns());
        a.add("--trim-strings=" + f.trimStrings());
        a.add("--auto-skip-subsequent-headers=" + f.skipSubsequentHeaders());
        a.add("--skip-duplicate-nodes=" + t.skipDuplicateNodes());
        a.add("--skip-bad-relationships=" + t.skipBadRelationships());
        a.add("--bad-tolerance=" + t.badTolerance());
        a.add("--report-file=" + reportFile);
        a.add("--overwrite-destination=" + offline.overwrite());
        if (offline.multilineFields()) {
            a.add("--multiline-fields=true");
        }
        if (offline.maxOffHeapMemory() != null) {
            a.add("--max-off-heap-memory=" + offline.maxOffHeapMemory());
        }
        if (options.threads() > 0) {
            a.add("--threads=" + options.threads());
        }
        return a;
    }

    private static String unicode(char c) {
        return String.format(Locale.ROOT, "U+%04X", (int) c);
    }

    private static boolean hasFiles(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.findAny().isPresent();
        }
    }

    /** The importer's report: one JSON object per bad entry, with a {@code problem} field. */
    static Map<Rejection.Problem, Long> rejectedByProblem(Path report) throws IOException {
        Map<Rejection.Problem, Long> out = new EnumMap<>(Rejection.Problem.class);
        if (!Files.exists(report)) {
            return out;
        }
        ObjectMapper json = new ObjectMapper();
        try (BufferedReader r = Files.newBufferedReader(report, StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.isBlank()) {
                    continue;
                }
                Rejection.Problem p;
                try {
                    p = Rejection.Problem.valueOf(json.readTree(line).path("problem").asText());
                } catch (IOException | IllegalArgumentException e) {
                    p = Rejection.Problem.Rejected;
                }
                out.merge(p, 1L, Long::sum);
            }
        }
        return out;
    }

    /** Counts the lines of a growing file cheaply: only the bytes added since the last call are read. */
    static final class ReportLines {
        private final Path file;
        private long offset;
        private long lines;

        ReportLines(Path file) {
            this.file = file;
        }

        synchronized long count() {
            try (var ch = FileChannel.open(file)) {
                if (ch.size() < offset) {
                    offset = 0; // rewritten
                    lines = 0;
                }
                ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
                ch.position(offset);
                for (int n = ch.read(buf); n > 0; n = ch.read(buf)) {
                    buf.flip();
                    while (buf.hasRemaining()) {
                        if (buf.get() == '\n') {
                            lines++;
                        }
                    }
                    offset += n;
                    buf.clear();
                }
            } catch (IOException e) {
                return lines; // not there yet
            }
            return lines;
        }
    }
}
