package io.sluice.bench;

import io.sluice.batch.Ticker;
import io.sluice.server.SluiceServer;
import io.sluice.sink.EmbeddedNeo4j.HostPort;
import io.sluice.write.Template;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code sluice bench}: runs a scenario in each requested mode, one after another, each against a fresh
 * in-process sluice (embedded Neo4j in a temporary directory, HTTP on an ephemeral loopback port, no Bolt):
 * start, warm up, measure, stop, delete. HTTP modes are driven by {@link HttpLoad}, {@code raw} by
 * {@link RawLoad}. Client and server share the JVM and the machine's cores, as they would on one host;
 * comparisons between modes of one run are fair, absolute numbers depend on the machine.
 */
public final class Bench {
    private static final Logger log = LoggerFactory.getLogger(Bench.class);
    /** The server applies with one applier thread (see {@code Gateway}); reported with each result. */
    static final int SERVER_APPLIERS = 1;
    static final String SINK = "embedded";

    private final BenchOptions options;
    private final Ticker ticker;
    private final PrintStream progress;

    public Bench(BenchOptions options, Ticker ticker, PrintStream progress) {
        this.options = options;
        this.ticker = ticker;
        this.progress = progress;
    }

    /** Runs every mode and returns the report. Interruption stops the run between or inside modes. */
    public BenchReport run() throws InterruptedException {
        List<ModeResult> results = new ArrayList<>();
        for (BenchMode mode : options.modes()) {
            ModeResult r = runMode(mode);
            progress.printf(java.util.Locale.ROOT, "bench %s %s: %,.0f writes/s, p50 %.2f ms, p99 %.2f ms, errors %d%n",
                    options.scenario().name(), mode.label(), r.writesPerS(), r.p50Ms(), r.p99Ms(), r.errors());
            results.add(r);
        }
        return BenchReport.of(options.scenario().name(), results);
    }

    private ModeResult runMode(BenchMode mode) throws InterruptedException {
        Path dir = tempDir(mode);
        try {
            try (SluiceServer server = SluiceServer.start(new SluiceServer.Options(options.serverConfig(), dir,
                    new HostPort("127.0.0.1", 0), null))) {
                return measure(mode, server);
            }
        } finally {
            deleteTree(dir);
        }
    }

    private ModeResult measure(BenchMode mode, SluiceServer server) throws InterruptedException {
        Scenario s = options.scenario();
        Scenario.Workload workload = s.workload(options.seed());
        int clients = mode.overHttp() ? options.clients() : 1;
        Window window = Window.of(ticker.read(), options.warmup().toNanos(), options.duration().toNanos());
        Tally tally = new Tally(window, clients);
        Progress lines = Progress.start(s.name() + " " + mode.label(), tally, ticker, progress);
        try {
            if (mode.overHttp()) {
                URI uri = URI.create(server.baseUrl() + "/db/" + options.serverConfig().neo4j().database()
                        + "/write/" + s.name() + "?mode=" + mode.label());
                new HttpLoad(uri, clients, options.rowsPerRequest(), workload, ticker).run(tally);
            } else {
                Template t = Template.compile(s.name(), s.template());
                new RawLoad(server.sink(), t, workload.stream(0), ticker).run(tally);
            }
        } finally {
            lines.close();
        }
        int rowsPerRequest = mode.overHttp() ? options.rowsPerRequest() : BenchMode.RAW_BATCH_ROWS;
        return tally.result(mode, clients, SINK, SERVER_APPLIERS, rowsPerRequest);
    }

    private Path tempDir(BenchMode mode) {
        try {
            Files.createDirectories(options.workDir());
            return Files.createTempDirectory(options.workDir(), "sluice-bench-" + mode.label() + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a temporary database directory in " + options.workDir(), e);
        }
    }

    /** Deletes a temporary database; a failure is logged, not thrown (the measurement is already taken). */
    static void deleteTree(Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    if (e != null) {
                        throw e;
                    }
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            log.warn("could not delete the bench database {}: {}", dir, e.toString());
        }
    }
}
