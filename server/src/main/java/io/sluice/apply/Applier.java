package io.sluice.apply;

import io.sluice.batch.Batcher;
import io.sluice.batch.Pending;
import io.sluice.time.Time;
import io.sluice.write.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The applier thread: takes batches from the {@link Batcher} and applies them with a {@link BatchRunner}, one
 * after another, until the batcher is closed and drained. Owns its thread, started by {@link #start()} and
 * stopped by {@link #close()}, which waits (bounded) for the queue to drain.
 */
public final class Applier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Applier.class);

    private final Batcher batcher;
    private final BatchRunner runner;
    private final BatchSizeController sizes;
    private final Time time;
    private final Thread thread;

    /** {@code sizes} null: a fixed row limit. */
    public Applier(Batcher batcher, BatchRunner runner, ThreadFactory threads, BatchSizeController sizes,
            Time time) {
        this.batcher = batcher;
        this.runner = runner;
        this.sizes = sizes;
        this.time = time;
        this.thread = threads.newThread(this::loop);
        if (sizes != null) {
            batcher.setMaxRows(sizes.limit());
        }
    }

    public Applier start() {
        thread.start();
        return this;
    }

    private void loop() {
        while (true) {
            List<Pending> batch;
            try {
                batch = batcher.take(Duration.ofSeconds(1));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (batch.isEmpty()) {
                if (batcher.isDrained()) {
                    return;
                }
                continue;
            }
            try {
                long t0 = time.nanos();
                runner.apply(batch);
                adapt(batch, time.nanos() - t0);
            } catch (RuntimeException | Error e) {
                // futures are already failed by the runner; keep the thread alive for the next batch
                log.error("applier: unexpected failure", e);
            }
        }
    }

    private void adapt(List<Pending> batch, long nanos) {
        if (sizes == null) {
            return;
        }
        int rows = 0;
        boolean failed = false;
        for (Pending p : batch) {
            rows += p.rows();
            // a transient failure (deadlock, timeout) is a batch-size signal; a client's bad write is not
            // (a request set aside for a lock is not done yet: it says nothing of the batch's size)
            failed |= p.future().getNow(null) instanceof Outcome.Failed f && f.error().isTransient();
        }
        if (failed) {
            sizes.failed();
        } else {
            sizes.committed(rows, nanos);
        }
        batcher.setMaxRows(sizes.limit());
    }

    public int batchLimit() {
        return batcher.maxRows();
    }

    /**
     * Closes the batcher (what is queued is still applied) and waits up to {@code wait} for the thread. A thread
     * still busy then is left to finish its batch and exit on its own: it is never interrupted, because an
     * interrupt inside Neo4j's file I/O closes its channels. (Neo4j's shutdown, which comes later, ends a
     * transaction that is still stuck, and the runner then answers its requests.)
     */
    public void close(Duration wait) {
        batcher.close();
        try {
            thread.join(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("applier {} did not drain in {}; its batch in flight is left to finish", thread.getName(), wait);
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
