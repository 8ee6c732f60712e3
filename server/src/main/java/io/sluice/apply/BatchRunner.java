package io.sluice.apply;

import io.sluice.batch.Pending;
import io.sluice.cypher.Coalescing;
import io.sluice.metrics.Metrics;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.TxConfig;
import io.sluice.time.Jitter;
import io.sluice.time.Time;
import io.sluice.write.Outcome;
import io.sluice.write.WriteRequest.CypherRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies one batch and completes the future of every request in it.
 *
 * <h2>Design</h2>
 * The whole batch runs in one transaction ({@link Execution}; raw requests that run the same statement and need
 * no result from it coalesced into one statement, {@link Coalescing}). Three things can happen:
 * <ul>
 *   <li>it commits: every request gets {@link Outcome.Committed}, with its own statement results;</li>
 *   <li>a transient error (deadlock, lock timeout, database briefly unavailable): the same batch is tried
 *       again after a backoff, up to {@link RetryPolicy#maxAttempts()}; after that every request gets the
 *       transient error (HTTP 503) — it was not the requests' fault, and none of them was applied;</li>
 *   <li>the connection to a remote database was lost while committing ({@link GraphException#commitOutcomeUnknown()}):
 *       the batch may or may not have committed, so it is not retried (that could apply it twice); every request
 *       gets the transient error, whose message says so. Async mode then asks the graph (its offset node) what
 *       was applied;</li>
 *   <li>any other error: one request (or more) is bad. The batch is split in two halves, applied in order, each
 *       in its own transaction, recursively; a single request that still fails gets the error alone, and every
 *       other request commits. A bad request costs about 2·log2(batch) extra transactions; only the
 *       transactions on its path are redone.</li>
 * </ul>
 * And one more, for the front ends' writes ({@link Hooks#setsAside}): the batch waits for a lock that a transaction
 * other than sluice's batches holds (a client's open transaction, anyone's who bypasses sluice). The
 * {@link LockWatch} finds it once it has run {@code apply.set_aside_after} and ends it; the requests of the statement
 * that waited are set aside on a thread of their own (one request: it runs alone there, unwatched, and waits as long
 * as Neo4j lets it, getting Neo4j's answer; several, coalesced: they run each as statements of their own, watched,
 * so the one that waits is found and set aside in turn), and the rest of the batch runs again at once. Those
 * requests are concurrent (sync writes of different clients), so the order they commit in is any order; the
 * journal's and a topic's records, applied in order, are never set aside: their batch waits, as a single consumer
 * would. A set-aside transaction is not marked as a batch's, so a batch that waits for its locks is set aside too.
 *
 * <p>Halves are applied in order (left then right), so per-key order survives bisection. A half that fails
 * transiently stops the batch: the requests after it get the same error and are not applied, so what commits
 * is always a prefix of the batch (minus isolated bad requests), which the journal's exactly-once rests on.
 *
 * <p>Thread-safety: stateless apart from its collaborators; one instance may serve several applier threads.
 */
public final class BatchRunner {
    private static final Logger log = LoggerFactory.getLogger(BatchRunner.class);

    private final Sink sink;
    private final RetryPolicy retry;
    private final Time time;
    private final Jitter jitter;
    private final Metrics metrics;
    private final boolean lockOrder;
    private final Map<String, LongAdder> retries = new ConcurrentHashMap<>();
    private final Coalescing coalescing;
    private final LockWatch watch;
    private final Executor aside;

    /** Statement texts whose coalesced form (or its absence) is kept. */
    static final int FORMS_CACHED = 10_000;

    public BatchRunner(Sink sink, RetryPolicy retry, Time time, Jitter jitter, Metrics metrics) {
        this(sink, retry, time, jitter, metrics, true);
    }

    /** Raw Cypher coalesced where it can be ({@link Coalescing}). */
    public BatchRunner(Sink sink, RetryPolicy retry, Time time, Jitter jitter, Metrics metrics, boolean lockOrder) {
        this(sink, retry, time, jitter, metrics, lockOrder, true);
    }

    /**
     * {@code time} measures commits and waits out backoffs; {@code jitter} spreads the backoffs;
     * {@code lockOrder}: sort each batch's template rows by the template's lock-order fields (see Execution);
     * {@code coalesceCypher}: coalesce raw requests of one statement where that is the same ({@link Coalescing},
     * forms of up to {@value #FORMS_CACHED} statements cached), or run every raw statement as sent.
     */
    public BatchRunner(Sink sink, RetryPolicy retry, Time time, Jitter jitter, Metrics metrics, boolean lockOrder,
            boolean coalesceCypher) {
        this(sink, retry, time, jitter, metrics, lockOrder, coalesceCypher ? new Coalescing(sink, FORMS_CACHED) : null);
    }

    /** {@code coalescing}: the coalesced forms of raw statements, or null to run every raw statement as sent. */
    BatchRunner(Sink sink, RetryPolicy retry, Time time, Jitter jitter, Metrics metrics, boolean lockOrder,
            Coalescing coalescing) {
        this(sink, retry, time, jitter, metrics, lockOrder, coalescing, LockWatch.OFF, null);
    }

    /**
     * With {@code watch} looking into batches that run long: one found waiting for a lock held outside sluice's
     * batches is ended, the requests of its blocked statement set aside to run alone on {@code aside} (a thread
     * each: they may wait as long as Neo4j lets them), the rest run again at once.
     */
    public BatchRunner(Sink sink, RetryPolicy retry, Time time, Jitter jitter, Metrics metrics, boolean lockOrder,
            boolean coalesceCypher, LockWatch watch, Executor aside) {
        this(sink, retry, time, jitter, metrics, lockOrder, coalesceCypher ? new Coalescing(sink, FORMS_CACHED) : null,
                watch, aside);
    }

    BatchRunner(Sink sink, RetryPolicy retry, Time time, Jitter jitter, Metrics metrics, boolean lockOrder,
            Coalescing coalescing, LockWatch watch, Executor aside) {
        if (watch.on()) {
            Objects.requireNonNull(aside, "aside");
        }
        this.watch = watch;
        this.aside = aside;
        this.coalescing = coalescing;
        this.lockOrder = lockOrder;
        this.sink = sink;
        this.retry = retry;
        this.time = time;
        this.jitter = jitter;
        this.metrics = metrics;
    }

    /**
     * What a caller adds to the plain apply: extra work inside each committing transaction (the journal's
     * offset), and a say when a request is found bad, before anything after it is applied (dead letters).
     */
    public interface Hooks {
        /** Front ends' writes: nothing added, and a blocked request set aside ({@link #setsAside}). */
        Hooks NONE = new Hooks() {
            @Override
            public boolean setsAside() {
                return true;
            }
        };

        /** Runs inside the transaction that commits {@code group}, after its writes. */
        default void inTransaction(Sink.SinkTx tx, List<Pending> group) throws GraphException {}

        /**
         * {@code p} failed alone with {@code error}; called before any later request is applied. Returns whether
         * the batch goes on past it (the failure is recorded: a dead letter); false holds the batch there: {@code p}
         * and every request after it fail with {@link Neo4jStatus.Sluice#PARTITION_HELD}, nothing after it applied.
         */
        default boolean isolated(Pending p, Neo4jError error) {
            return true;
        }

        /**
         * Whether the batch's requests must run in their order across templates (an application topic's records:
         * offset order) rather than grouped by template (front ends' writes: order per key, which grouping keeps).
         */
        default boolean inOrder() {
            return false;
        }

        /**
         * Whether a request that waits for a lock held outside sluice's batches may be set aside to run alone while
         * the rest of its batch runs on (see {@link LockWatch}): true for front ends' writes, which are
         * concurrent, so any order among them is theirs; false (the default) where what commits must stay a
         * prefix of the batch (the journal's and a topic's records, applied in order).
         */
        default boolean setsAside() {
            return false;
        }

        /**
         * Whether the requests' statement results are wanted. Async requests were answered (202) before they
         * ran, so their results are discarded as they run: nothing to hold, no result bound to fail on.
         */
        default boolean keepsResults() {
            return true;
        }
    }

    /**
     * Applies {@code batch}; on return every future in it is complete, but for requests set aside because they
     * waited for a lock held outside sluice's batches (with hooks that allow it): their own threads complete them.
     */
    public void apply(List<Pending> batch) {
        apply(batch, Hooks.NONE);
    }

    /** Applies {@code batch} with {@code hooks}; on return every future in it is complete, as above. */
    public void apply(List<Pending> batch, Hooks hooks) {
        apply(batch, hooks, Run.BATCH);
    }

    /** How a batch's requests run. */
    private enum Run {
        /** Together (coalesced); watched when its hooks set aside. */
        BATCH,
        /** A blocked statement's requests: each as statements of its own, watched, so the one that waits is found. */
        EACH,
        /** One request that waited for a lock held outside: alone, unwatched, as long as Neo4j lets it wait. */
        ALONE
    }

    /** The outcome of a batch that did not commit: the error it failed with, or the requests set aside. */
    private record Attempt(GraphException failure, List<Pending> blocked) {}

    private void apply(List<Pending> batch, Hooks hooks, Run run) {
        try {
            applyOrSplit(batch, hooks, run);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failAll(batch, new Neo4jError(Neo4jStatus.General.DATABASE_UNAVAILABLE,
                    "sluice is shutting down; the write was not applied"));
        } catch (RuntimeException | Error e) {
            log.error("bug while applying a batch of {} requests", batch.size(), e);
            failAll(batch, Neo4jError.unknown("internal error: " + e));
            throw e;
        }
    }

    /** Returns null, or the transient error that stopped the batch (every future from there on failed with it). */
    private Neo4jError applyOrSplit(List<Pending> batch, Hooks hooks, Run run) throws InterruptedException {
        Attempt attempt = applyWithRetry(batch, hooks, run);
        if (attempt == null) {
            return null;
        }
        if (attempt.blocked() != null) {
            setAside(attempt.blocked(), hooks);
            List<Pending> rest = without(batch, attempt.blocked());
            return rest.isEmpty() ? null : applyOrSplit(rest, hooks, run);
        }
        GraphException failure = attempt.failure();
        if (failure.isTransient() || failure.commitOutcomeUnknown()) {
            // an unknown outcome keeps its mark to the front end: a driver must not be told to retry it
            Neo4jError e = failure.commitOutcomeUnknown() && !failure.error().isCommitOutcomeUnknown()
                    ? Neo4jError.commitOutcomeUnknown(failure.error().message()) : failure.error();
            failAll(batch, e);
            return e;
        } else if (batch.size() == 1) {
            metrics.writeFailed(failure.error().code());
            if (!hooks.isolated(batch.getFirst(), failure.error())) {
                Neo4jError held = new Neo4jError(Neo4jStatus.Sluice.PARTITION_HELD, "held at a request that failed"
                        + " alone (" + failure.error().code() + ": " + failure.error().message() + ")");
                batch.getFirst().future().complete(new Outcome.Failed(held));
                return held;
            }
            batch.getFirst().future().complete(new Outcome.Failed(failure.error()));
            return null;
        }
        metrics.bisection();
        int mid = batch.size() / 2;
        Neo4jError stopped = applyOrSplit(batch.subList(0, mid), hooks, run);
        if (stopped != null) {
            failAll(batch.subList(mid, batch.size()), stopped);
            return stopped;
        }
        return applyOrSplit(batch.subList(mid, batch.size()), hooks, run);
    }

    /**
     * Runs {@code blocked} (a blocked statement's requests) on a thread of their own: alone when it is one
     * request, else each as statements of its own, so that the one that waits is found and set aside in turn.
     */
    private void setAside(List<Pending> blocked, Hooks hooks) {
        metrics.setAside(blocked.size());
        List<Pending> copy = List.copyOf(blocked);
        Run run = copy.size() == 1 ? Run.ALONE : Run.EACH;
        try {
            aside.execute(() -> apply(copy, hooks, run));
        } catch (RejectedExecutionException e) {
            failAll(copy, new Neo4jError(Neo4jStatus.General.DATABASE_UNAVAILABLE,
                    "sluice is shutting down; the write was not applied"));
        }
    }

    private static List<Pending> without(List<Pending> batch, List<Pending> out) {
        Set<Pending> gone = Collections.newSetFromMap(new IdentityHashMap<>());
        gone.addAll(out);
        List<Pending> rest = new ArrayList<>(batch.size());
        for (Pending p : batch) {
            if (!gone.contains(p)) {
                rest.add(p);
            }
        }
        return rest;
    }

    /** Commits the batch and completes its futures (null returned), or says why it did not. */
    private Attempt applyWithRetry(List<Pending> batch, Hooks hooks, Run run) throws InterruptedException {
        Map<String, String> forms = run != Run.BATCH || coalescing == null || batch.size() < 2 || hooks.inOrder()
                ? Map.of() : Execution.formsFor(batch, hooks.keepsResults(), coalescing);
        boolean watched = run != Run.ALONE && hooks.setsAside() && watch.on();
        for (int attempt = 1; ; attempt++) {
            long t0 = time.nanos();
            LockWatch.Watched w = watched ? watch.watch() : null;
            try {
                Map<Pending, List<StatementResult>> results = transact(batch, hooks, run, forms, w);
                int rows = 0;
                for (Pending p : batch) {
                    rows += p.rows();
                }
                metrics.batchCommitted(rows, batch.size(), time.nanos() - t0);
                for (Pending p : batch) {
                    p.future().complete(new Outcome.Committed(results.getOrDefault(p, List.of()), p.rows()));
                }
                return null;
            } catch (GraphException e) {
                List<Pending> blocked = w == null ? null : w.blocked();
                if (blocked != null) {
                    log.debug("a batch of {} waited for a lock held outside sluice's batches: {} of it set aside",
                            batch.size(), blocked.size());
                    return new Attempt(null, blocked);
                }
                if (!e.isTransient() || e.commitOutcomeUnknown() || attempt >= retry.maxAttempts()) {
                    return new Attempt(e, null);
                }
                metrics.transientRetry(e.error().code());
                retries.computeIfAbsent(e.error().code(), c -> new LongAdder()).increment();
                Duration pause = retry.backoff(attempt, jitter.next());
                log.debug("transient error on a batch of {} (attempt {}), retrying in {}: {}", batch.size(), attempt,
                        pause, e.getMessage());
                time.sleep(pause);
            } finally {
                if (w != null) {
                    w.close();
                }
            }
        }
    }

    /**
     * One transaction of {@code batch}: a batch's (so that other batches wait for it rather than set their requests
     * aside) unless it runs {@link Run#ALONE}, when it waits for another's lock and batches must not wait for it.
     */
    private Map<Pending, List<StatementResult>> transact(List<Pending> batch, Hooks hooks, Run run,
            Map<String, String> forms, LockWatch.Watched w) throws GraphException {
        Execution.Step step = w == null ? Execution.Step.NONE : w::at;
        Sink.TxWork<Map<Pending, List<StatementResult>>> work = tx -> {
            var rs = hooks.inOrder() ? Execution.runInOrder(tx, batch, lockOrder, hooks.keepsResults())
                    : run == Run.EACH ? Execution.runEach(tx, batch, lockOrder, hooks.keepsResults(), step)
                    : Execution.run(tx, batch, lockOrder, hooks.keepsResults(), forms, step);
            hooks.inTransaction(tx, batch);
            return rs;
        };
        if (run == Run.ALONE) { // one request: its client's timeout and metadata are its transaction's
            return sink.inTransaction(work, batch.getFirst().request() instanceof CypherRequest c ? c.config()
                    : TxConfig.NONE);
        }
        return sink.inBatchTransaction(work, null, w == null ? running -> {} : w::opened);
    }

    /** Transient retries so far, per Neo4j status code (a snapshot). */
    public Map<String, Long> transientRetries() {
        Map<String, Long> out = new TreeMap<>();
        retries.forEach((code, n) -> out.put(code, n.sum()));
        return out;
    }

    private static void failAll(List<Pending> batch, Neo4jError error) {
        for (Pending p : batch) {
            p.future().complete(new Outcome.Failed(error));
        }
    }
}
