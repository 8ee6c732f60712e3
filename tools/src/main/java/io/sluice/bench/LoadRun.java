package io.sluice.bench;

import io.sluice.time.Time;
import java.io.PrintStream;

/**
 * A load under way in this process: the generator, its counts and its progress lines. {@link #await} returns
 * the client's figures once every generator thread has stopped (the window's end, plus the requests then in
 * flight).
 */
final class LoadRun {
    private final Load load;
    private final Tally tally;
    private final Progress lines;

    private LoadRun(Load load, Tally tally, Progress lines) {
        this.load = load;
        this.tally = tally;
        this.lines = lines;
    }

    static LoadRun start(Load load, Tally tally, String label, Time time, PrintStream progress) {
        Progress lines = Progress.start(label, tally, time, progress);
        try {
            load.start(tally);
        } catch (RuntimeException | Error e) {
            lines.close();
            throw e;
        }
        return new LoadRun(load, tally, lines);
    }

    /**
     * The load of {@code spec} over {@code window}, closed or open loop: over Bolt for a Bolt api, through the
     * official driver ({@link BoltLoad}, {@link BoltOpenLoad}); else over HTTP, by the generator {@code spec} names.
     */
    static LoadRun of(LoadSpec spec, Window window, Time time, PrintStream progress) {
        Scenario.Workload rows = Scenario.named(spec.scenario()).workload(spec.seed());
        Load load = spec.api().bolt() ? (spec.rate() > 0 ? new BoltOpenLoad(spec, rows, time)
                : new BoltLoad(spec, rows, time)) : switch (spec.client()) {
            case NETTY -> spec.rate() > 0 ? new OpenLoopLoad(spec.target(), rows, spec.rate(), time)
                    : new NettyHttpLoad(spec.target(), rows, time);
            case JDK -> new JdkHttpLoad(spec.target(), rows, time); // closed loop only: LoadSpec says so
        };
        return start(load, new Tally(window, spec.clients()), spec.label(), time, progress);
    }

    LoadSummary await() throws InterruptedException {
        try {
            load.awaitStop();
        } finally {
            lines.close();
        }
        return tally.summary();
    }
}
