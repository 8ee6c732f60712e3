package io.sluice.bench;

import io.sluice.time.Time;

/**
 * The time line of one mode's run, in {@link Time} nanoseconds: warm-up from {@code start}
 * to {@code measureStart}, measurement from there to {@code end}. A request counts when it completes inside
 * the measurement; one still running at {@code end} does not count at all.
 */
record Window(long start, long measureStart, long end) {
    Window {
        if (!(start <= measureStart && measureStart < end)) {
            throw new IllegalArgumentException("bad window: " + start + " <= " + measureStart + " < " + end);
        }
    }

    static Window of(long now, long warmupNanos, long durationNanos) {
        return new Window(now, now + warmupNanos, now + warmupNanos + durationNanos);
    }

    enum Phase { WARMUP, MEASURE, OVER }

    Phase phase(long t) {
        return t < measureStart ? Phase.WARMUP : t < end ? Phase.MEASURE : Phase.OVER;
    }

    double seconds() {
        return (end - measureStart) / 1e9;
    }
}
