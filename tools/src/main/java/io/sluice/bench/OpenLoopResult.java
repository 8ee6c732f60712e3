package io.sluice.bench;

import java.util.Locale;

/**
 * One open-loop measurement ({@code --rate}, {@link OpenLoop}): requests due at {@code targetPerS}, each latency
 * from its due time, so the time a request waited for a free connection counts.
 *
 * @param run            the run as a closed-loop one is reported: writes, errors, server figures; its latencies
 *                       (p50, p99) from the due time
 * @param rate           as asked: requests/s, or a percentage of the closed-loop peak
 * @param targetPerS     the arrival rate, requests/s
 * @param windowSeconds  the measured window (async's {@code run.seconds} adds the time to apply its backlog)
 * @param ok             requests due in the window that were answered 2xx
 * @param p999Ms         99.9th percentile latency
 * @param maxMs          the largest latency
 * @param open           how many were sent, late to start, and never sent
 */
public record OpenLoopResult(ModeResult run, Rate rate, double targetPerS, double windowSeconds, long ok,
        double p999Ms, double maxMs, LoadSummary.OpenFigures open) {

    /** Requests answered 2xx per second of the window. */
    public double achievedPerS() {
        return windowSeconds > 0 ? ok / windowSeconds : 0;
    }

    public long sent() {
        return open.sent();
    }

    /** Requests that started more than {@link OpenLoop#LATE} after their due time. */
    public long late() {
        return open.late();
    }

    public double meanStartLagMs() {
        return open.meanStartLagMs();
    }

    /** Requests due in the window that never went out: the window ended while they waited for a connection. */
    public long notSent() {
        return open.notSent();
    }

    /** The row label's suffix: {@code @50% (4123/s)}, or {@code @3000/s}. */
    String suffix() {
        return rate.percent() ? String.format(Locale.ROOT, "@%s (%.0f/s)", rate.label(), targetPerS)
                : "@" + rate.label();
    }
}
