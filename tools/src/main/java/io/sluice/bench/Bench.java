package io.sluice.bench;

import io.sluice.time.Time;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * {@code sluice bench}: runs a scenario in each requested mode, one after another, each against a fresh
 * in-process sluice (embedded Neo4j in a temporary directory, HTTP on an ephemeral loopback port, Bolt on a free
 * one for the Bolt apis):
 * start, warm up, measure, stop, delete. This class runs the rounds; the parts are classes of their own:
 * <ul>
 *   <li>{@link BenchPlan}: what a round measures, and what each measurement is called;</li>
 *   <li>{@link BenchPrime}: the JIT's warm-up before the first mode, and that of Neo4j's server in a JVM of its
 *       own before each of its measurements;</li>
 *   <li>{@link BenchServers}: the fresh server of each measurement, sluice's or Neo4j's own;</li>
 *   <li>{@link ModeMeasurement}: one mode's run on a server, the server's metrics read at both ends of the
 *       measured window ({@link ServerReadings}), what its rows left in the database counted after; for mode
 *       {@code neo4j}, Neo4j's own server instead of sluice, with the same load and the same rows;</li>
 *   <li>{@link OpenLoopRuns}: with {@link BenchOptions#rates}, the open-loop runs after each HTTP mode's
 *       closed-loop run.</li>
 * </ul>
 * Client and server share the JVM, or with {@link BenchOptions#loadProcess} the client (HTTP, or the Bolt driver)
 * runs in a JVM of its own ({@link LoadProcess}), and they share the machine's cores, as they would on one host:
 * comparisons between the modes of one run are fair; absolute numbers depend on the machine.
 */
public final class Bench {
    /** The bench server's password (a throwaway store on loopback), and the header every request carries. */
    static final String PASSWORD = "bench-password";
    static final String AUTHORIZATION = basic("neo4j", PASSWORD);

    /**
     * The credentials the load and the metrics probe send to sluice: over {@code --neo4j} with a user, that user's
     * (sluice checks them against that Neo4j's users); otherwise the bench's own, which it gives each server it starts.
     */
    static String authorization(BenchOptions o) {
        if (o.remote() != null && o.remote().user() != null) {
            return basic(o.remote().user(), o.remote().password() == null ? "" : o.remote().password());
        }
        return AUTHORIZATION;
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
    }

    private final BenchOptions options;
    private final Time time;
    private final PrintStream progress;
    private final BenchPlan plan;
    private final BenchPrime prime;

    /** {@code progress} gets a line a second while a mode runs, and one per finished mode. */
    public Bench(BenchOptions options, Time time, PrintStream progress) {
        this.options = options;
        this.time = time;
        this.progress = progress;
        this.plan = new BenchPlan(options);
        this.prime = new BenchPrime(options, plan);
    }

    /** Primes the JIT, then runs every mode, each on a fresh server, and returns the report. */
    public BenchReport run() throws InterruptedException {
        if (options.modes().contains(BenchMode.NEO4J) && plan.apis(BenchMode.NEO4J).isEmpty()) {
            throw new IllegalArgumentException("Neo4j has no template endpoint: --modes neo4j needs --api tx-commit,"
                    + " query-v2 or bolt");
        }
        for (BenchMode mode : options.modes()) {
            if (plan.apis(mode).isEmpty()) {
                throw new IllegalArgumentException("--modes " + mode.label() + " has no api to run: a Bolt client"
                        + " chooses no mode, so --api bolt runs on sync (sluice's Bolt listener) and neo4j only");
            }
        }
        try (LoadProcess child = options.loadProcess() ? startLoadProcess() : null;
                BenchBroker broker = "start".equals(options.kafka()) ? startBroker() : null) {
            String kafka = broker != null ? broker.bootstrap() : options.kafka();
            BenchServers servers = new BenchServers(options, time, progress, kafka);
            ModeMeasurement modes = new ModeMeasurement(options, time, progress, plan, child);
            OpenLoopRuns openLoops = new OpenLoopRuns(options, progress, plan, servers, modes);
            for (BenchMode mode : options.modes()) {
                if (mode.overHttp() && mode != BenchMode.NEO4J && plan.apis(mode).size() < options.apis().size()) {
                    progress.printf("bench %s %s: a Bolt client chooses no mode; the Bolt apis run on sync (sluice's"
                            + " Bolt listener) and neo4j only%n", options.scenario().name(), mode.label());
                }
            }
            if (options.modes().contains(BenchMode.NEO4J) && options.apis().contains(BenchApi.TEMPLATE)) {
                progress.printf("bench %s neo4j: Neo4j has no template endpoint; the neo4j mode runs %s only%n",
                        options.scenario().name(), String.join(", ", plan.apis(BenchMode.NEO4J).stream()
                                .map(BenchApi::label).toList()));
            }
            if (!options.prime().isZero()) {
                prime.prime(servers, modes, kafka);
            }
            List<BenchPlan.Run> runs = plan.plan();
            List<ModeResult> results = new ArrayList<>();
            List<OpenLoopResult> openLoop = new ArrayList<>();
            for (int round = 1; round <= options.rounds(); round++) {
                for (BenchPlan.Run run : round % 2 == 1 ? runs : runs.reversed()) { // ABBA: a trend in time cancels out
                    ModeResult r = (run.mode() == BenchMode.NEO4J
                            ? servers.onPeer(run.peer(), run.auth(), peer -> modes.measurePeer(peer, run.api(),
                                    run.auth(), "", prime.peerWarmup(run.peer()), options.duration()))
                            : servers.onFreshServer(run.mode(), servers.config(run), run.auth(), run.api().bolt(),
                                    (server, bolt) -> modes.measure(server, bolt, run.mode(), run.api(),
                                            run.appliers(), run.auth(), run.journal(), "", options.warmup(),
                                            options.duration(), 0).result()))
                            .withRound(round).withCoalesce(run.coalesce())
                            .withSettings(BenchOptions.label(run.settings()));
                    progress.printf(Locale.ROOT, "bench %s %s (%s, auth %s%s%s%s): %,.0f writes/s, p50 %.2f"
                            + " ms, p99 %.2f ms, errors %d%n", options.scenario().name(), plan.label(run),
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
                                options.scenario().name(), plan.label(run));
                    }
                    for (Rate rate : run.mode().overHttp() && run.mode() != BenchMode.NEO4J ? options.rates()
                            : List.<Rate>of()) {
                        OpenLoopResult o = openLoops.openLoop(run, round, rate, r);
                        if (o != null) {
                            openLoop.add(o);
                        }
                    }
                }
            }
            return BenchReport.of(options.scenario().name(), results, openLoop);
        }
    }

    private BenchBroker startBroker() throws InterruptedException {
        try {
            return BenchBroker.start(options.workDir(), progress);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the bench's Kafka broker", e);
        }
    }

    private LoadProcess startLoadProcess() throws InterruptedException {
        try {
            return LoadProcess.start(options.loadJavaOptions(), progress);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the load process", e);
        }
    }

    static HttpRequest.Builder authorized(HttpRequest.Builder b, String authorization) {
        return authorization == null ? b : b.header("Authorization", authorization);
    }
}
