package io.sluice.apply;

import java.time.Duration;

/**
 * The adaptive batch size: a limit on rows per transaction that grows while it pays and shrinks when it hurts.
 * After each batch that filled the limit (the limit is what bounds it) and committed under the latency target,
 * the limit grows by a quarter, unless the last growth lowered throughput (rows per second of commit time), in
 * which case it steps back a tenth. A commit slower than the target halves it; so does an error. Always within
 * [min, max]. One per applier. Only its applier thread changes it ({@link #committed}, {@link #failed}); any
 * thread may read {@link #limit()} (/health and the metrics gauges do), which is why the limit is volatile.
 */
public final class BatchSizeController {
    private final int min;
    private final int max;
    private final long targetNanos;
    private volatile int limit;
    private double lastRate;
    private boolean lastWasGrowth;

    public BatchSizeController(int min, int max, Duration target, int initial) {
        if (min < 1 || max < min) {
            throw new IllegalArgumentException("need 1 <= min <= max, got min=" + min + " max=" + max);
        }
        this.min = min;
        this.max = max;
        this.targetNanos = target.toNanos();
        this.limit = Math.clamp(initial, min, max);
    }

    public int limit() {
        return limit;
    }

    /** A batch of {@code rows} committed in {@code nanos}. */
    public void committed(int rows, long nanos) {
        if (nanos > targetNanos) {
            limit = Math.max(min, limit / 2);
            lastWasGrowth = false;
            return;
        }
        if (rows < limit * 9 / 10) {
            return; // the limit did not bind: load, not the limit, decided this batch's size
        }
        double rate = rows / (double) Math.max(1, nanos);
        if (lastWasGrowth && rate < lastRate * 0.95) {
            limit = Math.max(min, limit - Math.max(1, limit / 10));
            lastWasGrowth = false;
        } else {
            limit = Math.min(max, limit + Math.max(1, limit / 4));
            lastWasGrowth = true;
        }
        lastRate = rate;
    }

    /** A batch failed (transient error after retries, or it had to be bisected). */
    public void failed() {
        limit = Math.max(min, limit / 2);
        lastWasGrowth = false;
    }
}
