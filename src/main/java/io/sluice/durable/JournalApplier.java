package io.sluice.durable;

import io.sluice.apply.BatchRunner;
import io.sluice.apply.BatchSizeController;
import io.sluice.batch.Admission;
import io.sluice.batch.Pending;
import io.sluice.time.Time;
import io.sluice.journal.Journal;
import io.sluice.journal.JournalRecord;
import io.sluice.sink.Neo4jError;
import io.sluice.sink.Sink;
import io.sluice.sink.SinkException;
import io.sluice.write.Outcome;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the journal, in order, exactly once.
 *
 * <h2>Design</h2>
 * One thread reads durable records from {@code next} (one past the offset stored in the graph), decodes them,
 * and applies them in batches of up to {@code maxRows} rows through the same {@link BatchRunner} as sync
 * writes (coalescing, bisection). Exactly once rests on three rules:
 * <ol>
 *   <li>every transaction that commits records also writes the highest offset among them on the offset node
 *       ({@link OffsetStore}), so the graph and the offset commit together;</li>
 *   <li>transient errors are retried without limit (the record is durable; giving up would either lose it or
 *       let a later record's offset skip it), so what is committed is always a prefix of the journal, minus
 *       dead letters;</li>
 *   <li>a record found bad is dead-lettered (fsynced) before anything after it is applied; if the batch's last
 *       record was bad, the offset is advanced in a transaction of its own.</li>
 * </ol>
 * After a crash, replay starts after the stored offset: committed records are skipped, everything else is
 * applied once. A record may be dead-lettered twice (crash between the dead-letter fsync and the next offset
 * commit); {@link DeadLetters} drops the repeat.
 *
 * <p>After any failure the applier re-reads its position from the offset node (the graph is the truth: some
 * halves of a bisected batch may have committed, and a commit whose connection to a remote Neo4j was lost
 * may or may not have), and releases the lag of what was committed meanwhile.
 *
 * <p>Owns its thread; {@link #close} sets a flag and waits (bounded) for the batch in flight; the thread is
 * never interrupted, because an interrupt inside Neo4j's file I/O closes its channels.
 */
final class JournalApplier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JournalApplier.class);
    private static final Duration POLL = Duration.ofMillis(200);
    /** How promptly a sleep notices {@link #close}. */
    private static final Duration STEP = Duration.ofMillis(10);

    private final Journal journal;
    private final DeadLetters deadLetters;
    private final OffsetStore offsets;
    private final BatchRunner runner;
    private final Map<String, Template> templates;
    private final AppliedWatermark watermark;
    private final Admission lag;
    private final Time time;
    private final int maxRows;
    private final BatchSizeController sizes;
    private final Thread thread;
    private volatile boolean stopping;
    private long next;
    /** The journal's end at start while records from before it are still to apply (then logged once), else -1. */
    private long replayUntil;
    private final long startedAt;

    /**
     * {@code runners} builds the batch runner from this applier's clock, whose sleeps (the runner's backoffs,
     * the pause after a failure) end early when {@link #close} is called.
     */
    JournalApplier(Journal journal, DeadLetters deadLetters, OffsetStore offsets, Map<String, Template> templates,
            AppliedWatermark watermark, Admission lag, Time time, int maxRows, BatchSizeController sizes, long next,
            ThreadFactory threads, Function<Time, BatchRunner> runners) {
        this.sizes = sizes;
        this.journal = journal;
        this.deadLetters = deadLetters;
        this.offsets = offsets;
        this.templates = templates;
        this.watermark = watermark;
        this.lag = lag;
        this.time = time.stoppedBy(() -> stopping, STEP);
        this.runner = runners.apply(this.time);
        this.maxRows = maxRows;
        this.next = next;
        this.replayUntil = next < journal.nextOffset() ? journal.nextOffset() : -1;
        this.startedAt = this.time.nanos();
        this.thread = threads.newThread(this::loop);
    }

    JournalApplier start() {
        thread.start();
        return this;
    }

    private void loop() {
        boolean resync = false;
        int failures = 0;
        while (!stopping) {
            try {
                if (resync) {
                    resync();
                    resync = false;
                    replayed();
                }
                if (!journal.awaitDurable(next, POLL)) {
                    continue;
                }
                List<JournalRecord> records = journal.read(next, limit(), 64L << 20);
                if (!records.isEmpty()) {
                    applyRecords(records);
                    journal.deleteBefore(next); // retention: whole segments that are fully applied
                    replayed();
                }
            } catch (InterruptedException e) {
                return;
            } catch (IOException | SinkException | RuntimeException e) {
                if (stopping) {
                    return;
                }
                failures = resync ? failures + 1 : 1;
                if (e instanceof SinkException se && se.isTransient()) {
                    if (failures == 1 || failures % 20 == 0) { // once, then every ~10 s while the database is away
                        log.warn("journal applier: {} (attempt {}; resuming from the offset stored in the graph)",
                                e.getMessage(), failures);
                    }
                } else {
                    log.error("journal applier: {} (resuming from the offset stored in the graph)", e.getMessage(), e);
                }
                resync = true;
                try {
                    time.sleep(Duration.ofMillis(500));
                } catch (InterruptedException stopped) {
                    return;
                }
            }
        }
    }

    /**
     * Re-reads the position from the graph; releases the lag of records committed since {@code next}. The
     * read waits for a commit still in flight (see {@link OffsetStore#readLocked}): after a lost connection
     * the graph, not memory, says whether the last batch committed.
     */
    private void resync() throws SinkException, IOException {
        long stored = offsets.readLocked() + 1;
        for (long o = next; o < stored; ) {
            List<JournalRecord> rs = journal.read(o, (int) Math.min(10_000, stored - o), 64L << 20);
            if (rs.isEmpty()) {
                break;
            }
            for (JournalRecord r : rs) {
                if (r.offset() < stored) {
                    lag.release(rowsOf(r), r.payload().length);
                }
                o = r.offset() + 1;
            }
        }
        next = Math.max(next, stored);
        watermark.advanceTo(next - 1);
    }

    int rowsOf(JournalRecord r) {
        try {
            return RecordCodec.decode(r.payload(), templates).rows();
        } catch (RecordCodec.Undecodable e) {
            return 0;
        }
    }

    /** Logs once when the records journaled before this start are applied (AsyncPath logged how many). */
    private void replayed() {
        if (replayUntil >= 0 && next >= replayUntil) {
            log.info("journal: replay done, offsets up to {} applied in {} ms; {} dead letters in all", replayUntil - 1,
                    (time.nanos() - startedAt) / 1_000_000, deadLetters.count());
            replayUntil = -1;
        }
    }

    private void applyRecords(List<JournalRecord> records) throws IOException, SinkException, InterruptedException {
        List<Pending> batch = new ArrayList<>();
        Map<Pending, JournalRecord> source = new IdentityHashMap<>();
        long rows = 0;
        long last = next - 1;
        for (JournalRecord r : records) {
            WriteRequest request;
            try {
                request = RecordCodec.decode(r.payload(), templates);
            } catch (RecordCodec.Undecodable e) {
                flush(batch, source);
                batch.clear();
                rows = 0;
                deadLetters.add(r.offset(), Neo4jError.invalidFormat("offset " + r.offset() + ": " + e.getMessage()), r.payload());
                offsets.writeAlone(r.offset());
                done(r.offset(), 0, r.payload().length);
                next = r.offset() + 1;
                continue;
            }
            if (!batch.isEmpty() && rows + request.rows() > limit()) {
                break;
            }
            Pending p = new Pending(request, time.nanos(), r.offset());
            batch.add(p);
            source.put(p, r);
            rows += request.rows();
            last = r.offset();
        }
        flush(batch, source);
        next = Math.max(next, last + 1);
    }

    private void flush(List<Pending> batch, Map<Pending, JournalRecord> source) throws SinkException, InterruptedException {
        if (batch.isEmpty()) {
            return;
        }
        long t0 = time.nanos();
        runner.apply(batch, new BatchRunner.Hooks() {
            @Override
            public void inTransaction(Sink.SinkTx tx, List<Pending> group) throws SinkException {
                offsets.write(tx, group.getLast().offset());
            }

            @Override
            public boolean keepsResults() {
                return false;
            }

            @Override
            public void isolated(Pending p, Neo4jError error) {
                try {
                    deadLetters.add(p.offset(), error, source.get(p).payload());
                } catch (IOException e) {
                    // cannot record it: stop here rather than move past an unrecorded failure
                    throw new java.io.UncheckedIOException("cannot write dead letter for offset " + p.offset(), e);
                }
            }
        });
        Pending last = batch.getLast();
        if (last.future().isDone() && last.future().join() instanceof Outcome.Failed f && f.error().isTransient()) {
            // interrupted, or the connection was lost while committing: the graph says what was applied
            throw new IllegalStateException("batch up to offset " + last.offset() + " not applied: " + f.error().message());
        }
        if (!(last.future().join() instanceof Outcome.Committed)) {
            offsets.writeAlone(last.offset());
        }
        long rows = 0;
        long bytes = 0;
        for (Pending p : batch) {
            rows += p.rows();
            bytes += source.get(p).payload().length;
        }
        if (sizes != null) {
            sizes.committed((int) Math.min(Integer.MAX_VALUE, rows), time.nanos() - t0);
        }
        done(last.offset(), rows, bytes);
        next = last.offset() + 1;
    }

    private void done(long offset, long rows, long bytes) {
        watermark.advanceTo(offset);
        lag.release(rows, bytes);
    }

    Map<String, Long> transientRetries() {
        return runner.transientRetries();
    }

    /** The row limit per transaction: adaptive when a controller is given, else the configured maximum. */
    int limit() {
        return sizes == null ? maxRows : sizes.limit();
    }

    @Override
    public void close() {
        stopping = true;
        try {
            thread.join(Duration.ofSeconds(30).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
