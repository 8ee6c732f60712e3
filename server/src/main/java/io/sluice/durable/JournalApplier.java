package io.sluice.durable;

import io.sluice.batch.Admission;
import io.sluice.journal.Journal;
import io.sluice.journal.JournalRecord;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the local journal, in order, exactly once: one thread reads durable records from the graph's position on
 * and hands them to the {@link RecordApplier} (whose note says how exactly once is kept), as partition 0 of the log
 * {@code journal}. When a batch was not applied, or anything failed, it re-reads the position from the graph (the
 * graph is the truth: some halves of a bisected batch may have committed, and a commit whose connection to a remote
 * Neo4j was lost may or may not have), releases the lag of what was committed meanwhile, and goes on from there.
 * Fully applied segments are deleted (retention). A record may be dead-lettered twice (a crash between the dead
 * letter's fsync and the next position commit); {@link DeadLetters} drops the repeat.
 *
 * <p>Owns its thread; {@link #close} sets a flag and waits (bounded) for the batch in flight; the thread is never
 * interrupted, because an interrupt inside Neo4j's file I/O closes its channels.
 */
final class JournalApplier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JournalApplier.class);
    private static final Duration POLL = Duration.ofMillis(200);
    /** How promptly a sleep notices {@link #close}. */
    private static final Duration STEP = Duration.ofMillis(10);
    /** How long the applier pauses after a batch that was not applied, before it re-reads its position. */
    private static final Duration PAUSE = Duration.ofMillis(500);
    static final int PARTITION = 0;

    private final Journal journal;
    private final DeadLetters deadLetters;
    private final GraphPositions positions;
    private final Map<String, Template> templates;
    private final AppliedWatermark watermark;
    private final Admission lag;
    private final Time time;
    private final RecordApplier<JournalRecord> applier;
    private final Thread thread;
    private volatile boolean stopping;
    private long next;
    /** The journal's end at start while records from before it are still to apply (then logged once), else -1. */
    private long replayUntil;
    private final long startedAt;

    /**
     * {@code appliers}: the apply loop's runner and row limits, made over this applier's clock, whose sleeps (the
     * runner's backoffs, the pause after a failure) end early when {@link #close} is called; {@code next}: where the
     * graph says to start.
     */
    JournalApplier(Journal journal, DeadLetters deadLetters, GraphPositions positions, Map<String, Template> templates,
            AppliedWatermark watermark, Admission lag, Time time, long next, ThreadFactory threads,
            RecordApplier.Parts appliers) {
        this.journal = journal;
        this.deadLetters = deadLetters;
        this.positions = positions;
        this.templates = templates;
        this.watermark = watermark;
        this.lag = lag;
        this.time = time.stoppedBy(() -> stopping, STEP);
        this.applier = appliers.over(new Records(templates), positions, this::deadLetter,
                (partition, to, rows, bytes) -> { // on this applier's thread, as each batch commits
                    this.next = Math.max(this.next, to); // a resync after a failure later in the call starts here
                    watermark.advanceTo(to - 1);
                    lag.release(rows, bytes);
                }, this.time);
        this.next = next;
        this.replayUntil = next < journal.nextOffset() ? journal.nextOffset() : -1;
        this.startedAt = this.time.nanos();
        this.thread = threads.newThread(this::loop);
    }

    /** The local journal's records as the apply loop reads them. */
    record Records(Map<String, Template> templates) implements RecordApplier.Records<JournalRecord> {
        @Override
        public long offset(JournalRecord r) {
            return r.offset();
        }

        @Override
        public long bytes(JournalRecord r) {
            return r.payload().length;
        }

        @Override
        public WriteRequest decode(JournalRecord r) throws RecordCodec.Undecodable {
            return RecordCodec.decode(r.payload(), templates);
        }
    }

    private boolean deadLetter(int partition, JournalRecord r, Neo4jError error) {
        try {
            deadLetters.add(r.offset(), error, r.payload());
            return true;
        } catch (IOException e) {
            // cannot record it: stop here rather than move past an unrecorded failure
            throw new UncheckedIOException("cannot write the dead letter of offset " + r.offset(), e);
        }
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
                    failures = 0;
                    replayed();
                }
                if (!journal.awaitDurable(next, POLL)) {
                    continue;
                }
                List<JournalRecord> records = journal.read(next, applier.limit(PARTITION), 64L << 20);
                if (records.isEmpty()) {
                    continue;
                }
                RecordApplier.Result r = applier.apply(PARTITION, next, records, () -> stopping);
                next = Math.max(next, r.next());
                if (r.resync()) {
                    resync = true;
                    time.sleep(PAUSE);
                    continue;
                }
                journal.deleteBefore(next); // retention: whole segments that are fully applied
                replayed();
            } catch (InterruptedException e) {
                return;
            } catch (IOException | GraphException | RuntimeException e) {
                if (stopping) {
                    return;
                }
                failures++;
                if (e instanceof GraphException se && se.isTransient()) {
                    if (failures == 1 || failures % 20 == 0) { // once, then every ~10 s while the database is away
                        log.warn("journal applier: {} (attempt {}; resuming from the position stored in the graph)",
                                e.getMessage(), failures);
                    }
                } else {
                    log.error("journal applier: {} (resuming from the position stored in the graph)", e.getMessage(), e);
                }
                resync = true;
                try {
                    time.sleep(PAUSE);
                } catch (InterruptedException stopped) {
                    return;
                }
            }
        }
    }

    /**
     * Re-reads the position from the graph; releases the lag of records committed since {@code next}. The read
     * waits for a commit still in flight ({@link GraphPositions#readLocked}): after a lost connection the graph, not
     * memory, says whether the last batch committed.
     */
    private void resync() throws GraphException, IOException {
        long stored = positions.readLocked(PARTITION);
        if (stored < next) {
            // behind what this process committed (it alone applies this journal: the directory lock): the node was
            // deleted or reset under it; put it back where the commits left it, which the fence then expects
            log.warn("journal: the graph's position ({}) is behind what was applied ({}): it was deleted or reset;"
                    + " setting it back", stored, next);
            positions.advanceAlone(PARTITION, stored, next);
            stored = next;
        }
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

    Map<String, Long> transientRetries() {
        return applier.transientRetries();
    }

    /** The row limit per transaction now. */
    int limit() {
        return applier.limit(PARTITION);
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
