package io.sluice.bench;

import io.sluice.time.Time;
import io.sluice.security.InitialAuth;
import io.sluice.server.SluiceServer;
import io.sluice.config.HostPort;
import io.sluice.write.Template;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code sluice bench}: runs a scenario in each requested mode, one after another, each against a fresh
 * in-process sluice (embedded Neo4j in a temporary directory, HTTP on an ephemeral loopback port, no Bolt):
 * start, warm up, measure, stop, delete. Before the first mode, every mode runs for a while on a throwaway
 * server ({@link BenchOptions#prime}): client and server share one JVM, and without this the first mode would
 * be measured while the JIT is still compiling the paths every mode shares. HTTP modes are driven by {@link NettyHttpLoad} or {@link JdkHttpLoad},
 * {@code raw} by {@link RawLoad}; HTTP modes run once per {@link BenchApi} asked for. The server's metrics are
 * read at both ends of the measured window to show where the time went. Client and server share the JVM, or
 * with {@link BenchOptions#loadProcess} the HTTP client runs in a JVM of its own ({@link LoadProcess}), and they
 * share the machine's cores, as they would on one host: comparisons between the modes of one run are fair;
 * absolute numbers depend on the machine. After each mode, what its rows left in the database is counted.
 * With {@link BenchOptions#rates}, each HTTP mode's closed-loop run is followed by one open-loop run per rate
 * ({@link OpenLoopLoad}), each on a fresh server too; those are reported apart ({@link BenchReport#openLoop}).
 * Mode {@code neo4j} runs Neo4j's own server instead of sluice ({@link Neo4jPeer}), with the same load and the
 * same rows: by default in a JVM of its own ({@link PeerProcess}), one per measurement, as a user deploys it, which
 * the prime cannot warm, so each gets a JIT warm-up of its own before its warm-up and measured window:
 * {@link #peerJitWarmup}, at least {@link #PEER_JIT_WARMUP} of the same load (the method: "JIT warmed for
 * 20 s first"), none with {@code --prime 0}; or in this JVM ({@link BenchPeer#IN_JVM}), primed with the rest.
 */
public final class Bench {
    private static final Logger log = LoggerFactory.getLogger(Bench.class);
    /** The least JIT warm-up of Neo4j's server in a JVM of its own, unless {@code --prime 0}. */
    static final Duration PEER_JIT_WARMUP = Duration.ofSeconds(20);

    /** The bench server's password (a throwaway store on loopback), and the header every request carries. */
    static final String PASSWORD = "bench-password";
    static final String AUTHORIZATION = "Basic " + java.util.Base64.getEncoder().encodeToString(
            ("neo4j:" + PASSWORD).getBytes(java.nio.charset.StandardCharsets.UTF_8));

    private final BenchOptions options;
    private final Time time;
    private final PrintStream progress;
    /** The load process while {@link #run} runs with {@link BenchOptions#loadProcess}; else null. */
    private LoadProcess loadProcess;
    /** Kafka's bootstrap servers while {@link #run} runs with {@link BenchOptions#kafka}; else null. */
    private String kafka;

    /** {@code progress} gets a line a second while a mode runs, and one per finished mode. */
    public Bench(BenchOptions options, Time time, PrintStream progress) {
        this.options = options;
        this.time = time;
        this.progress = progress;
    }

    /** Primes the JIT, then runs every mode, each on a fresh server, and returns the report. */
    public BenchReport run() throws InterruptedException {
        if (options.modes().contains(BenchMode.NEO4J) && apis(BenchMode.NEO4J).isEmpty()) {
            throw new IllegalArgumentException("Neo4j has no template endpoint: --modes neo4j needs --api tx-commit"
                    + " or query-v2");
        }
        try (LoadProcess child = options.loadProcess() ? startLoadProcess() : null;
                BenchBroker broker = "start".equals(options.kafka()) ? startBroker() : null) {
            this.loadProcess = child;
            this.kafka = broker != null ? broker.bootstrap() : options.kafka();
            if (options.modes().contains(BenchMode.NEO4J) && options.apis().contains(BenchApi.TEMPLATE)) {
                progress.printf("bench %s neo4j: Neo4j has no template endpoint; the neo4j mode runs %s only%n",
                        options.scenario().name(), String.join(", ", apis(BenchMode.NEO4J).stream()
                                .map(BenchApi::label).toList()));
            }
            if (!options.prime().isZero()) {
                prime();
            }
            List<Run> plan = plan();
            List<ModeResult> results = new ArrayList<>();
            List<OpenLoopResult> openLoop = new ArrayList<>();
            for (int round = 1; round <= options.rounds(); round++) {
                for (Run run : round % 2 == 1 ? plan : plan.reversed()) { // ABBA: a trend in time cancels out
                    ModeResult r = (run.mode() == BenchMode.NEO4J
                            ? onPeer(run.peer(), run.auth(), peer -> measurePeer(peer, run.api(), run.auth(), "",
                                    peerWarmup(run.peer()), options.duration()))
                            : onFreshServer(run.mode(), config(run), run.auth(), server -> measure(server, run.mode(),
                                    run.api(), run.appliers(), run.auth(), run.journal(), "", options.warmup(),
                                    options.duration(), 0).result())).withRound(round).withCoalesce(run.coalesce())
                            .withSettings(BenchOptions.label(run.settings()));
                    progress.printf(Locale.ROOT, "bench %s %s (%s, auth %s%s%s%s): %,.0f writes/s, p50 %.2f"
                            + " ms, p99 %.2f ms, errors %d%n", options.scenario().name(), label(run),
                            run.mode() == BenchMode.NEO4J ? "Neo4j's own server, " + (run.peer() == BenchPeer.PROCESS
                                    ? "a JVM of its own" : "in the bench's JVM") : run.appliers() + " appliers",
                            run.auth() ? "on" : "off", run.coalesce() ? "" : ", not coalesced",
                            (ModeResult.KAFKA.equals(run.journal()) ? ", journal on Kafka" : "")
                                    + (run.settings().isEmpty() ? "" : ", " + BenchOptions.label(run.settings())),
                            options.rounds() > 1 ? ", round " + round : "", r.writesPerS(), r.p50Ms(), r.p99Ms(),
                            r.errors());
                    results.add(r);
                    // open loop: sluice's modes (Neo4j's own server is measured closed loop only)
                    if (run.mode() == BenchMode.NEO4J && !options.rates().isEmpty()) {
                        progress.printf(Locale.ROOT, "bench %s %s: no open-loop runs (sluice's modes only)%n",
                                options.scenario().name(), label(run));
                    }
                    for (Rate rate : run.mode().overHttp() && run.mode() != BenchMode.NEO4J ? options.rates()
                            : List.<Rate>of()) {
                        OpenLoopResult o = openLoop(run, round, rate, r);
                        if (o != null) {
                            openLoop.add(o);
                        }
                    }
                }
            }
            return BenchReport.of(options.scenario().name(), results, openLoop);
        } finally {
            this.loadProcess = null;
            this.kafka = null;
        }
    }

    /**
     * An open-loop run of {@code run} at {@code rate} on a fresh server, as the closed-loop ones; a percentage is
     * of {@code closed}'s requests/s. Null (with a progress line) when a percentage has no peak to be taken of.
     */
    private OpenLoopResult openLoop(Run run, int round, Rate rate, ModeResult closed) throws InterruptedException {
        double target = rate.perSecond(closed.writesPerS() / closed.rowsPerRequest());
        String name = options.scenario().name() + " " + label(run.mode(), run.api());
        if (!(target > 0)) {
            progress.printf(Locale.ROOT, "bench %s @%s: skipped, the closed-loop run had no writes to take a"
                    + " percentage of%n", name, rate.label());
            return null;
        }
        Measured m = onFreshServer(run.mode(), config(run), run.auth(), server -> measure(server, run.mode(),
                run.api(), run.appliers(), run.auth(), run.journal(), "", options.warmup(), options.duration(),
                target));
        ModeResult r = m.result().withRound(round).withCoalesce(run.coalesce())
                .withSettings(BenchOptions.label(run.settings()));
        LoadSummary load = m.load();
        OpenLoopResult o = new OpenLoopResult(r, rate, target, options.duration().toNanos() / 1e9,
                load.samples() - load.errors(), load.p999Ms(), load.maxMs(), load.open());
        progress.printf(Locale.ROOT, "bench %s %s%s: %,.0f/s achieved, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms,"
                + " max %.2f ms, errors %d, not sent %d, late %d%n", name, o.suffix(),
                options.rounds() > 1 ? ", round " + round : "", o.achievedPerS(), r.p50Ms(), r.p99Ms(), o.p999Ms(),
                o.maxMs(), r.errors(), o.notSent(), o.late());
        return o;
    }

    /**
     * One measurement of a round; {@code journal}: where async writes go ({@link ModeResult#LOCAL} or KAFKA);
     * {@code peer}: where {@link BenchMode#NEO4J}'s server runs (null for sluice's modes).
     */
    private record Run(boolean auth, boolean coalesce, BenchMode mode, BenchApi api, int appliers, String journal,
            BenchPeer peer, Map<String, String> settings) {}

    /**
     * The run's server config; on Kafka, a topic and consumer group of the run's own, so that no run reads what
     * another wrote (the broker outlives the servers).
     */
    private io.sluice.config.SluiceConfig config(Run run) {
        io.sluice.config.SluiceConfig c = options.serverConfig(run.appliers(), run.coalesce(), run.settings());
        if (!ModeResult.KAFKA.equals(run.journal())) {
            return c;
        }
        var k = c.journal().withKafka(kafka).kafka();
        String name = "sluice-bench-" + options.scenario().name() + "-" + Long.toHexString(time.nanos());
        return c.with(c.journal().withKafka(k.withTopic(name).withGroup(name)));
    }

    /**
     * A round's measurements, in order: per auth setting, coalescing setting, mode, api (HTTP modes), applier count
     * (batched modes), peer placement (Neo4j's server). Raw mode runs once (no HTTP: credentials change
     * nothing), templates once per auth setting (coalescing is of raw Cypher), Neo4j's server once per auth
     * setting, api and placement (coalescing and Neo4j settings are sluice's); all of it once per Neo4j settings
     * variant.
     */
    private List<Run> plan() {
        List<Run> plan = new ArrayList<>();
        for (Map<String, String> settings : options.neo4jSettings()) {
            plan.addAll(plan(settings));
        }
        return plan;
    }

    /** {@link #plan()}'s measurements under one of its Neo4j settings variants. */
    private List<Run> plan(Map<String, String> settings) {
        List<Run> plan = new ArrayList<>();
        for (boolean auth : options.auth()) {
            for (boolean coalesce : options.coalesce()) {
                for (BenchMode mode : options.modes()) {
                    for (BenchApi api : apis(mode)) {
                        if ((!mode.overHttp() && auth != options.auth().getFirst())
                                || ((api == BenchApi.TEMPLATE || mode == BenchMode.NEO4J)
                                        && coalesce != options.coalesce().getFirst())
                                || (mode == BenchMode.NEO4J && settings != options.neo4jSettings().getFirst())) {
                            continue;
                        }
                        boolean batched = mode == BenchMode.SYNC || mode == BenchMode.ASYNC;
                        for (int appliers : batched ? options.appliers() : options.appliers().subList(0, 1)) {
                            for (String journal : mode == BenchMode.ASYNC ? options.journals()
                                    : List.of(ModeResult.LOCAL)) {
                                for (BenchPeer peer : mode == BenchMode.NEO4J ? options.peers()
                                        : java.util.Collections.<BenchPeer>singletonList(null)) {
                                    plan.add(new Run(auth, coalesce, mode, api, appliers, journal, peer,
                                            settings));
                                }
                            }
                        }
                    }
                }
            }
        }
        return plan;
    }

    /** The apis {@code mode} runs: raw mode its rows, Neo4j's server those it has (no template), else all. */
    private List<BenchApi> apis(BenchMode mode) {
        return !mode.overHttp() ? List.of(BenchApi.TEMPLATE) : mode == BenchMode.NEO4J
                ? options.apis().stream().filter(a -> a != BenchApi.TEMPLATE).toList() : options.apis();
    }

    private BenchBroker startBroker() throws InterruptedException {
        try {
            return BenchBroker.start(options.workDir(), progress);
        } catch (java.io.IOException e) {
            throw new UncheckedIOException("cannot start the bench's Kafka broker", e);
        }
    }

    private LoadProcess startLoadProcess() throws InterruptedException {
        try {
            return LoadProcess.start(options.loadJavaOptions(), progress);
        } catch (java.io.IOException e) {
            throw new UncheckedIOException("cannot start the load process", e);
        }
    }

    private String label(BenchMode mode, BenchApi api) {
        return mode.overHttp() && !options.apis().equals(List.of(BenchApi.TEMPLATE))
                ? api.label() + ":" + mode.label() : mode.label();
    }

    /** {@link #label(BenchMode, BenchApi)}, Neo4j's server in this JVM {@code -in-jvm} as in the report. */
    private String label(BenchMode mode, BenchApi api, BenchPeer peer) {
        return label(mode, api) + (peer == BenchPeer.IN_JVM ? BenchReport.IN_JVM : "");
    }

    private String label(Run run) {
        return label(run.mode(), run.api(), run.peer());
    }

    /**
     * What Neo4j's server placed at {@code peer} runs before its measured window: the run's warm-up, and in a JVM
     * of its own ({@link BenchPeer#PROCESS}) its JIT warm-up before that, as one stretch of the same load.
     */
    private Duration peerWarmup(BenchPeer peer) {
        return peer == BenchPeer.PROCESS ? peerJitWarmup().plus(options.warmup()) : options.warmup();
    }

    /**
     * The JIT warm-up of Neo4j's server in a JVM of its own: what the prime gives it in the bench's JVM (its
     * apis' slices of {@code --prime}), and at least {@link #PEER_JIT_WARMUP}; none with {@code --prime 0}, which
     * warms nothing. The sluice servers' code is warmed by the prime in the bench's JVM; a child starts cold and
     * its compiled code ends with it, so it is warmed in the child, on the store it is then measured on: the
     * rows of the warm-up stay (counted in what it acknowledged), as the run's own warm-up's do.
     */
    Duration peerJitWarmup() {
        if (options.prime().isZero() || !options.modes().contains(BenchMode.NEO4J)) {
            return Duration.ZERO;
        }
        int peerRuns = apis(BenchMode.NEO4J).size();
        Duration share = options.prime().multipliedBy(peerRuns).dividedBy(sluiceRuns() + peerRuns);
        return share.compareTo(PEER_JIT_WARMUP) > 0 ? share : PEER_JIT_WARMUP;
    }

    /** How many (mode, api) runs of sluice's a round has, auth and appliers aside: the prime's slices. */
    private int sluiceRuns() {
        return options.modes().stream().filter(m -> m != BenchMode.NEO4J).mapToInt(m -> apis(m).size()).sum();
    }

    /**
     * Every mode (and api) in turn on one throwaway server, for an equal share of the prime time, Neo4j's server's
     * apis on a throwaway server of its own in this JVM when it is measured here ({@link BenchPeer#IN_JVM});
     * nothing is kept. Neo4j's server in a JVM of its own gets its share in that JVM ({@link #peerJitWarmup}).
     */
    private void prime() throws InterruptedException {
        boolean inJvmPeer = options.modes().contains(BenchMode.NEO4J) && options.peers().contains(BenchPeer.IN_JVM);
        int runs = sluiceRuns() + (inJvmPeer ? apis(BenchMode.NEO4J).size() : 0);
        if (runs == 0) {
            return; // Neo4j's server alone, in a JVM of its own: warmed there
        }
        Duration slice = options.prime().dividedBy(runs);
        int appliers = options.appliers().getFirst();
        boolean auth = options.auth().getFirst();
        List<BenchMode> sluiceModes = options.modes().stream().filter(m -> m != BenchMode.NEO4J).toList();
        if (!sluiceModes.isEmpty()) {
            onFreshServer(sluiceModes.getFirst(), options.serverConfig(appliers, options.coalesce().getFirst(),
                    options.neo4jSettings().getFirst()), auth,
                    server -> {
                for (BenchMode mode : sluiceModes) {
                    for (BenchApi api : apis(mode)) {
                        measure(server, mode, api, appliers, auth, ModeResult.LOCAL, " (priming the JIT)",
                                Duration.ZERO, slice, 0);
                    }
                }
                return null;
            });
        }
        if (inJvmPeer) {
            onPeer(BenchPeer.IN_JVM, auth, peer -> {
                for (BenchApi api : apis(BenchMode.NEO4J)) {
                    measurePeer(peer, api, auth, " (priming the JIT)", Duration.ZERO, slice);
                }
                return null;
            });
        }
        if (kafka != null) { // the producer's and the Kafka applier's paths: one more slice, on a server of their own
            Run run = new Run(auth, options.coalesce().getFirst(), BenchMode.ASYNC, options.apis().getFirst(),
                    appliers, ModeResult.KAFKA, null, options.neo4jSettings().getFirst());
            onFreshServer(BenchMode.ASYNC, config(run), auth, server -> measure(server, BenchMode.ASYNC, run.api(),
                    appliers, auth, ModeResult.KAFKA, " (priming the JIT, journal on Kafka)", Duration.ZERO, slice, 0));
        }
    }

    @FunctionalInterface
    private interface OnServer<T> {
        T run(SluiceServer server) throws InterruptedException;
    }

    /**
     * {@link #onFreshServer} for Neo4j's own server ({@link Neo4jPeer}), where {@code kind} says: started on a
     * fresh home, given {@code work}, stopped.
     */
    private <T> T onPeer(BenchPeer kind, boolean auth, OnPeer<T> work) throws InterruptedException {
        Path dir = tempDir(BenchMode.NEO4J);
        try (Neo4jPeer peer = Neo4jPeer.start(kind, dir, options.serverConfig(), auth, options.scenario().schema(),
                time, progress)) {
            return work.run(peer);
        } finally {
            deleteTree(dir);
        }
    }

    @FunctionalInterface
    private interface OnPeer<T> {
        T run(Neo4jPeer peer) throws InterruptedException;
    }

    private <T> T onFreshServer(BenchMode mode, io.sluice.config.SluiceConfig config, boolean auth, OnServer<T> work)
            throws InterruptedException {
        Path dir = tempDir(mode);
        // the bench warms the JIT itself (the prime), and measures from the first request: no rehearsal
        config = config.with(config.warmup().withoutRehearsal());
        try {
            SluiceServer.Options so = new SluiceServer.Options(config, dir, new HostPort("127.0.0.1", 0), null);
            if (options.remote() != null) {
                wipeRemote();
                so = SluiceServer.Options.remote(config, dir, new HostPort("127.0.0.1", 0), options.remote());
            }
            so = so.withInitialAuth(auth ? new InitialAuth.Given(PASSWORD, false) : new InitialAuth.Off());
            try (SluiceServer server = SluiceServer.start(so)) {
                return work.run(server);
            }
        } finally {
            deleteTree(dir);
        }
    }

    /** A load under way, here or in the load process. */
    @FunctionalInterface
    private interface Running {
        LoadSummary await() throws InterruptedException;
    }

    /** A measurement, and the load's own figures behind it. */
    private record Measured(ModeResult result, LoadSummary load) {}

    /**
     * One mode's run on {@code server}: closed loop, or open loop at {@code rate} requests/s when it is positive.
     * A {@code note} (priming) skips the stored-rows check.
     */
    private Measured measure(SluiceServer server, BenchMode mode, BenchApi api, int appliers, boolean auth,
            String journal, String note, Duration warmup, Duration duration, double rate) throws InterruptedException {
        String authorization = auth ? AUTHORIZATION : null;
        Scenario s = options.scenario();
        int rowsPerRequest = mode.overHttp() ? options.rowsPerRequest() : BenchMode.RAW_BATCH_ROWS;
        String label = s.name() + " " + label(mode, api) + (rate > 0 ? String.format(Locale.ROOT, " @%.0f/s", rate)
                : "") + note;
        Window window = Window.of(time.nanos(), warmup.toNanos(), duration.toNanos());
        boolean remote = loadProcess != null && mode.overHttp();
        ProcessHandle child = remote ? loadProcess.handle() : null;
        Running running = startLoad(server, mode, api, window, authorization, label, rate);
        ServerStats used;
        LoadSummary load;
        double drainSeconds = 0;
        try (HttpClient probe = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            URI metrics = URI.create(server.baseUrl() + "/metrics");
            ServerStats before;
            try {
                sleepUntil(window.measureStart());
                before = read(probe, metrics, authorization, child);
                sleepUntil(window.end());
                used = read(probe, metrics, authorization, child).minus(before);
            } finally {
                load = running.await(); // the load stops by itself at the window's end
            }
            if (mode == BenchMode.ASYNC) {
                drainSeconds = ModeResult.KAFKA.equals(journal)
                        ? awaitKafkaApplied(probe, server, window.end(), authorization)
                        : awaitApplied(probe, server, window.end(), authorization);
                // async's writes are acknowledged before they are applied: what the server spent applying the
                // backlog left at the window's end is theirs too, so the reading runs to the drain's end (the
                // backlog left from the warm-up, applied in the window, counts as well: an upper bound)
                used = read(probe, metrics, authorization, child).minus(before);
            }
        }
        if (mode == BenchMode.RAW) { // its transactions bypass the server: its figures are the loop's
            used = used.withBatches(load.samples(), load.writes(), load.latencySumNanos() / 1e9,
                    load.samples() > 0 ? rowsPerRequest : 0);
        }
        String client = mode.overHttp() ? options.client().label() : "in-process";
        ModeResult r = new ModeResult(mode, api, client, remote, load.clients(), rowsPerRequest, load.writes(),
                window.seconds(), load.p50Ms(), load.p99Ms(), load.errors(), load.errorsByStatus(),
                load.acknowledged(), -1, options.remote() == null ? "embedded" : "bolt", appliers, auth, used, 1, true,
                journal);
        if (drainSeconds > 0) {
            // async counts a write when it is applied, not when it is journaled: the time includes the drain
            progress.printf(Locale.ROOT, "bench %s async: the journal backlog took %.2f s to apply after the window%n",
                    s.name(), drainSeconds);
            r = r.withSeconds(r.seconds() + drainSeconds);
        }
        return new Measured(note.isEmpty() ? checkStored(r, load.uncertain(), cypher -> server.sink().inReadTransaction(
                tx -> ((Number) tx.run(cypher, java.util.Map.of()).rows().getFirst().getFirst()).longValue())) : r,
                load);
    }

    /**
     * {@link #measure} for Neo4j's own server: the same load, with what can be read without sluice's
     * {@code /metrics} ({@link Neo4jPeer#reading}); the stored rows counted through its Query API. {@code warmup}
     * is all the load before the measured window ({@link #peerWarmup}).
     */
    private ModeResult measurePeer(Neo4jPeer peer, BenchApi api, boolean auth, String note, Duration warmup,
            Duration duration) throws InterruptedException {
        BenchPeer kind = peer.process() != null ? BenchPeer.PROCESS : BenchPeer.IN_JVM;
        String label = options.scenario().name() + " " + label(BenchMode.NEO4J, api, kind);
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
        Running running = startHttpLoad(peer.uri(api), api, window, auth ? AUTHORIZATION : null, label + note, 0);
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
        ModeResult r = new ModeResult(BenchMode.NEO4J, api, options.client().label(), child != null, load.clients(),
                options.rowsPerRequest(), load.writes(), window.seconds(), load.p50Ms(), load.p99Ms(), load.errors(),
                load.errorsByStatus(), load.acknowledged(), -1, peer.sink(), 0, auth, used, 1, true,
                ModeResult.LOCAL);
        return note.isEmpty() ? checkStored(r, load.uncertain(), peer::count) : r;
    }

    private Running startLoad(SluiceServer server, BenchMode mode, BenchApi api, Window window, String authorization,
            String label, double rate) throws InterruptedException {
        Scenario s = options.scenario();
        if (!mode.overHttp()) {
            LoadRun run = LoadRun.start(new RawLoad(server.sink(), Template.compile(s.name(), s.template()),
                    s.workload(options.seed()).stream(0), time), new Tally(window, 1), label, time, progress);
            return run::await;
        }
        String db = options.serverConfig().neo4j().database();
        return startHttpLoad(server.baseUrl() + "/db/" + db + api.path(s.name()) + "?mode=" + mode.label(), api,
                window, authorization, label, rate);
    }

    /** HTTP load on {@code uri}, here or in the load process; {@code rate} > 0: open loop at that rate. */
    private Running startHttpLoad(String uri, BenchApi api, Window window, String authorization, String label,
            double rate) throws InterruptedException {
        Scenario s = options.scenario();
        LoadSpec spec = new LoadSpec(uri,
                api, s.rawCypher(), options.clients(), options.rowsPerRequest(), authorization, s.name(),
                options.seed(), options.client(), window.measureStart() - window.start(), window.end()
                - window.measureStart(), label, rate);
        if (loadProcess == null) {
            return LoadRun.http(spec, window, time, progress)::await;
        }
        try {
            return loadProcess.start(spec)::await;
        } catch (java.io.IOException e) {
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
                    + " %,d stored%n", options.scenario().name(), label(r.mode(), r.api(),
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

    /** How long the bench waits for an async mode's journal backlog to be applied after its window. */
    static final Duration DRAIN_LIMIT = Duration.ofMinutes(5);

    /** Waits until every journaled write is applied, at most {@link #DRAIN_LIMIT}; the seconds from {@code since}. */
    private double awaitApplied(HttpClient probe, SluiceServer server, long since, String authorization)
            throws InterruptedException {
        try {
            var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
            String db = options.serverConfig().neo4j().database();
            long last = mapper.readTree(probe.send(authorized(java.net.http.HttpRequest.newBuilder(
                    URI.create(server.baseUrl() + "/health")), authorization).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString()).body()).get("journal_next_offset").asLong() - 1;
            long deadline = time.nanos() + DRAIN_LIMIT.toNanos();
            while (last >= 0) {
                if (time.nanos() > deadline) {
                    log.warn("the journal was not applied within {}; the figures count what was", DRAIN_LIMIT);
                    break;
                }
                var r = probe.send(authorized(java.net.http.HttpRequest.newBuilder(URI.create(server.baseUrl() + "/db/"
                        + db + "/applied?offset=" + last + "&wait=30s")), authorization).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                if (mapper.readTree(r.body()).get("applied").asBoolean()) {
                    break;
                }
            }
        } catch (IOException e) {
            log.warn("cannot wait for the journal to be applied: {}", e.toString());
        }
        return Math.max(0, (time.nanos() - since) / 1e9);
    }

    /**
     * Waits until the Kafka journal has nothing left to apply ({@code journal_lag_rows} in {@code /health}: the
     * topic's end offsets less the graph's positions, refreshed every 250 ms by the server), polling every 100 ms
     * for at most 5 minutes; returns the seconds from {@code since} to then.
     */
    private double awaitKafkaApplied(HttpClient probe, SluiceServer server, long since, String authorization)
            throws InterruptedException {
        var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        long deadline = time.nanos() + DRAIN_LIMIT.toNanos();
        try {
            while (time.nanos() < deadline) {
                var health = mapper.readTree(probe.send(authorized(java.net.http.HttpRequest.newBuilder(
                        URI.create(server.baseUrl() + "/health")), authorization).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString()).body());
                if (health.path("journal_lag_rows").asLong(-1) == 0) {
                    break;
                }
                time.sleep(Duration.ofMillis(100));
            }
        } catch (IOException e) {
            log.warn("cannot wait for the Kafka journal to be applied: {}", e.toString());
        }
        return Math.max(0, (time.nanos() - since) / 1e9);
    }

    private void sleepUntil(long nanos) throws InterruptedException {
        time.sleep(Duration.ofNanos(nanos - time.nanos()));
    }

    static java.net.http.HttpRequest.Builder authorized(java.net.http.HttpRequest.Builder b, String authorization) {
        return authorization == null ? b : b.header("Authorization", authorization);
    }

    private static ServerStats read(HttpClient probe, URI metrics, String authorization, ProcessHandle load)
            throws InterruptedException {
        try {
            return ServerStats.fetch(probe, metrics, authorization).withProcess(load);
        } catch (IOException | RuntimeException e) {
            log.warn("cannot read the server's metrics ({}); server figures will be missing", e.toString());
            return ServerStats.NONE;
        }
    }

    /** Empties the remote database (data and sluice's offset node; the schema stays) so each mode starts fresh. */
    private void wipeRemote() {
        try (io.sluice.sink.BoltSink sink = io.sluice.sink.BoltSink.connect(options.remote(), Duration.ofSeconds(60), time)) {
            sink.runImplicit("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS", java.util.Map.of());
        } catch (io.sluice.sink.SinkException e) {
            throw new IllegalStateException("cannot empty the Neo4j at " + options.remote().uri() + ": " + e.getMessage(), e);
        }
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
