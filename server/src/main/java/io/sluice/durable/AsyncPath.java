package io.sluice.durable;

import io.sluice.batch.Admission;
import io.sluice.journal.Journal;
import io.sluice.journal.JournalDirectory;
import io.sluice.journal.JournalOptions;
import io.sluice.journal.JournalRecord;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.write.Outcome;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code mode=async}: a write is appended to the journal and acknowledged (202 with its offset) once the
 * journal is fsynced; the {@link JournalApplier} applies it later, exactly once. Bounded by the lag (unapplied
 * rows and bytes): at the bound a write waits up to the admission timeout, then gets 503.
 * Owns the journal, the dead-letter journal and the applier thread. Thread-safe.
 */
public final class AsyncPath implements AsyncJournal {
    private static final Logger log = LoggerFactory.getLogger(AsyncPath.class);

    /** Limits and places. */
    public record Options(Path journalDir, Path deadLetterDir, long maxLagRows, long maxLagBytes, long segmentBytes,
            Duration admissionTimeout) {}

    /**
     * The log's name in the graph's positions ({@link GraphPositions}): {@code journal:<id>}, the journal
     * directory's own id ({@link Journal#id()}), so that two sluice instances with local journals on one Neo4j keep two
     * positions (one shared position would fence each instance's batches with the other's, and its resync would
     * jump past its own records).
     */
    static final String SOURCE_PREFIX = "journal:";

    private final Journal journal;
    private final DeadLetters deadLetters;
    private final Admission lag;
    private final AppliedWatermark watermark;
    private final JournalApplier applier;
    private final Options options;

    private AsyncPath(Journal journal, DeadLetters deadLetters, Admission lag, AppliedWatermark watermark,
            JournalApplier applier, Options options) {
        this.journal = journal;
        this.deadLetters = deadLetters;
        this.lag = lag;
        this.watermark = watermark;
        this.applier = applier;
        this.options = options;
    }

    /**
     * Opens the journal and starts applying it from the graph's position. {@code appliers} gives the apply loop its
     * batch runner and row limits over the applier's clock; {@code threads} names the applier's thread.
     */
    public static AsyncPath start(Options o, Sink sink, Map<String, Template> templates, Time time,
            ThreadFactory threads, RecordApplier.Parts appliers) throws IOException, GraphException {
        // the directory's lock first: a second process on this journal stops here, before it touches the graph
        Journal journal = JournalDirectory.open(o.journalDir(),
                JournalOptions.defaults().withMaxSegmentBytes(o.segmentBytes()));
        try {
            GraphPositions positions = new GraphPositions(sink, SOURCE_PREFIX + journal.id(),
                    GraphPositions.Legacy.LOCAL_JOURNAL);
            positions.createSchema(time);
            // locked: a transaction of a previous sluice process that was killed while committing over Bolt may
            // still be in flight on the server; its outcome decides where replay starts
            long stored = positions.readLocked(JournalApplier.PARTITION);
            if (journal.nextOffset() < stored) {
                throw new IOException("the journal in " + o.journalDir() + " ends at offset " + journal.nextOffset()
                        + " but the graph records offsets up to " + (stored - 1) + " as applied: the journal was"
                        + " removed or replaced. Restore it, or start from an empty journal and delete the graph's"
                        + " (:SluicePosition {source: 'journal:<this journal's id>'}) node, and an earlier version's"
                        + " (:SluiceOffset) node"
                        + " if there is one, if you know what was applied.");
            }
            long next = Math.max(stored, journal.firstOffset());
            if (next > stored) {
                // retention deleted what the graph has not seen applied (the database was replaced, or restored
                // from an older backup): those records are gone; the position moves to the journal's first one,
                // which the fence then expects
                log.warn("journal: the graph's position ({}) is before the journal's first record ({}): records {}"
                        + " to {} were deleted by retention and are not applied here", stored, next, stored, next - 1);
                positions.advanceAlone(JournalApplier.PARTITION, stored, next);
            }
            Admission lag = new Admission(o.maxLagRows(), o.maxLagBytes(), time);
            long backlog = countBacklog(journal, next, templates, lag);
            if (backlog > 0) {
                log.info("journal: {} records to replay from offset {}", backlog, next);
            }
            DeadLetters dead = new DeadLetters(JournalDirectory.open(o.deadLetterDir(), JournalOptions.defaults()), time);
            AppliedWatermark watermark = new AppliedWatermark(next - 1);
            JournalApplier applier = new JournalApplier(journal, dead, positions, templates, watermark, lag, time,
                    next, threads, appliers);
            return new AsyncPath(journal, dead, lag, watermark, applier.start(), o);
        } catch (IOException | GraphException | RuntimeException e) {
            journal.close();
            throw e;
        }
    }

