package io.sluice.durable;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A batch's records decoded on a helper thread while the applying thread applies the records before them: reading an
 * application topic's records (JSON, a Debezium envelope of 3 KB with its schema) costs as much CPU as writing them,
 * and on a log applied by one thread the two then take turns on one core (bench-debezium, docs/BENCHMARKS.md).
 *
 * <h2>Design</h2>
 * The records are cut into chunks, each claimed once, by whichever thread gets to it first: the helper walks them in
 * order from the start; the applying thread, taking record {@code i} ({@link #take}), claims its chunk and decodes it
 * itself when the helper has not begun it, and waits only for a chunk the helper is in the middle of (one chunk's
 * decoding: bounded). So a helper that is busy elsewhere, slow, or never runs costs nothing but the overlap, and
 * nothing the applying thread does waits for it beyond one chunk. The results keep the records' order and carry
 * each record's own failure, raised when that record is taken, exactly as decoding it in place would. After a failure
 * {@code stopsHelper} names (an outage: the schema registry is away) the helper stops: what follows is read again on
 * the retry. {@link #close} stops the helper at its next chunk.
 *
 * <p>The decoder must be safe on another thread (it reads the record and immutable state). One instance per
 * {@code RecordApplier.apply} call, taken from by its one applying thread.
 */
final class DecodeAhead<R, T> implements AutoCloseable {
    /** Reads one record; its failure is that record's, raised when it is taken. */
    interface Decoder<R, T> {
        T decode(R record) throws Exception;
    }

    static final int CHUNK = 64;
    private static final int FREE = 0;
    private static final int BUSY = 1;
    private static final int DONE = 2;

    private final Decoder<R, T> records;
    /** A failure after which the helper stops (an outage: what follows is read again on the retry). */
    private final Predicate<Exception> stopsHelper;
    private final List<R> batch;
    private final int from;
    private final Object[] results;
    private final AtomicInteger[] states;
    private final CountDownLatch[] done;
    private volatile boolean closed;

    /** Decodes {@code batch} from index {@code from} ahead, on {@code helper} (which may reject, or never run it). */
    DecodeAhead(Decoder<R, T> records, Predicate<Exception> stopsHelper, List<R> batch, int from, Executor helper) {
        this.records = records;
        this.stopsHelper = stopsHelper;
        this.batch = batch;
        this.from = from;
        int n = Math.max(0, batch.size() - from);
        int chunks = (n + CHUNK - 1) / CHUNK;
        this.results = new Object[n];
        this.states = new AtomicInteger[chunks];
        this.done = new CountDownLatch[chunks];
        for (int c = 0; c < chunks; c++) {
            states[c] = new AtomicInteger(FREE);
            done[c] = new CountDownLatch(1);
        }
        if (chunks > 1) { // one chunk: the applying thread reads it at once, nothing to overlap
            try {
                helper.execute(this::walk);
            } catch (RejectedExecutionException e) {
                // shut down (closing): the applying thread decodes everything itself
            }
        }
    }

    /** The helper's part: every chunk not yet claimed, in order. */
    private void walk() {
        for (int c = 0; c < states.length && !closed; c++) {
            if (states[c].compareAndSet(FREE, BUSY) && !decode(c)) {
                return;
            }
        }
    }

    /** Decodes chunk {@code c} into the results; false when a record was Unavailable (read again later). */
    private boolean decode(int c) {
        boolean available = true;
        try {
            int end = Math.min(results.length, (c + 1) * CHUNK);
            for (int k = c * CHUNK; k < end; k++) {
                try {
                    results[k] = new Decoded<>(records.decode(batch.get(from + k)), null);
                } catch (Exception e) {
                    results[k] = new Decoded<>(null, e);
                    if (stopsHelper.test(e)) {
                        available = false;
                        break; // the rest of the chunk stays unread: taken, it is read in place
                    }
                }
            }
        } finally {
            states[c].set(DONE);
            done[c].countDown();
        }
        return available;
    }

    private record Decoded<T>(T value, Exception failure) {}

    /** Record {@code index} of the batch (at least {@code from}) decoded, or its own failure. */
    @SuppressWarnings("unchecked")
    T take(int index) throws Exception {
        int k = index - from;
        int c = k / CHUNK;
        if (states[c].compareAndSet(FREE, BUSY)) {
            decode(c);
        } else {
            await(done[c]);
        }
        Decoded<T> r = (Decoded<T>) results[k]; // kept: a record that did not fit a batch is taken again
        if (r == null) { // after an outage in its chunk: read it now
            return records.decode(batch.get(index));
        }
        if (r.failure() != null) {
            throw r.failure();
        }
        return r.value();
    }

    private static void await(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // one chunk's decoding: finish waiting, keep the flag for the caller
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
