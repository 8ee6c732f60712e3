package io.sluice.bench;

import io.sluice.server.SluiceServer;
import io.sluice.time.Time;
import io.sluice.write.Template;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One mode's run on a sluice server ({@link #measure}): warm-up, then the measured window. HTTP modes are driven
 * by {@link NettyHttpLoad} or {@link JdkHttpLoad}, the Bolt apis by the official driver ({@link BoltLoad}) on the
 * server's Bolt address, in this JVM or, with {@link BenchOptions#loadProcess}, in the load process
 * ({@link LoadProcess}); {@code raw} by {@link RawLoad}. The server's metrics are read at both ends
 * of the measured window to show where the time went ({@link ServerReadings}). After each mode, what its rows left
 * in the database is counted ({@link #checkStored}).
 *
 * <p>Mode {@code neo4j} ({@link #measurePeer}) runs Neo4j's own server instead of sluice ({@link Neo4jPeer}), with
 * the same load and the same rows: by default in a JVM of its own ({@link PeerProcess}), one per measurement, as a
 * user deploys it, or in this JVM ({@link BenchPeer#IN_JVM}). It has no sluice {@code /metrics}: its reading at
 * both ends of the window is what {@link Neo4jPeer#reading} can see.
 */
final class ModeMeasurement {
    /** Bench's logger: the bench's warnings name one logger, as before the split. */
    private static final Logger log = LoggerFactory.getLogger(Bench.class);

    private final BenchOptions options;
    private final Time time;
    private final PrintStream progress;
    private final BenchPlan plan;
    /** The load process with {@link BenchOptions#loadProcess}; else null. */
    private final LoadProcess loadProcess;
    private final ServerReadings readings;

    ModeMeasurement(BenchOptions options, Time time, PrintStream progress, BenchPlan plan, LoadProcess loadProcess) {
        this.options = options;
        this.time = time;
        this.progress = progress;
        this.plan = plan;
        this.loadProcess = loadProcess;
        this.readings = new ServerReadings(options, time);
    }

    /** A load under way, here or in the load process. */
    @FunctionalInterface
    private interface Running {
        LoadSummary await() throws InterruptedException;
    }

    /** A measurement, and the load's own figures behind it. */
    record Measured(ModeResult result, LoadSummary load) {}

    /**
     * One mode's run on {@code server}: closed loop, or open loop at {@code rate} requests/s when it is positive.
     * A {@code note} (priming) skips the stored-rows check. {@code bolt}: the server's Bolt address
     * ({@code bolt://host:port}), where the Bolt apis go; null when it was started without one.
     */
    Measured measure(SluiceServer server, String bolt, BenchMode mode, BenchApi api, int appliers, boolean auth,
            String journal, String note, Duration warmup, Duration duration, double rate) throws InterruptedException {
        String authorization = auth ? Bench.authorization(options) : null;
        Scenario s = options.scenario();
        int rowsPerRequest = mode.overHttp() ? options.rowsPerRequest() : BenchMode.RAW_BATCH_ROWS;
        String label = s.name() + " " + plan.label(mode, api)
                + (rate > 0 ? String.format(Locale.ROOT, " @%.0f/s", rate) : "") + note;
        Window window = Window.of(time.nanos(), warmup.toNanos(), duration.toNanos());
        boolean remote = loadProcess != null && mode.overHttp();
        ProcessHandle child = remote ? loadProcess.handle() : null;
        Running running = startLoad(server, bolt, mode, api, window, authorization, label, rate);
        ServerStats used;
        LoadSummary load;
        double drainSeconds = 0;
        try (HttpClient probe = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            URI metrics = URI.create(server.baseUrl() + "/metrics");
            ServerStats before;
            try {
                sleepUntil(window.measureStart());
                before = ServerReadings.read(probe, metrics, authorization, child);
                GroupStats groupsBefore = api.bolt() ? groups(server) : GroupStats.NONE;
                sleepUntil(window.end());
                used = ServerReadings.read(probe, metrics, authorization, child).minus(before);
                GroupStats groups = api.bolt() ? groups(server).minus(groupsBefore) : GroupStats.NONE;
                if (groups.any()) {
                    progress.printf(Locale.ROOT, "bench %s: %s%n", label, groups.describe());
                }
            } finally {
                load = running.await(); // the load stops by itself at the window's end
            }
            if (mode == BenchMode.ASYNC) {
                drainSeconds = ModeResult.KAFKA.equals(journal)
                        ? readings.awaitKafkaApplied(probe, server, window.end(), authorization)
                        : readings.awaitApplied(probe, server, window.end(), authorization);
                // async's writes are acknowledged before they are applied: what the server spent applying the
                // backlog left at the window's end is theirs too, so the reading runs to the drain's end (the
                // backlog left from the warm-up, applied in the window, counts as well: an upper bound)
                used = ServerReadings.read(probe, metrics, authorization, child).minus(before);
            }
        }
        if (mode == BenchMode.RAW) { // its transactions bypass the server: its figures are the loop's
            used = used.withBatches(load.samples(), load.writes(), load.latencySumNanos() / 1e9,
                    load.samples() > 0 ? rowsPerRequest : 0);
        }
        String client = mode.overHttp() ? client(api) : "in-process";
        ModeResult r = new ModeResult(mode, api, client, remote, load.clients(), rowsPerRequest, load.writes(),
                window.seconds(), load.p50Ms(), load.p99Ms(), load.errors(), load.errorsByStatus(),
                load.acknowledged(), -1, options.remote() == null ? "embedded" : "bolt", appliers, auth, used, 1, true,
                journal, "", load.errorsByCode());
        if (drainSeconds > 0) {
            // async counts a write when it is applied, not when it is journaled: the time includes the drain
            progress.printf(Locale.ROOT, "bench %s async: the journal backlog took %.2f s to apply after the window%n",
                    s.name(), drainSeconds);
            r = r.withSeconds(r.seconds() + drainSeconds);
        }
        return new Measured(note.isEmpty() ? checkStored(r, load.uncertain(), cypher -> server.sink().inReadTransaction(
                tx -> ((Number) tx.run(cypher, Map.of()).rows().getFirst().getFirst()).longValue())) : r,
                load);
    }

    /**
     * {@link #measure} for Neo4j's own server: the same load, with what can be read without sluice's
     * {@code /metrics} ({@link Neo4jPeer#reading}); the stored rows counted through its Query API. {@code warmup}
     * is all the load before the measured window ({@link BenchPrime#peerWarmup}).
     */
    ModeResult measurePeer(Neo4jPeer peer, BenchApi api, boolean auth, String note, Duration warmup,
            Duration duration) throws InterruptedException {
        BenchPeer kind = peer.process() != null ? BenchPeer.PROCESS : BenchPeer.IN_JVM;
        String label = options.scenario().name() + " " + plan.label(BenchMode.NEO4J, api, kind);
        if (kind == BenchPeer.PROCESS) {
            Duration jit = warmup.minus(options.warmup());
            String jitWarmup = jit.isZero() ? "no JIT warm-up (--prime 0)"
                    : String.format(Locale.ROOT, "%.0f s of the same load to warm its JIT", jit.toMillis() / 1e3);
            progress.printf(Locale.ROOT, "bench %s: Neo4j's server in a JVM of its own (pid %d): %s, then %.0f s"
                    + " warm-up and %.0f s measured%n", label, peer.process().pid(), jitWarmup,
                    options.warmup().toMillis() / 1e3, duration.toMillis() / 1e3);
        }
        Window window = Window.of(time.nanos(), warmup.toNanos(), duration.toNanos());
        ProcessHandle child = loadProcess != null ? loadProcess.handle() : null;
        Running running = startClientLoad(peer.uri(api), api, window, auth ? Bench.AUTHORIZATION : null,
                label + note, 0);
        ServerStats used;
        LoadSummary load;
        try {
            sleepUntil(window.measureStart());
            ServerStats before = peer.reading(child);
            sleepUntil(window.end());
            used = peer.reading(child).minus(before);
        } finally {
            load = running.await(); // the load stops by itself at the window's end
        }
        ModeResult r = new ModeResult(BenchMode.NEO4J, api, client(api), child != null, load.clients(),
                options.rowsPerRequest(), load.writes(), window.seconds(), load.p50Ms(), load.p99Ms(), load.errors(),
                load.errorsByStatus(), load.acknowledged(), -1, peer.sink(), 0, auth, used, 1, true,
                ModeResult.LOCAL, "", load.errorsByCode());
        return note.isEmpty() ? checkStored(r, load.uncertain(), peer::count) : r;
    }

    private Running startLoad(SluiceServer server, String bolt, BenchMode mode, BenchApi api, Window window,
            String authorization, String label, double rate) throws InterruptedException {
        Scenario s = options.scenario();
        if (!mode.overHttp()) {
            LoadRun run = LoadRun.start(new RawLoad(server.sink(), Template.compile(s.name(), s.template()),
                    s.workload(options.seed()).stream(0), time), new Tally(window, 1), label, time, progress);
            return run::await;
        }
        if (api.bolt()) { // a Bolt client has no ?mode=: what it gets is what sluice's Bolt listener does
            if (bolt == null) {
                throw new IllegalStateException(api.label() + ": the server was started without a Bolt address");
            }
            return startClientLoad(bolt, api, window, authorization, label, rate);
        }
        String db = options.serverConfig().neo4j().database();
        return startClientLoad(server.baseUrl() + "/db/" + db + api.path(s.name()) + "?mode=" + mode.label(), api,
                window, authorization, label, rate);
    }

    /** The server's groups of managed transactions so far (its metrics, read in process). */
    private static GroupStats groups(SluiceServer server) {
        return GroupStats.parse(server.metrics().scrape());
    }

    /** What {@link ModeResult#client} calls the load generator of {@code api}. */
    private String client(BenchApi api) {
        return api.bolt() ? "java-driver" : options.client().label();
    }

    /**
     * Load on {@code uri} (HTTP, or Bolt for a Bolt api), here or in the load process; {@code rate} > 0: open loop
     * at that rate.
     */
    private Running startClientLoad(String uri, BenchApi api, Window window, String authorization, String label,
            double rate) throws InterruptedException {
        Scenario s = options.scenario();
        LoadSpec spec = new LoadSpec(uri,
                api, s.rawCypher(), options.clients(), options.rowsPerRequest(), authorization, s.name(),
                options.seed(), options.client(), window.measureStart() - window.start(), window.end()
                - window.measureStart(), label, rate, options.serverConfig().neo4j().database());
        if (loadProcess == null) {
            return LoadRun.of(spec, window, time, progress)::await;
        }
        try {
            return loadProcess.start(spec)::await;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot hand the load to the load process", e);
        }
    }

    /**
     * Counts what the rows left in the database ({@link Scenario#stored}); for a scenario where that is exact, a
     * count outside [acknowledged, acknowledged + uncertain] is reported: rows lost, or applied twice.
     * {@code uncertain}: rows of requests lost in transport, which may or may not have been applied.
     */
    private ModeResult checkStored(ModeResult r, long uncertain, StoredCount count) {
        Scenario.Stored stored = options.scenario().stored();
        long n;
        try {
            n = count.count(stored.cypher());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log.warn("interrupted while counting what the run stored");
            return r;
        } catch (Exception e) {
            log.warn("cannot count what the run stored: {}", e.getMessage());
            return r;
        }
        if (stored.exact() && (n < r.acknowledged() || n > r.acknowledged() + uncertain)) {
            progress.printf(Locale.ROOT, "bench %s %s: WRONG: %,d rows acknowledged (and %,d lost in transport),"
                    + " %,d stored%n", options.scenario().name(), plan.label(r.mode(), r.api(),
                            Neo4jPeer.SINK_IN_JVM.equals(r.sink()) ? BenchPeer.IN_JVM : null), r.acknowledged(),
                    uncertain, n);
        }
        return r.withStored(n);
    }

    /** Runs a statement that returns one count, on the database the run wrote to. */
    @FunctionalInterface
    private interface StoredCount {
        long count(String cypher) throws Exception;
    }

    private void sleepUntil(long nanos) throws InterruptedException {
        time.sleep(Duration.ofNanos(nanos - time.nanos()));
    }
}
