package io.sluice.apply;

import io.sluice.batch.Batcher;
import io.sluice.batch.Pending;
import io.sluice.time.Time;
import io.sluice.write.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.function.IntFunction;

/**
 * The batched write path's partitions: each a {@link Batcher} (the queue) and an {@link Applier} (its thread).
 * Writes of one key always go to one partition, so they are applied in order; different partitions run
 * concurrently. Owns the applier threads.
 *
 * <p>{@link #close} stops the batchers (nothing new is queued), lets each applier drain its queue for up to the
 * given wait, then answers whatever is still queued with {@link Outcome#SHUTTING_DOWN}: no waiter is left
 * hanging. A batch already being applied completes on its own thread (its futures are completed there).
 *
 * <p>Thread-safe.
 */
public final class Partitions implements AutoCloseable {
    private final List<Batcher> batchers;
    private final List<Applier> appliers;
    private final Duration drain;
    private final Time time;

    private Partitions(List<Batcher> batchers, List<Applier> appliers, Duration drain, Time time) {
        this.batchers = List.copyOf(batchers);
        this.appliers = List.copyOf(appliers);
        this.drain = drain;
        this.time = time;
    }

    /**
     * Starts {@code count} partitions applying through {@code runner}. {@code sizes} gives partition i its
     * adaptive row limit (null for a fixed {@code maxRows}); {@code drain} bounds {@link #close}'s wait.
     */
    public static Partitions start(int count, int maxRows, Duration maxWait, BatchRunner runner,
            IntFunction<BatchSizeController> sizes, ThreadFactory threads, Time time, Duration drain) {
        if (count < 1) {
            throw new IllegalArgumentException("need at least one partition, got " + count);
        }
        List<Batcher> bs = new ArrayList<>();
        List<Applier> as = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                Batcher batcher = new Batcher(maxRows, maxWait, time);
                Applier applier = new Applier(batcher, runner, threads, sizes.apply(i), time);
                bs.add(batcher);
                as.add(applier.start());
            }
        } catch (RuntimeException | Error e) {
            new Partitions(bs, as, Duration.ZERO, time).close();
            throw e;
        }
        return new Partitions(bs, as, drain, time);
    }

    public int count() {
        return batchers.size();
    }

    /** Queues {@code p} on {@code partition}; false once closed (the caller answers it). */
    public boolean enqueue(int partition, Pending p) {
        return batchers.get(partition).enqueue(p);
    }

    /** The adaptive row limit of each partition's applier (for /health and metrics). */
    public List<Integer> batchLimits() {
        return appliers.stream().map(Applier::batchLimit).toList();
    }

    /** Rows queued and not yet taken by an applier, over all partitions. */
    public long queuedRows() {
        return batchers.stream().mapToLong(Batcher::queuedRows).sum();
    }

    /** Stops queueing, drains for up to the configured wait, answers what is left. */
    @Override
    public void close() {
        batchers.forEach(Batcher::close);
        long deadline = time.nanos() + drain.toNanos(); // one wait for all, not one each
        for (Applier a : appliers) {
            a.close(Duration.ofNanos(Math.max(0, deadline - time.nanos())));
        }
        for (Batcher batcher : batchers) {
            for (List<Pending> left = batcher.poll(); !left.isEmpty(); left = batcher.poll()) {
                left.forEach(p -> p.future().complete(Outcome.SHUTTING_DOWN));
            }
        }
    }
}
