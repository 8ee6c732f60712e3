package io.sluice.bench;

import io.sluice.time.Time;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * How {@code sluice bench-sources} ({@link SourcesBench}) times a phase: the processes' clocks read at its ends
 * (this process's CPU and JIT time, the broker's CPU), its applied count followed until it is done, and the two
 * made into the report's line. Used by the run's one thread.
 */
final class PhaseWatch {
    /** How often a phase's progress is read: the resolution of its end time. */
    static final long POLL_MILLIS = 20;
    static final Duration POLL = Duration.ofMillis(POLL_MILLIS);
    /** A phase whose applied count has not moved for this long is over: something is stuck (a held partition). */
    private static final Duration STALL = Duration.ofSeconds(60);

    /** A reading of the processes' clocks: this process's CPU and JIT time, the broker's CPU, the time. */
    record Reading(long nanos, double cpu, double jit, double brokerCpu) {}

    /** Where a followed phase got to: records applied, when it stopped, when the first was applied, and why. */
    record Followed(long applied, long end, long first, String stopped) {}

    private final Time time;
    private final PrintStream progress;
    private final ProcessHandle broker;

    /** {@code broker}: the bench's own broker's process, read beside this one (null: a broker of someone else's). */
    PhaseWatch(Time time, PrintStream progress, ProcessHandle broker) {
        this.time = time;
        this.progress = progress;
        this.broker = broker;
    }

    /**
     * Reads {@code applied} every {@link #POLL} until it reaches {@code total}, {@code over} says the work ended,
     * {@code limit} passes (null: none), or it has not moved for {@link #STALL}; a progress line a second.
     */
    Followed follow(String label, LongSupplier applied, long total, long start, Duration limit,
            BooleanSupplier over) throws InterruptedException {
        long last = 0;
        long lastChange = start;
        long first = Long.MIN_VALUE;
        long nextLine = start + 1_000_000_000L;
        long lastLine = 0;
        while (true) {
            long now = time.nanos();
            long a = applied.getAsLong();
            if (a > 0 && first == Long.MIN_VALUE) {
                first = now;
            }
            if (a != last) {
                last = a;
                lastChange = now;
            }
            if (a >= total) {
                return new Followed(a, now, first, "every record applied");
            }
            if (over.getAsBoolean()) {
                return new Followed(applied.getAsLong(), now, first, "its work ended");
            }
            if (limit != null && now - start >= limit.toNanos()) {
                return new Followed(a, now, first, "its time limit");
            }
            if (now - lastChange >= STALL.toNanos()) {
                return new Followed(a, now, first, "nothing applied for " + STALL.toSeconds() + " s");
            }
            if (now - nextLine >= 0) {
                double s = (now - start) / 1e9;
                progress.printf(Locale.ROOT, "bench-sources %s  %4.0f s  %,12d%s applied  %,10.0f/s  (last 1 s:"
                        + " %,10d)%n", label, s, a, total == Long.MAX_VALUE ? ""
                        : String.format(Locale.ROOT, " / %,d", total), a / s, a - lastLine);
                lastLine = a;
                nextLine += 1_000_000_000L;
            }
            time.sleep(POLL);
        }
    }

    /** A phase's line of the report from its clocks at both ends, printed as a progress line too. */
    SourcesReport.Phase phase(String name, long records, Reading before, Reading after, Followed f,
            boolean complete, Map<String, Long> graph, double rowsPerTx, long retries, String detail) {
        SourcesReport.Phase p = new SourcesReport.Phase(name, records, (after.nanos() - before.nanos()) / 1e9,
                after.cpu() - before.cpu(), after.jit() - before.jit(),
                broker == null ? 0 : after.brokerCpu() - before.brokerCpu(),
                f.first() == Long.MIN_VALUE ? -1 : (f.first() - before.nanos()) / 1e9, complete, graph, rowsPerTx,
                retries, detail);
        progress.printf(Locale.ROOT, "bench-sources %s: %,d records in %.2f s: %,.0f/s, %.1f us of CPU a record%n",
                name, p.records(), p.seconds(), p.perSecond(), p.cpuMicrosPerRecord());
        return p;
    }

    Reading reading() {
        return reading(time.nanos());
    }

    /** The processes' clocks, dated {@code nanos} (the moment the phase's end was seen). */
    Reading reading(long nanos) {
        var jit = ManagementFactory.getCompilationMXBean();
        return new Reading(nanos, cpuSeconds(ProcessHandle.current()),
                jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() / 1e3 : 0,
                broker == null ? 0 : cpuSeconds(broker));
    }

    private static double cpuSeconds(ProcessHandle p) {
        return p.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0);
    }

    void sleepUntil(long nanos) throws InterruptedException {
        long left = nanos - time.nanos();
        if (left > 0) {
            time.sleep(Duration.ofNanos(left));
        }
    }
}
