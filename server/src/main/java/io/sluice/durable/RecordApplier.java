package io.sluice.durable;

import io.sluice.apply.BatchRunner;
import io.sluice.apply.BatchSizeController;
import io.sluice.batch.Pending;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.write.Outcome;
import io.sluice.write.WriteRequest;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one apply loop for journaled records, whatever the log (the local journal, a Kafka partition, an
 * application's topic): records of one partition, in offset order, applied in batches exactly once.
 *
 * <h2>Design</h2>
 * Records are decoded ({@link Records#decode}) and gathered into a batch up to the partition's row limit (adaptive,
 * one {@link BatchSizeController} per partition), then applied through the same {@link BatchRunner} as sync writes
 * (coalescing, lock order, bisection, transient retries). Exactly once rests on three rules:
 * <ol>
 *   <li>every transaction that commits records also moves the partition's position past them
 *       ({@link GraphPositions#advance}, fenced: it expects the position the batch started from, moved by each
 *       earlier group of the batch that committed), so the graph and the position commit together;</li>
 *   <li>a record that fails alone (after bisection), or cannot be decoded, is dead-lettered
 *       ({@link DeadLetters#deadLetter}, durable when it returns) before anything after it is applied; if a
 *       batch's last records were dead-lettered, the position moves past them in a transaction of its own;</li>
 *   <li>a batch that was not applied (a transient error after the runner's retries, a lost connection while
 *       committing, the fence) is not skipped: {@link #apply} stops there and says so ({@link Result#resync}), and
 *       its caller re-reads the position from the graph ({@link GraphPositions#readLocked}, which waits for a
 *       commit still in flight) and starts again from there. So is the batch up to a record that cannot be read
 *       now for a reason outside it ({@link Unavailable}: the schema registry its format reads is down): what
 *       came before that record is applied, the record and what follows are not.</li>
 * </ol>
 * Confined to its caller's thread (one applier thread per log); {@link #limit} may be read from any thread.
 */
public final class RecordApplier<R> {
    private static final Logger log = LoggerFactory.getLogger(RecordApplier.class);

    /** What the loop needs of a log's records. */
    public interface Records<R> {
        long offset(R record);

        /** Its bytes, for the backlog's bound. */
        long bytes(R record);

        /**
         * The write it carries; throws {@link RecordCodec.Undecodable} when it carries none (dead-lettered with the
         * reason), {@link Unavailable} when it cannot be read now for a reason outside it (retried, never
         * dead-lettered).
         */
        WriteRequest decode(R record) throws RecordCodec.Undecodable, Unavailable;

        /**
         * More of the log's own state, written in the transaction of a group of records after the partition's
         * position, {@code last} the group's last record (a Debezium stream's source positions): commits or rolls
         * back with them. Nothing by default.
         */
        default void inTransaction(Sink.SinkTx tx, R last) throws GraphException {}
    }

    /**
     * A record that cannot be read now for a reason outside it, an outage rather than bad data (the schema registry
     * its format reads is unreachable): the batch stops before it, what came before it is applied, and
     * {@link #apply} asks for a resync ({@link Result#resync}), so the caller retries from the graph's position with
     * its backoff, as for a batch Neo4j did not take. Never dead-lettered, never skipped.
     */
    public static final class Unavailable extends Exception {
        private static final long serialVersionUID = 1L;

        public Unavailable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Where records that failed go: returns true once the dead letter is durable (the partition moves past it),
     * false to hold the partition at it (no dead letters wanted, or too many of late): nothing after it is applied
     * and {@link #apply} asks for a resync.
     */
    public interface DeadLetters<R> {
        boolean deadLetter(int partition, R record, Neo4jError error);
    }

    /** Hears a partition's progress: it is applied up to {@code next} - 1, {@code rows} and {@code bytes} more. */
    public interface Progress {
        void applied(int partition, long next, long rows, long bytes);
    }

    /**
     * What every log's applier gets from the one place that builds the write path: its batch runner, made over the
     * applier's own clock (so its backoffs end at close), and its row limits ({@code sizes} makes a partition's
     * adaptive limit; null: {@code maxRows}, fixed).
     */
    public record Parts(Function<Time, BatchRunner> runners, Supplier<BatchSizeController> sizes, int maxRows) {
        /** An applier of {@code records}, its runner and sleeps on {@code time}. */
        public <R> RecordApplier<R> over(Records<R> records, GraphPositions positions, DeadLetters<R> deadLetters,
                Progress progress, Time time) {
            return new RecordApplier<>(records, positions, runners.apply(time), deadLetters, progress, time, sizes,
                    maxRows, false);
        }

        /**
         * The same for an application's topic: a batch's records run in offset order across templates (see
         * {@link BatchRunner.Hooks#inOrder}), not grouped by template as front ends' journaled writes are.
         */
        public <R> RecordApplier<R> inOrder(Records<R> records, GraphPositions positions, DeadLetters<R> deadLetters,
                Progress progress, Time time) {
            return new RecordApplier<>(records, positions, runners.apply(time), deadLetters, progress, time, sizes,
                    maxRows, true);
        }

        /**
         * The same, its records decoded ahead on {@code decoder} (a thread of the caller's own) while the batch
         * before them applies ({@link DecodeAhead}): {@code records.decode} must be safe on that thread.
         */
        public <R> RecordApplier<R> inOrder(Records<R> records, GraphPositions positions, DeadLetters<R> deadLetters,
                Progress progress, Time time, Executor decoder) {
            return new RecordApplier<>(records, positions, runners.apply(time), deadLetters, progress, time, sizes,
                    maxRows, true).decodingAhead(decoder);
        }
    }

    /**
     * Where a call to {@link #apply} left the partition (everything before {@code next} is applied and was reported
     * to {@link Progress}), and whether its position must be re-read from the graph.
     */
    public record Result(long next, boolean resync, String why) {
        public Result(long next, boolean resync) {
            this(next, resync, null);
        }
    }

    private final Records<R> records;
    private final GraphPositions positions;
    private final BatchRunner runner;
    private final DeadLetters<R> deadLetters;
    private final Progress progress;
    private final Time time;
    private final Supplier<BatchSizeController> sizes;
    private final int maxRows;
    private final boolean inOrder;
    private final Map<Integer, BatchSizeController> limits = new ConcurrentHashMap<>();
    /** Where a batch's records are decoded ahead of the loop; null: each in place. */
    private Executor decoder;

    /**
     * {@code sizes} makes each partition's adaptive row limit (null: {@code maxRows}, fixed); {@code time} measures
     * commits (its sleeps, the runner's backoffs, should end at the owner's close).
     */
    public RecordApplier(Records<R> records, GraphPositions positions, BatchRunner runner, DeadLetters<R> deadLetters,
            Progress progress, Time time, Supplier<BatchSizeController> sizes, int maxRows, boolean inOrder) {
        this.records = records;
        this.positions = positions;
        this.runner = runner;
        this.deadLetters = deadLetters;
        this.progress = progress;
        this.time = time;
        this.sizes = sizes;
        this.maxRows = maxRows;
        this.inOrder = inOrder;
    }

    /** Decodes each batch's records ahead on {@code decoder} ({@link DecodeAhead}); set before the first apply. */
    public RecordApplier<R> decodingAhead(Executor decoder) {
        this.decoder = decoder;
        return this;
    }

    /** The partition's row limit per transaction now. */
    public int limit(int partition) {
        BatchSizeController c = controller(partition);
        return c == null ? maxRows : c.limit();
    }

    private BatchSizeController controller(int partition) {
        return sizes == null ? null : limits.computeIfAbsent(partition, p -> sizes.get());
    }

    /** The runner's transient retries, per Neo4j status code. */
    public Map<String, Long> transientRetries() {
        return runner.transientRetries();
    }

    /** Whether it decodes its records ahead on a thread of its own ({@link #decodingAhead}). */
    public boolean decodesAhead() {
        return decoder != null;
    }

    /**
     * Starts decoding {@code batch} (the records a later {@link #apply} of one partition will be given) on the
     * decoder's thread; null when it does not decode ahead or the batch is too short to gain from it. What is
     * returned is given to that {@code apply}, or closed when the records will not be applied.
     */
    public ReadAhead readAhead(List<R> batch) {
        if (decoder == null || batch.size() <= DecodeAhead.CHUNK) {
            return null;
        }
        return new ReadAhead(batch, new DecodeAhead<>(records::decode, e -> e instanceof Unavailable, batch, 0,
                decoder));
    }

    /** A batch's records being decoded ahead ({@link #readAhead}), for the one {@link #apply} given them. */
    public final class ReadAhead implements AutoCloseable {
        private final List<R> batch;
        private final DecodeAhead<R, WriteRequest> decoding;

        private ReadAhead(List<R> batch, DecodeAhead<R, WriteRequest> decoding) {
            this.batch = batch;
            this.decoding = decoding;
        }

        /** Stops the decoding at its next chunk: the records will not be applied (or have been). */
        @Override
        public void close() {
            decoding.close();
        }
    }

    /**
     * Applies {@code batch} of {@code partition}'s records (in offset order; those before {@code position} were
     * applied already and are skipped) from {@code position}, until all are applied, {@code stopping} says so, or a
     * batch was not applied ({@link Result#resync}).
     */
    public Result apply(int partition, long position, List<R> batch, BooleanSupplier stopping) {
        return apply(partition, position, batch, stopping, (ReadAhead) null, null);
    }

    /**
     * The same, with the records' decoding begun by {@link #readAhead} ({@code ahead}, null: none; it is closed
     * here), and {@code beforeLast} (null: none) run once, on this thread, when the batch that ends {@code batch}
     * is gathered and about to be applied (the caller's poll of the records after them, to decode while it
     * applies); not run when nothing of {@code batch} is left to apply. When it answers false (the partition is no
     * longer the caller's), that batch is not applied and a resync is asked for.
     */
    public Result apply(int partition, long position, List<R> batch, BooleanSupplier stopping, ReadAhead ahead,
            BooleanSupplier beforeLast) {
        try (ahead) {
            int first = 0;
            while (first < batch.size() && records.offset(batch.get(first)) < position) {
                first++;
            }
            if (ahead != null && ahead.batch == batch) {
                return applyFrom(partition, position, batch, stopping, ahead.decoding, beforeLast);
            }
            if (decoder == null || batch.size() - first <= DecodeAhead.CHUNK) {
                return applyFrom(partition, position, batch, stopping, null, beforeLast);
            }
            try (DecodeAhead<R, WriteRequest> decoding = new DecodeAhead<>(records::decode,
                    e -> e instanceof Unavailable, batch, first, decoder)) {
                return applyFrom(partition, position, batch, stopping, decoding, beforeLast);
            }
        }
    }

    /** Record {@code i}: decoded ahead, or here; its own failure either way. */
    private WriteRequest decode(DecodeAhead<R, WriteRequest> ahead, int i, R r) throws RecordCodec.Undecodable,
            Unavailable {
        if (ahead == null) {
            return records.decode(r);
        }
        try {
            return ahead.take(i);
        } catch (RecordCodec.Undecodable | Unavailable | RuntimeException e) {
            throw e;
        } catch (Exception e) { // Records.decode throws nothing else
            throw new IllegalStateException(e);
        }
    }

    private Result applyFrom(int partition, long position, List<R> batch, BooleanSupplier stopping,
            DecodeAhead<R, WriteRequest> ahead, BooleanSupplier beforeLast) {
        int i = 0;
        while (i < batch.size() && !stopping.getAsBoolean()) {
            while (i < batch.size() && records.offset(batch.get(i)) < position) {
                i++;
            }
            if (i == batch.size()) {
                break;
            }
            List<Pending> pending = new ArrayList<>();
            Map<Pending, R> source = new IdentityHashMap<>();
            long rows = 0;
            R undecodable = null;
            Neo4jError why = null;
            int limit = limit(partition);
            while (i < batch.size()) {
                R r = batch.get(i);
                WriteRequest request;
                try {
                    request = decode(ahead, i, r);
                } catch (RecordCodec.Undecodable e) {
                    if (pending.isEmpty()) {
                        undecodable = r;
                        why = Neo4jError.invalidFormat("partition " + partition + " offset " + records.offset(r)
                                + ": " + e.getMessage());
                        i++;
                    }
                    break; // apply what came before it first
                } catch (Unavailable e) {
                    if (pending.isEmpty()) { // an outage, not bad data: neither skipped nor dead-lettered
                        log.warn("partition {} of {}: offset {} cannot be read now ({}); re-reading where it stands"
                                + " and retrying", partition, positions.source(), records.offset(r), e.getMessage());
                        return new Result(position, true, e.getMessage());
                    }
                    break; // apply what came before it first; the next round reads this record again
                }
                if (!pending.isEmpty() && rows + request.rows() > limit) {
                    break;
                }
                Pending p = new Pending(request, time.nanos(), records.offset(r));
                pending.add(p);
                source.put(p, r);
                rows += request.rows();
                i++;
            }
            if (beforeLast != null && undecodable == null && i == batch.size()) {
                if (!beforeLast.getAsBoolean()) {
                    return new Result(position, true, "no longer this consumer's");
                }
                beforeLast = null;
            }
            Result r = undecodable != null ? skip(partition, position, undecodable, why)
                    : applyBatch(partition, position, pending, source, stopping);
            if (r.resync()) {
                return r;
            }
            position = r.next();
        }
        return new Result(position, false);
    }

    /** Dead-letters a record that carries no write and moves past it (or, when that failed, asks for a resync). */
    private Result skip(int partition, long position, R r, Neo4jError why) {
        if (!deadLetters.deadLetter(partition, r, why)) {
            return new Result(position, true);
        }
        long next = records.offset(r) + 1;
        try {
            positions.advanceAlone(partition, position, next, tx -> records.inTransaction(tx, r));
        } catch (GraphException e) {
            log.warn("partition {} of {}: moving past offset {}: {}", partition, positions.source(), next - 1,
                    e.getMessage());
            return new Result(position, true);
        }
        progress.applied(partition, next, 0, records.bytes(r));
        return new Result(next, false);
    }

    /**
     * Applies one batch: the position past all of it (committed, or dead-lettered), or, when a group of it was not
     * applied, the position after the groups that committed (reported to {@link Progress} already) and a resync.
     */
    private Result applyBatch(int partition, long position, List<Pending> batch, Map<Pending, R> source,
            BooleanSupplier stopping) {
        long t0 = time.nanos();
        Fence fence = new Fence(partition, position);
        runner.apply(batch, new BatchRunner.Hooks() {
            @Override
            public void inTransaction(Sink.SinkTx tx, List<Pending> group) throws GraphException {
                fence.advance(tx, group);
                records.inTransaction(tx, source.get(group.getLast()));
            }

            @Override
            public boolean keepsResults() {
                return false; // answered before they ran: nothing to hold, no result bound to fail on
            }

            @Override
            public boolean isolated(Pending p, Neo4jError error) {
                return deadLetters.deadLetter(partition, source.get(p), error);
            }

            @Override
            public boolean inOrder() {
                return inOrder;
            }
        });
        long committed = fence.committed();
        Long held = heldAt(batch);
        if (held != null && committed < held) {
            // what came before the held record is committed or dead-lettered: move past it, or the next attempt
            // would dead-letter those again
            try {
                Pending before = null; // the last request before the held one: the log's state as of it
                for (Pending p : batch) {
                    if (p.offset() < held) {
                        before = p;
                    }
                }
                R last = before == null ? null : source.get(before);
                positions.advanceAlone(partition, committed, held, tx -> {
                    if (last != null) {
                        records.inTransaction(tx, last);
                    }
                });
                committed = held;
            } catch (GraphException e) {
                log.warn("partition {} of {}: moving to offset {}, where it holds: {}", partition, positions.source(),
                        held, e.getMessage());
            }
        }
        Pending last = batch.getLast();
        long end = last.offset() + 1;
        BatchSizeController sizes = controller(partition);
        if (committed < end && last.future().join() instanceof Outcome.Failed f && (f.error().isTransient()
                || f.error().code().equals(GraphPositions.FENCED))) { // PARTITION_HELD is transient too
            reportUpTo(partition, position, committed, batch, source);
            if (!stopping.getAsBoolean()) { // at close, a backoff cut short: the next start re-reads the position
                log.warn("partition {} of {}: batch up to offset {} not applied ({}); re-reading where it stands",
                        partition, positions.source(), last.offset(), f.error().message());
            }
            if (sizes != null) {
                sizes.failed();
            }
            return new Result(Math.max(position, committed), true, f.error().code() + " " + f.error().message());
        }
        if (committed < end) { // the last requests failed alone and are dead-lettered: move past them
            try {
                positions.advanceAlone(partition, committed, end, tx -> records.inTransaction(tx,
                        source.get(last)));
            } catch (GraphException e) {
                reportUpTo(partition, position, committed, batch, source);
                return new Result(Math.max(position, committed), true);
            }
        }
        long rows = 0;
        for (Pending p : batch) {
            rows += p.rows();
        }
        if (sizes != null) {
            sizes.committed((int) Math.min(Integer.MAX_VALUE, rows), time.nanos() - t0);
        }
        progress.applied(partition, end, rows, bytes(batch, source, end));
        return new Result(end, false);
    }

    /** The offset of the request the batch held at ({@link Neo4jStatus.Sluice#PARTITION_HELD}), or null. */
    private static Long heldAt(List<Pending> batch) {
        for (Pending p : batch) {
            if (p.future().isDone() && p.future().join() instanceof Outcome.Failed f
                    && f.error().code().equals(Neo4jStatus.Sluice.PARTITION_HELD)) {
                return p.offset();
            }
        }
        return null;
    }

    /** Reports the part of a batch that committed before a group of it was not applied. */
    private void reportUpTo(int partition, long position, long committed, List<Pending> batch, Map<Pending, R> source) {
        if (committed <= position) {
            return;
        }
        long rows = 0;
        for (Pending p : batch) {
            if (p.offset() < committed) {
                rows += p.rows();
            }
        }
        progress.applied(partition, committed, rows, bytes(batch, source, committed));
    }

    private long bytes(List<Pending> batch, Map<Pending, R> source, long below) {
        long bytes = 0;
        for (Pending p : batch) {
            if (p.offset() < below) {
                bytes += records.bytes(source.get(p));
            }
        }
        return bytes;
    }

    /**
     * Which position the graph must hold when a group's transaction fences it: where the batch started, moved by
     * every earlier group of the batch that committed (a group that failed alone committed nothing). The batch
     * runner applies groups one after another, so at each call every earlier group has finished.
     */
    private final class Fence {
        private final int partition;
        private long expected;
        private Pending lastOfPrevious;
        private long nextOfPrevious;

        Fence(int partition, long start) {
            this.partition = partition;
            this.expected = start;
        }

        void advance(Sink.SinkTx tx, List<Pending> group) throws GraphException {
            settle();
            long next = group.getLast().offset() + 1;
            positions.advance(tx, partition, expected, next);
            lastOfPrevious = group.getLast();
            nextOfPrevious = next;
        }

        /** The position after the last group that committed. */
        long committed() {
            settle();
            return expected;
        }

        private void settle() {
            if (lastOfPrevious != null && lastOfPrevious.future().isDone()
                    && lastOfPrevious.future().join() instanceof Outcome.Committed) {
                expected = nextOfPrevious;
                lastOfPrevious = null;
            }
        }
    }
}
