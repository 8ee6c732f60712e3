package io.sluice.bench;

import io.sluice.time.Time;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A line a second on stderr while a mode runs: its phase, elapsed time, writes/s so far and in the last second,
 * errors. Owns one named daemon thread, stopped by {@link #close}. A failing tick is reported and the next one
 * still runs (a scheduled task that throws would be silently cancelled).
 */
final class Progress implements AutoCloseable {
    private final String label;
    private final Tally tally;
    private final Time time;
    private final PrintStream err;
    private final ScheduledExecutorService timer;
    private long lastWrites;
    private long lastNanos;

    private Progress(String label, Tally tally, Time time, PrintStream err) {
        this.label = label;
        this.tally = tally;
        this.time = time;
        this.err = err;
        this.timer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("sluice-bench-progress").daemon(true).factory());
        this.lastNanos = tally.window().start();
    }

    static Progress start(String label, Tally tally, Time time, PrintStream err) {
        Progress p = new Progress(label, tally, time, err);
        p.timer.scheduleAtFixedRate(p::safeTick, 1, 1, TimeUnit.SECONDS);
        return p;
    }

    private void safeTick() {
        try {
            tick();
        } catch (RuntimeException e) {
            err.println("bench: progress line failed: " + e);
        }
    }

    private void tick() {
        long now = time.nanos();
        Window w = tally.window();
        switch (w.phase(now)) {
            case WARMUP -> {
                double s = (now - w.start()) / 1e9;
                err.println(String.format(Locale.ROOT, "bench %s  warmup %4.0f/%.0f s  %,10.0f writes/s", label, s,
                        (w.measureStart() - w.start()) / 1e9, tally.warmupWrites() / Math.max(s, 1e-3)));
            }
            case MEASURE -> {
                long writes = tally.writes();
                double s = (now - w.measureStart()) / 1e9;
                if (s < 0.5) {
                    return; // a tick that lands on the start of the measurement has nothing to say yet
                }
                boolean firstMeasured = lastNanos < w.measureStart();
                double lastS = (now - Math.max(lastNanos, w.measureStart())) / 1e9;
                double recent = (writes - (firstMeasured ? 0 : lastWrites)) / Math.max(lastS, 1e-3);
                err.println(String.format(Locale.ROOT,
                        "bench %s  %4.0f/%.0f s  %,10.0f writes/s  (last 1 s: %,10.0f)  errors %d", label, s,
                        w.seconds(), writes / Math.max(s, 1e-3), recent, tally.errors()));
                lastWrites = writes;
            }
            case OVER -> err.println("bench " + label + "  finishing: waiting for in-flight requests");
        }
        lastNanos = now;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