    private static long countBacklog(Journal journal, long next, Map<String, Template> templates, Admission lag)
            throws IOException {
        long n = 0;
        for (long o = next; o < journal.durableOffset(); ) {
            List<JournalRecord> rs = journal.read(o, 10_000, 64L << 20);
            if (rs.isEmpty()) {
                break;
            }
            for (JournalRecord r : rs) {
                int rows;
                try {
                    rows = RecordCodec.decode(r.payload(), templates).rows();
                } catch (RecordCodec.Undecodable e) {
                    rows = 0;
                }
                lag.forceAcquire(rows, r.payload().length);
                o = r.offset() + 1;
                n++;
            }
        }
        return n;
    }

    /** Journals the request; returns once it is fsynced (Accepted), or Overloaded at the lag bound. */
    public Outcome submit(WriteRequest r) {
        byte[] payload = RecordCodec.encode(r);
        Admission.Result admit;
        try {
            admit = lag.acquire(r.rows(), payload.length, options.admissionTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.SHUTTING_DOWN;
        }
        switch (admit) {
            case FULL -> {
                return new Outcome.Overloaded("the journal's unapplied backlog is at its bound (" + options.maxLagRows()
                        + " rows / " + options.maxLagBytes() + " bytes); waited " + options.admissionTimeout(),
                        Duration.ofSeconds(Admission.retryAfterSeconds(options.admissionTimeout())));
            }
            case CLOSED -> {
                return Outcome.SHUTTING_DOWN;
            }
            case ADMITTED -> { }
        }
        return journaled(r, payload).join(); // never completes exceptionally
    }

    /**
     * Journals the request without blocking: admitted only if the lag has room at once (else null, and the
     * caller waits in {@link #submit}); the future completes on the journal's syncer thread once the record is
     * fsynced. Saves the thread per write that {@code submit} blocks (docs/BENCHMARKS.md, "Close to the limit").
     */
    @Override
    public CompletableFuture<Outcome> submitNow(WriteRequest r) {
        byte[] payload = RecordCodec.encode(r);
        switch (lag.tryAcquire(r.rows(), payload.length)) {
            case FULL -> {
                return null;
            }
            case CLOSED -> {
                return CompletableFuture.completedFuture(Outcome.SHUTTING_DOWN);
            }
            case ADMITTED -> { }
        }
        return journaled(r, payload);
    }

    /**
     * Appends an admitted request's record; the outcome once it is fsynced (Accepted: the commit point), or Failed
     * with its lag given back. Completes on the journal's syncer thread, never exceptionally.
     */
    private CompletableFuture<Outcome> journaled(WriteRequest r, byte[] payload) {
        CompletableFuture<Long> durable;
        try {
            durable = journal.appendAsync(payload);
        } catch (RuntimeException e) {
            durable = CompletableFuture.failedFuture(e);
        }
        return durable.handle((offset, e) -> {
            if (e == null) {
                return new Outcome.Accepted(offset, r.rows());
            }
            lag.release(r.rows(), payload.length);
            Throwable cause = e instanceof CompletionException && e.getCause() != null
                    ? e.getCause() : e;
            log.error("journal append failed", cause);
            return notDurable(cause);
        });
    }

    private static Outcome notDurable(Throwable cause) {
        return new Outcome.Failed(new Neo4jError(Neo4jStatus.Sluice.STORAGE_DAMAGE_DETECTED,
                "the journal could not make the write durable: " + cause.getMessage() + "; it was not accepted"));
    }

    /** Waits up to {@code wait} for {@code offset} to be applied (committed or dead-lettered). */
    public boolean awaitApplied(long offset, Duration wait) throws InterruptedException {
        return watermark.await(offset, wait);
    }

    @Override
    public boolean awaitApplied(int partition, long offset, Duration wait) throws InterruptedException {
        return awaitApplied(offset, wait);
    }

    public long appliedOffset() {
        return watermark.get();
    }

    @Override
    public long appliedOffset(int partition) {
        return appliedOffset();
    }

    @Override
    public Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("journal", "local");
        d.put("journal_next_offset", nextOffset());
        d.put("journal_applied_offset", appliedOffset());
        d.put("journal_lag_rows", lagRows());
        d.put("journal_batch_limit_rows", batchLimit());
        d.put("journal_lag_bytes", lagBytes());
        return d;
    }

    public long nextOffset() {
        return journal.nextOffset();
    }

    public int batchLimit() {
        return applier.limit();
    }

    /** The journal applier's transient retries, per Neo4j status code. */
    @Override
    public Map<String, Long> transientRetries() {
        return applier.transientRetries();
    }

    public long lagRows() {
        return lag.pendingRows();
    }

    public long lagBytes() {
        return lag.pendingBytes();
    }

    public long deadLetterCount() {
        return deadLetters.count();
    }

    public List<Map<String, Object>> deadLetters(long from, int limit) throws IOException {
        return deadLetters.list(from, limit);
    }

    /** Refuses new writes from now on (and wakes those waiting at the lag bound); the applier goes on. */
    public void stopAccepting() {
        lag.close();
    }

    /** Refuses new writes, stops the applier after its batch in flight, closes the journals. */
    @Override
    public void close() {
        lag.close();
        applier.close();
        try {
            journal.close();
            deadLetters.close();
        } catch (IOException e) {
            log.warn("closing the journal: {}", e.getMessage());
        }
    }
}
