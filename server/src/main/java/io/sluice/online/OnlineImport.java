package io.sluice.online;

import io.sluice.config.SluiceConfig;
import io.sluice.csv.CsvFormat;
import io.sluice.csv.CsvSource;
import io.sluice.csv.EntityKind;
import io.sluice.csv.Header;
import io.sluice.csv.InputGroup;
import io.sluice.csv.Rejection;
import io.sluice.csv.ReportFile;
import io.sluice.csv.Row;
import io.sluice.csv.RowParser;
import io.sluice.csv.Tolerance;
import io.sluice.time.Time;
import io.sluice.write.InProcess;
import io.sluice.write.Statement;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * {@code sluice import --online}: the rows of the CSV groups streamed into a live database through sluice's
 * write path. In order: read every group's header and work out what to do per ID space ({@link GraphPlan});
 * create the spaces' uniqueness constraints where missing; find or record the import's progress
 * ({@link Resume}); read the node groups, cutting their rows into batches that {@link BatchApplier} applies
 * from a few threads; wait for them; then the relationship groups likewise (they need the nodes); finally clear
 * the progress marks. One reader thread parses; the workers write. {@link #stop} (Ctrl-C) stops it cleanly at
 * any point; the next run of the same command resumes.
 *
 * <p>The engine knows nothing of the command: {@code importer.Importer} gives it its {@link Options}, shows its
 * {@link Status} and prints its {@link Result}.
 */
public final class OnlineImport {

    /**
     * What to import, and how.
     *
     * @param groups     the {@code --nodes} and {@code --relationships} groups, in command-line order
     * @param format     how the CSV is read
     * @param tolerance  what happens to bad rows
     * @param reportFile where rejected rows are appended
     * @param threads    concurrent batches (partitions); 0 = the number of cores
     * @param config     sluice's config: the embedded database's (its schema is created, its {@code neo4j}
     *                   section sizes it), or the name of a remote sluice's database ({@code neo4j.database})
     * @param target     {@code http(s)://...} (a running sluice), or a directory (embedded Neo4j, as {@code serve --data})
     * @param merge      MERGE nodes on their ID and relationships on their ends, instead of CREATE
     * @param batchRows  rows per transaction
     * @param direct     each batch in a transaction of its own, concurrently ({@code mode=direct}); otherwise
     *                   through the group-committing batcher ({@code mode=sync})
     * @param restart    ignore the progress of an earlier interrupted or finished run of the same import
     */
    public record Options(List<InputGroup> groups, CsvFormat format, Tolerance tolerance, Path reportFile, int threads,
            SluiceConfig config, String target, boolean merge, int batchRows, boolean direct, boolean restart) {
        public Options {
            groups = List.copyOf(groups);
            Objects.requireNonNull(format, "format");
            Objects.requireNonNull(tolerance, "tolerance");
            Objects.requireNonNull(reportFile, "reportFile");
            Objects.requireNonNull(config, "config");
            Objects.requireNonNull(target, "target");
            if (threads < 0) {
                throw new IllegalArgumentException("--threads must be >= 0, got " + threads);
            }
            if (batchRows < 1) {
                throw new IllegalArgumentException("--batch-size must be >= 1, got " + batchRows);
            }
        }

        boolean isHttp() {
            return target.startsWith("http://") || target.startsWith("https://");
        }
    }

    /**
     * Where an import is, for a progress display.
     *
     * @param phase    {@code starting}, {@code nodes} or {@code relationships}
     * @param done     rows of this phase done (imported, rejected or done by an earlier run)
     * @param total    rows of this phase, estimated from the bytes read so far; 0 when not known yet
     * @param rejected rejected rows so far, the whole import's
     */
    public record Status(String phase, long done, long total, long rejected) {}

    /**
     * What an import did.
     *
     * @param nodes         nodes created
     * @param relationships relationships created
     * @param properties    properties set
     * @param rejected      rows rejected by this run, per problem
     * @param rows          data rows read
     * @param resumed       rows skipped because an earlier run had done them
     * @param seconds       wall-clock time
     * @param stopped       why the import stopped before the end and how far it got, or null when it finished
     * @param retries       transient errors retried by sluice's write path, per Neo4j status code, plus
     *                      {@code resent}: batches the import sent again
     */
    public record Result(long nodes, long relationships, long properties, Map<Rejection.Problem, Long> rejected,
            long rows, long resumed, double seconds, String stopped, Map<String, Long> retries) {
        public Result {
            rejected = Map.copyOf(rejected);
            retries = Map.copyOf(retries);
        }
    }

    private final Options options;
    private final PrintStream err;
    private final Time time;
    private volatile Ledger ledger;
    private volatile String phase = "starting";
    private volatile long phaseBytes;
    private volatile long phaseDoneAtStart;
    private volatile long phaseReadAtStart;
    private volatile long phaseBytesAtStart;
    private volatile String lastRead = "nothing";
    private UnaryOperator<Target> decorate = t -> t;
    private Function<Supplier<Status>, Runnable> progress = status -> () -> { };
    private Target given;
    private InProcess.Starter starter;

    /** @param err where warnings and notes go ({@code import: ...}) */
    public OnlineImport(Options options, PrintStream err, Time time) {
        this.options = options;
        this.err = err;
        this.time = time;
    }

    /**
     * Imports through the write path of this sluice, which the caller started and will close (the benchmark's),
     * instead of opening {@link Options#target()}.
     */
    public OnlineImport over(InProcess server) {
        this.given = GatewayTarget.over(server, Path.of(options.target()), options.direct());
        return this;
    }

    /**
     * Imports into a database directory ({@link Options#target()}) through a sluice this import starts with
     * {@code starter} (the server package's, given by the command line) and closes at its end.
     */
    public OnlineImport startingWith(InProcess.Starter starter) {
        this.starter = starter;
        return this;
    }

    /**
     * Shows the import's progress: {@code display} gets the status when the rows start to be read, and returns
     * what ends the display, run after the last batch (before the progress marks are cleared).
     */
    public OnlineImport showing(Function<Supplier<Status>, Runnable> display) {
        this.progress = display;
        return this;
    }

    /** For tests: wraps the target (fault injection on sluice's own seam, never on Neo4j). */
    OnlineImport decorate(UnaryOperator<Target> d) {
        this.decorate = d;
        return this;
    }

    /** Asks a running import to stop after the statements in flight; its progress is kept for a resume. */
    public void stop(String reason) {
        Ledger l = ledger;
        if (l != null) {
            l.stop(reason);
        }
    }

    public Result run() throws IOException, InterruptedException {
        long t0 = time.nanos();
        List<Header> headers = new ArrayList<>();
        for (InputGroup g : options.groups()) {
            headers.add(header(g));
        }
        GraphPlan plan = GraphPlan.build(options.groups(), headers, options.format(), options.merge(),
                w -> err.println("import: " + w));
        int partitions = options.threads() > 0 ? options.threads() : Runtime.getRuntime().availableProcessors();
        try (Target target = decorate.apply(given != null ? given : open(partitions))) {
            Map<String, Long> retriesBefore = target.transientRetries();
            createSchema(target, plan);
            String id = Resume.importId(options.groups(), options.format(), options.merge());
            Resume resume = Resume.open(target, id, options.restart(), partitions, options.batchRows(), err);
            Ledger l = new Ledger(options.tolerance(), resume.rejectedBefore());
            ledger = l;
            try (ReportFile report = ReportFile.append(options.reportFile())) {
                Runnable endProgress = progress.apply(this::status);
                try (BatchApplier applier = new BatchApplier(target, resume, l, report, options.tolerance(),
                        Thread.ofPlatform().name("sluice-import-", 0).factory(), time)) {
                    phase(plan.nodeGroups().stream().map(GraphPlan.NodeGroup::input).toList(), "nodes");
                    for (GraphPlan.NodeGroup g : plan.nodeGroups()) {
                        read(g.input(), g.parser(options.format()), new Batch.Work(g.index(), EntityKind.NODES,
                                Statements.nodes(g, options.merge()), g.input().files(), g.space(), null, null, null), resume, applier);
                    }
                    applier.awaitIdle();
                    if (!plan.relGroups().isEmpty()) {
                        phase(plan.relGroups().stream().map(GraphPlan.RelGroup::input).toList(), "relationships");
                    }
                    for (GraphPlan.RelGroup g : plan.relGroups()) {
                        read(g.input(), g.parser(options.format()), new Batch.Work(g.index(),
                                EntityKind.RELATIONSHIPS, Statements.relationships(g, options.merge()), g.input().files(), null,
                                g.start(), g.end(), g.input().type()), resume, applier);
                    }
                    applier.awaitIdle();
                } finally {
                    endProgress.run();
                }
                if (!l.isStopped()) {
                    resume.complete(target);
                }
                Map<String, Long> retries = since(retriesBefore, target.transientRetries());
                if (l.resends.get() > 0) {
                    retries.put("resent", l.resends.get());
                }
                return summary(l, report, t0, retries);
            }
        }
    }

    /** The transient retries made during the import: {@code after - before}, per code, without the zeros. */
    private static Map<String, Long> since(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> out = new HashMap<>();
        after.forEach((code, n) -> {
            long d = n - before.getOrDefault(code, 0L);
            if (d > 0) {
                out.put(code, d);
            }
        });
        return out;
    }

    private Header header(InputGroup g) throws IOException {
        try (CsvSource s = new CsvSource(g.files(), options.format(), new AtomicLong())) {
            CsvSource.Raw first = s.next();
            if (first == null) {
                throw new IllegalArgumentException(g.describe() + ": the files are empty; the first line must be the header");
            }
            return Header.parse(g.kind(), first.fields(), g.files().getFirst().toString());
        }
    }

    private Target open(int partitions) {
        if (options.isHttp()) {
            return new RemoteTarget(options.target(), options.config().neo4j().database(), options.direct());
        }
        SluiceConfig c = options.config();
        var a = c.admission();
        long rows = Math.max(a.maxPendingRows(), 4L * partitions * options.batchRows());
        c = c.with(a.withMaxPendingRows(rows));
        if (starter == null) {
            throw new IllegalStateException("an import into " + options.target() + " needs a way to start sluice"
                    + " in this process (OnlineImport.startingWith)");
        }
        return GatewayTarget.start(starter, Path.of(options.target()), c, options.direct());
    }

    /** The ID spaces' uniqueness constraints (created when missing) and the progress marks' index. */
    private void createSchema(Target target, GraphPlan plan) throws InterruptedException {
        List<String> schema = new ArrayList<>();
        plan.declaredSpaces().forEach(s -> schema.add(Statements.constraint(s)));
        schema.add(Statements.markIndex());
        for (String s : schema) {
            Target.Result r = target.run(new Statement(s, Map.of()));
            if (r instanceof Target.Result.Failed f && f.error().isAlreadyExists()) {
                if (f.error().code().endsWith("IndexAlreadyExists")) {
                    err.println("import: an index already covers " + s.substring(s.indexOf("FOR ")) + "; it is used to find "
                            + "nodes, but without a uniqueness constraint duplicates are not detected");
                }
                continue;
            }
            Resume.check(r, "create " + s);
        }
        Resume.check(target.run(new Statement("CALL db.awaitIndexes(600)", Map.of())), "wait for the indexes");
    }

    /** Reads a group, cuts its rows into batches (see {@link Resume}) and hands them to the applier. */
    private void read(InputGroup g, RowParser parser, Batch.Work work, Resume resume, BatchApplier applier)
            throws IOException, InterruptedException {
        Ledger l = ledger;
        int parts = resume.partitions();
        long chunkRows = (long) parts * resume.batchRows();
        List<List<Row>> buffers = new ArrayList<>();
        for (int p = 0; p < parts; p++) {
            buffers.add(new ArrayList<>());
        }
        long chunk = 0;
        long inChunk = 0;
        long index = 0;
        List<String> headerEntries = parser.header().rawEntries();
        try (CsvSource s = new CsvSource(g.files(), options.format(), l.bytesRead)) {
            s.next(); // the header
            for (CsvSource.Raw raw = s.next(); raw != null && !l.isStopped(); raw = s.next()) {
                if (options.format().skipSubsequentHeaders() && raw.file() > 0 && raw.line() == 1
                        && Arrays.asList(raw.fields()).equals(headerEntries)) {
                    continue;
                }
                String source = s.file(raw.file()).toString();
                Row row = parser.parse(raw, source);
                int p = row.partitionKey() == null ? (int) (index % parts) : Math.floorMod(row.partitionKey().hashCode(), parts);
                buffers.get(p).add(row);
                index++;
                l.rowsRead.incrementAndGet();
                lastRead = source + ":" + raw.line();
                if (++inChunk == chunkRows) {
                    flush(work, chunk++, buffers, applier);
                    inChunk = 0;
                }
            }
            if (!l.isStopped()) {
                flush(work, chunk, buffers, applier);
            }
        }
    }

    private static void flush(Batch.Work work, long chunk, List<List<Row>> buffers, BatchApplier applier)
            throws InterruptedException {
        for (int p = 0; p < buffers.size(); p++) {
            if (!buffers.get(p).isEmpty()) {
                List<Row> rows = List.copyOf(buffers.get(p));
                for (int i = 0; i < rows.size() && work.kind() == EntityKind.RELATIONSHIPS; i++) {
                    if (!rows.get(i).isRejected()) {
                        rows.get(i).values().put("i", i);
                    }
                }
                applier.submit(new Batch(work, chunk, p, rows));
                buffers.get(p).clear();
            }
        }
    }

    private void phase(List<InputGroup> groups, String name) {
        Ledger l = ledger;
        phaseBytes = groups.stream().mapToLong(InputGroup::bytes).sum();
        phaseDoneAtStart = l.done.get();
        phaseReadAtStart = l.rowsRead.get();
        phaseBytesAtStart = l.bytesRead.get();
        phase = name;
    }

    private Status status() {
        Ledger l = ledger;
        if (l == null) {
            return null;
        }
        long read = l.rowsRead.get() - phaseReadAtStart;
        long bytes = l.bytesRead.get() - phaseBytesAtStart;
        long total = bytes > 0 ? Math.round((double) read * phaseBytes / bytes) : 0;
        return new Status(phase, l.done.get() - phaseDoneAtStart, total, l.rejected.get());
    }

    private Result summary(Ledger l, ReportFile report, long t0, Map<String, Long> retries) {
        String stopped = l.stopReason();
        if (stopped != null) {
            stopped += String.format(Locale.ROOT,
                    ".%n  Read up to %s; imported so far: %,d nodes, %,d relationships. Progress is kept: run the same "
                    + "command again to resume where it stopped.", lastRead, l.nodes.get(), l.relationships.get());
        }
        return new Result(l.nodes.get(), l.relationships.get(), l.properties.get(), report.counts(), l.rowsRead.get(),
                l.resumed.get(), (time.nanos() - t0) / 1e9, stopped, retries);
    }
}
