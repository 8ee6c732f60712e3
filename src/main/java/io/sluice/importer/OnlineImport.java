package io.sluice.importer;

import io.sluice.config.SluiceConfig;
import io.sluice.csv.CsvSource;
import io.sluice.csv.EntityKind;
import io.sluice.csv.Header;
import io.sluice.csv.InputGroup;
import io.sluice.csv.ReportFile;
import io.sluice.csv.Row;
import io.sluice.csv.RowParser;
import io.sluice.importer.ImportOptions.Online;
import io.sluice.time.Time;
import io.sluice.write.Statement;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code sluice import --online}: the rows of the CSV groups streamed into a live database through sluice's
 * write path. In order: read every group's header and work out what to do per ID space ({@link GraphPlan});
 * create the spaces' uniqueness constraints where missing; find or record the import's progress
 * ({@link Resume}); read the node groups, cutting their rows into batches that {@link BatchApplier} applies
 * from a few threads; wait for them; then the relationship groups likewise (they need the nodes); finally clear
 * the progress marks. One reader thread parses; the workers write. {@link #stop} (Ctrl-C) stops it cleanly at
 * any point; the next run of the same command resumes.
 */
final class OnlineImport {
    private static final Set<String> ALREADY_EXISTS = Set.of("Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
            "Neo.ClientError.Schema.ConstraintAlreadyExists", "Neo.ClientError.Schema.IndexAlreadyExists");

    private final ImportOptions options;
    private final Online online;
    private final PrintStream err;
    private final Time time;
    private final boolean terminal;
    private volatile Ledger ledger;
    private volatile String phase = "starting";
    private volatile long phaseBytes;
    private volatile long phaseDoneAtStart;
    private volatile long phaseReadAtStart;
    private volatile long phaseBytesAtStart;
    private volatile String lastRead = "nothing";
    private java.util.function.UnaryOperator<Target> decorate = t -> t;
    private Target given;

    OnlineImport(ImportOptions options, Online online, PrintStream err, Time time, boolean terminal) {
        this.options = options;
        this.online = online;
        this.err = err;
        this.time = time;
        this.terminal = terminal;
    }

    static ImportSummary run(ImportOptions options, Online online, PrintStream err, Time time, boolean terminal)
            throws IOException, InterruptedException {
        return new OnlineImport(options, online, err, time, terminal).run();
    }

    /** Imports into this target instead of opening one (the benchmark's, over a database it started). */
    OnlineImport into(Target t) {
        this.given = t;
        return this;
    }

    /** For tests: wraps the target (fault injection on sluice's own seam, never on Neo4j). */
    OnlineImport decorate(java.util.function.UnaryOperator<Target> d) {
        this.decorate = d;
        return this;
    }

    /** Asks a running import to stop after the statements in flight; its progress is kept for a resume. */
    void stop(String reason) {
        Ledger l = ledger;
        if (l != null) {
            l.stop(reason);
        }
    }

    ImportSummary run() throws IOException, InterruptedException {
        long t0 = time.nanos();
        List<Header> headers = new ArrayList<>();
        for (InputGroup g : options.groups()) {
            headers.add(header(g));
        }
        GraphPlan plan = GraphPlan.build(options.groups(), headers, options.format(), online.merge(),
                w -> err.println("import: " + w));
        int partitions = options.threads() > 0 ? options.threads() : Runtime.getRuntime().availableProcessors();
        try (Target target = decorate.apply(given != null ? given : open(partitions))) {
            Map<String, Long> retriesBefore = target.transientRetries();
            createSchema(target, plan);
            Resume resume = Resume.open(target, Resume.importId(options, online.merge()), online.restart(), partitions,
                    online.batchRows(), err);
            Ledger l = new Ledger(options.tolerance(), resume.rejectedBefore());
            ledger = l;
            try (ReportFile report = ReportFile.append(options.reportFile())) {
                ImportProgress progress = ImportProgress.start(this::sample, terminal, err, options.progressInterval(), time);
                try (BatchApplier applier = new BatchApplier(target, resume, l, report, options.tolerance(),
                        Thread.ofPlatform().name("sluice-import-", 0).factory(), time)) {
                    phase(plan.nodeGroups().stream().map(GraphPlan.NodeGroup::input).toList(), "nodes");
                    for (GraphPlan.NodeGroup g : plan.nodeGroups()) {
                        read(g.input(), g.parser(options.format()), new Batch.Work(g.index(), EntityKind.NODES,
                                Statements.nodes(g, online.merge()), g.input().files(), g.space(), null, null, null), resume, applier);
                    }
                    applier.awaitIdle();
                    if (!plan.relGroups().isEmpty()) {
                        phase(plan.relGroups().stream().map(GraphPlan.RelGroup::input).toList(), "relationships");
                    }
                    for (GraphPlan.RelGroup g : plan.relGroups()) {
                        read(g.input(), g.parser(options.format()), new Batch.Work(g.index(),
                                EntityKind.RELATIONSHIPS, Statements.relationships(g, online.merge()), g.input().files(), null,
                                g.start(), g.end(), g.input().type()), resume, applier);
                    }
                    applier.awaitIdle();
                } finally {
                    progress.close();
                }
                if (!l.isStopped()) {
                    resume.complete(target);
                }
                Map<String, Long> retries = new java.util.HashMap<>(RetryCounts.since(retriesBefore, target.transientRetries()));
                if (l.resends.get() > 0) {
                    retries.put("resent", l.resends.get());
                }
                return summary(l, report, t0, retries);
            }
        }
    }

    private Header header(InputGroup g) throws IOException {
        try (CsvSource s = new CsvSource(g.files(), options.format(), new java.util.concurrent.atomic.AtomicLong())) {
            CsvSource.Raw first = s.next();
            if (first == null) {
                throw new IllegalArgumentException(g.describe() + ": the files are empty; the first line must be the header");
            }
            return Header.parse(g.kind(), first.fields(), g.files().getFirst().toString());
        }
    }

    private Target open(int partitions) {
        if (online.isHttp()) {
            return new HttpTarget(online.target(), options.config().neo4j().database(), online.direct());
        }
        SluiceConfig c = options.config();
        var a = c.admission();
        long rows = Math.max(a.maxPendingRows(), 4L * partitions * online.batchRows());
        c = c.withAdmission(new SluiceConfig.Admission(rows, a.maxPendingBytes(), a.timeout(), a.maxBodyBytes()));
        return GatewayTarget.start(Path.of(online.target()), c, online.direct());
    }

    /** The ID spaces' uniqueness constraints (created when missing) and the progress marks' index. */
    private void createSchema(Target target, GraphPlan plan) throws InterruptedException {
        List<String> schema = new ArrayList<>();
        plan.declaredSpaces().forEach(s -> schema.add(Statements.constraint(s)));
        schema.add(Statements.markIndex());
        for (String s : schema) {
            Target.Result r = target.run(new Statement(s, Map.of()));
            if (r instanceof Target.Result.Failed f && ALREADY_EXISTS.contains(f.error().code())) {
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
                        && java.util.Arrays.asList(raw.fields()).equals(headerEntries)) {
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

    private ImportProgress.Sample sample() {
        Ledger l = ledger;
        if (l == null) {
            return null;
        }
        long read = l.rowsRead.get() - phaseReadAtStart;
        long bytes = l.bytesRead.get() - phaseBytesAtStart;
        long total = bytes > 0 ? Math.round((double) read * phaseBytes / bytes) : 0;
        return new ImportProgress.Sample(phase, l.done.get() - phaseDoneAtStart, total, "rows", l.rejected.get());
    }

    private ImportSummary summary(Ledger l, ReportFile report, long t0, Map<String, Long> retries) {
        String stopped = l.stopReason();
        if (stopped != null) {
            stopped += String.format(java.util.Locale.ROOT,
                    ".%n  Read up to %s; imported so far: %,d nodes, %,d relationships. Progress is kept: run the same "
                    + "command again to resume where it stopped.", lastRead, l.nodes.get(), l.relationships.get());
        }
        return new ImportSummary("online", l.nodes.get(), l.relationships.get(), l.properties.get(), report.counts(),
                l.rowsRead.get(), l.resumed.get(), (time.nanos() - t0) / 1e9, stopped, retries);
    }
}
