package io.sluice.bench;

import java.io.PrintStream;
import java.util.Locale;

/**
 * With {@link BenchOptions#rates}, each HTTP mode's closed-loop run is followed by one open-loop run per rate
 * ({@link OpenLoopLoad}; over Bolt {@link BoltOpenLoad}), each on a fresh server too; those are reported apart
 * ({@link BenchReport#openLoop}). Sluice's modes only: Neo4j's own server is measured closed loop only.
 */
final class OpenLoopRuns {
    private final BenchOptions options;
    private final PrintStream progress;
    private final BenchPlan plan;
    private final BenchServers servers;
    private final ModeMeasurement modes;

    OpenLoopRuns(BenchOptions options, PrintStream progress, BenchPlan plan, BenchServers servers,
            ModeMeasurement modes) {
        this.options = options;
        this.progress = progress;
        this.plan = plan;
        this.servers = servers;
        this.modes = modes;
    }

    /**
     * An open-loop run of {@code run} at {@code rate} on a fresh server, as the closed-loop ones; a percentage is
     * of {@code closed}'s requests/s. Null (with a progress line) when a percentage has no peak to be taken of.
     */
    OpenLoopResult openLoop(BenchPlan.Run run, int round, Rate rate, ModeResult closed) throws InterruptedException {
        double target = rate.perSecond(closed.writesPerS() / closed.rowsPerRequest());
        String name = options.scenario().name() + " " + plan.label(run.mode(), run.api());
        if (!(target > 0)) {
            progress.printf(Locale.ROOT, "bench %s @%s: skipped, the closed-loop run had no writes to take a"
                    + " percentage of%n", name, rate.label());
            return null;
        }
        ModeMeasurement.Measured m = servers.onFreshServer(run.mode(), servers.config(run), run.auth(),
                run.api().bolt(), (server, bolt) -> modes.measure(server, bolt, run.mode(), run.api(), run.appliers(),
                        run.auth(), run.journal(), "", options.warmup(), options.duration(), target));
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
}
