package io.sluice.txn;

import io.sluice.sink.ResultBudget;
import io.sluice.sink.Sink;
import io.sluice.time.Jitter;
import io.sluice.time.Time;
import io.sluice.vocab.Counter;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.TxConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A client's explicit write transaction that a deadlock does not end: when Neo4j picks it as a deadlock's victim
 * ({@code Neo.TransientError.Transaction.DeadlockDetected}, which rolls it back), its statements so far run again in a
 * new Neo4j transaction, in order, each checked to give exactly the answer its client was given, and then the
 * statement that met the deadlock runs again. The client never learns it happened.
 *
 * <h2>Why it is safe</h2>
 * Neo4j takes a write's locks as it runs and keeps them to the end of the transaction. The victim's locks are gone
 * when it is rolled back, so the other transaction of the cycle goes on; the re-run then waits, as any transaction
 * would, for the locks it needs. A re-run whose every answer equals the first run's is a run of the same transaction
 * later, after the one it deadlocked with: what the client saw, and what it will commit, is what that serial order
 * gives. An answer that differs (it read what the other transaction wrote, it returned the element id of a node it
 * created, whose id differs now, it called {@code randomUUID()}) means the client saw something the new transaction
 * would not have: the re-run is rolled back and the client gets Neo4j's deadlock error, as it would from Neo4j. So
 * nothing is ever answered that a serial execution would not have answered; at worst the client sees what Neo4j
 * would have shown it.
 *
 * <p>One difference is let through: a read (a statement Neo4j plans as a read, so no procedure that writes or
 * locks, and that wrote nothing either time) that ran before the transaction's first write. It read what was committed when it ran, which is all Neo4j's isolation (read
 * committed, plain reads take no locks) promises a read; the transaction's writes come after it in both runs, and
 * whatever the client did with what it read reaches the re-run only through the statements it sent next, which run as
 * sent. This is the shape of an application that reads, decides and writes (an OGM's load, then save), whose plain
 * read the deadlock's other transaction changed: without a deadlock Neo4j would have let its read stand just so
 * (a lost update is read committed's to allow). A read after the first write may depend on the transaction's own
 * writes, which the re-run may have made differently: it must answer the same.
 *
 * <h2>Bounds</h2>
 * Each re-run waits first, 2 ms doubling to 250 ms, jittered: the transaction it deadlocked with is usually about to
 * commit, and victims re-run at once would lock again in the orders that deadlocked (measured with the Python
 * driver: six threads on four shared nodes, 13 of 196 deadlocks still reached their clients after five immediate
 * re-runs). A transaction is re-run at most {@value #MAX_RERUNS} times in all (another deadlock during a re-run is
 * the next attempt); with a timeout of its own, never past it (what is left of it, 1 ms at least, is the new
 * transaction's; without one, each new transaction has the database's default); and only while what it ran is small
 * enough to keep: {@value #MAX_STATEMENTS} statements, and {@value #MAX_VALUES} values of parameters and results;
 * past that it runs as a plain Neo4j transaction, its log dropped. A deadlock reported at COMMIT (Neo4j takes some
 * locks only then) is re-run the same way, then committed again: Neo4j reports it before anything is applied, so
 * nothing of the first attempt committed; a commit whose outcome is unknown never is. Read transactions take no
 * write locks and are never wrapped.
 *
 * <p>Used by one request at a time, as every {@link Sink.OpenTx} (the registry's hold orders them); blocks where the
 * sink does. No thread of its own.
 */
public final class Rerunnable implements Sink.OpenTx {
    static final int MAX_RERUNS = 20;
    /** The first pause before a re-run; each next one doubles, up to {@link #MAX_PAUSE}, times a jitter in [0.5, 1.5). */
    static final Duration FIRST_PAUSE = Duration.ofMillis(2);
    static final Duration MAX_PAUSE = Duration.ofMillis(250);
    static final int MAX_STATEMENTS = 1_000;
    /** What the log may hold, parameters and results, counted as a result's bound counts values. */
    static final long MAX_VALUES = 1_000_000;

    /** How a deadlock in a client's transaction ended, for the metrics. */
    public enum Outcome {
        /** re-run, every answer the same: the client never saw the deadlock */
        RERUN("rerun"),
        /** re-run, an answer differed: the client got Neo4j's deadlock error */
        ANSWER_DIFFERED("answer_differed"),
        /** not re-run (too large, out of time or attempts, the re-run failed otherwise): Neo4j's error */
        NOT_RERUN("not_rerun");

        private final String label;

        Outcome(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** Told how each deadlock ended. Called on the client's request thread. */
    public interface Listener {
        Listener NONE = outcome -> { };

        void deadlock(Outcome outcome);
    }

    /** Begins a Neo4j transaction: the sink's {@code begin}. */
    @FunctionalInterface
    public interface Begin {
        Sink.OpenTx begin(TxConfig config) throws GraphException;
    }

    /** One statement the client was answered: what it sent and what it got. */
    private record Ran(String cypher, Map<String, Object> params, StatementResult result) {}

    private final Begin begin;
    private final Time time;
    private final Jitter jitter;
    private final Listener listener;
    private final Predicate<String> reads;
    private final TxConfig config;
    private final Duration timeout;
    private final long deadline;
    private final List<Ran> log = new ArrayList<>();
    private boolean logging = true;
    private long values;
    private int reruns; // in all, this transaction's
    private Sink.OpenTx tx;

    private Rerunnable(Sink.OpenTx tx, Begin begin, TxConfig config, Time time, Jitter jitter, Listener listener,
            Predicate<String> reads) {
        this.tx = tx;
        this.reads = reads;
        this.begin = begin;
        this.time = time;
        this.jitter = jitter;
        this.listener = listener;
        this.config = config == null ? TxConfig.NONE : config;
        this.timeout = this.config.timeout(); // null: none (TxConfig takes 0 as none, as Neo4j does)
        this.deadline = timeout == null ? 0 : time.nanos() + timeout.toNanos();
    }

    /**
     * Begins a write transaction through {@code begin}, ended by the database once open for {@code timeout}; its
     * re-runs pause on {@code time}, jittered by {@code jitter}.
     */
    public static Rerunnable begin(Begin begin, TxConfig config, Time time, Jitter jitter, Listener listener)
            throws GraphException {
        return begin(begin, config, time, jitter, listener, cypher -> false);
    }

    /**
     * As {@link #begin(Begin, TxConfig, Time, Jitter, Listener)}, {@code reads} telling the statements Neo4j plans as
     * reads (the classifier's {@code READ}): only those may answer differently on a re-run, before the first write.
     */
    public static Rerunnable begin(Begin begin, TxConfig config, Time time, Jitter jitter, Listener listener,
            Predicate<String> reads) throws GraphException {
        return new Rerunnable(begin.begin(config), begin, config, time, jitter, listener, reads);
    }

    /**
     * Waits before re-run {@code attempt} (0 the first): {@link #FIRST_PAUSE} doubling to {@link #MAX_PAUSE}, times
     * {@code jitter} in [0.5, 1.5); false when interrupted (the interrupt kept).
     */
    public static boolean pause(Time time, Jitter jitter, int attempt) {
        long nanos = Math.min(MAX_PAUSE.toNanos(), FIRST_PAUSE.toNanos() << Math.min(attempt, 20));
        try {
            time.sleep(Duration.ofNanos((long) (nanos * (0.5 + jitter.next()))));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
        while (true) {
            try {
                StatementResult r = tx.run(cypher, params);
                keep(cypher, params, r);
                return r;
            } catch (GraphException e) {
                if (!deadlock(e)) {
                    throw e;
                }
                recover(e);
            }
        }
    }

    /**
     * After {@code deadlock} (Neo4j rolled this transaction back): re-runs the log, pausing first, until a re-run
     * holds or none is left; throws {@code deadlock} when none held (the transaction has ended).
     */
    private void recover(GraphException deadlock) throws GraphException {
        tx.rollback(); // Neo4j has rolled the victim back; this only makes sure
        Outcome o = null;
        while (o == null) { // null: a deadlock again while re-running, the next attempt if one is left
            o = reruns < MAX_RERUNS && logging && pause(time, jitter, reruns) ? rerun() : Outcome.NOT_RERUN;
            reruns++;
        }
        listener.deadlock(o);
        if (o != Outcome.RERUN) {
            tx = Finished.TX;
            log.clear();
            throw deadlock;
        }
    }

    /**
     * Runs the log again in a new transaction: {@link Outcome#RERUN} when every answer was the same (the new
     * transaction is this one's now), null when the re-run met a deadlock again (rolled back; try again), else why
     * not (rolled back).
     */
    private Outcome rerun() {
        Duration left = null;
        if (timeout != null) {
            long nanos = deadline - time.nanos();
            if (nanos < 1_000_000) { // under a millisecond: a sink counts in milliseconds, and 0 would be none
                return Outcome.NOT_RERUN;
            }
            left = Duration.ofNanos(nanos);
        }
        try {
            tx = begin.begin(config.withTimeout(left)); // the same metadata, what is left of the timeout
        } catch (GraphException | RuntimeException e) {
            tx = Finished.TX;
            return Outcome.NOT_RERUN;
        }
        try {
            boolean wrote = false;
            for (Ran r : log) {
                StatementResult again = tx.run(r.cypher(), r.params());
                boolean writes = !reads.test(r.cypher()) || writes(r.result()) || writes(again);
                if (!again.sameAnswer(r.result()) && (wrote || writes)) { // a leading read may differ: see the note
                    tx.rollback();
                    return Outcome.ANSWER_DIFFERED;
                }
                wrote |= writes;
            }
            return Outcome.RERUN;
        } catch (GraphException e) {
            tx.rollback();
            return deadlock(e) ? null : Outcome.NOT_RERUN;
        } catch (RuntimeException e) {
            tx.rollback();
            return Outcome.NOT_RERUN;
        }
    }

    private void keep(String cypher, Map<String, Object> params, StatementResult r) {
        if (!logging) {
            return;
        }
        values += ResultBudget.weight(params) + ResultBudget.weight(r.rows());
        if (log.size() >= MAX_STATEMENTS || values > MAX_VALUES) {
            logging = false;
            log.clear();
            return;
        }
        log.add(new Ran(cypher, params, r));
    }

    /** Whether {@code r} wrote anything (Neo4j's {@code contains_updates}; a result without counters is taken as a write). */
    static boolean writes(StatementResult r) {
        return !Boolean.FALSE.equals(r.counters().get(Counter.CONTAINS_UPDATES.key()));
    }

    /** Whether {@code e} is Neo4j breaking a deadlock ({@code DeadlockDetected}): what a re-run may hide. */
    public static boolean deadlock(GraphException e) {
        return e.error() != null && Neo4jStatus.Transaction.DEADLOCK_DETECTED.equals(e.error().code());
    }

    @Override
    public void commit() throws GraphException {
        while (true) {
            try {
                tx.commit();
                log.clear();
                return;
            } catch (GraphException e) {
                if (!deadlock(e) || e.commitOutcomeUnknown()) {
                    log.clear();
                    throw e;
                }
                recover(e); // nothing of it committed: run it again, then commit that
            }
        }
    }

    @Override
    public void rollback() {
        log.clear();
        tx.rollback();
    }

    @Override
    public void abandon() {
        log.clear();
        tx.abandon();
    }

    /** What a transaction whose re-run could not even begin holds: nothing, ended. */
    private static final class Finished implements Sink.OpenTx {
        static final Sink.OpenTx TX = new Finished();

        @Override
        public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
            throw new IllegalStateException("the transaction has ended");
        }

        @Override
        public void commit() {
            throw new IllegalStateException("the transaction has ended");
        }

        @Override
        public void rollback() {}
    }
}
