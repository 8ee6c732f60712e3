package io.sluice.group;

import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.TxConfig;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A sink whose transactions answer as a test scripts them, and record every call: {@code begin} returns transaction
 * {@code n} (1, 2, ... in the order begun); a statement answers its scripted results in turn (the last repeats; by
 * default a row holding its own text), or waits at a {@link Hold} until released; a commit succeeds or does what
 * {@link #commit} scripts (fail, outcome unknown). Every other method of {@link Sink} is refused. Thread-safe.
 */
final class ScriptedSink implements Sink {
    /** What a scripted statement or commit does: answers, or throws. */
    @FunctionalInterface
    interface Answer<T> {
        T get() throws GraphException;
    }

    /** A statement's run that waits until the test releases it. */
    static final class Hold {
        private final CountDownLatch entered = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);

        /** Waits until the held statement has started (and waits). */
        void awaitEntered() throws InterruptedException {
            if (!entered.await(10, TimeUnit.SECONDS)) {
                throw new AssertionError("the held statement never ran");
            }
        }

        void release() {
            released.countDown();
        }
    }

    private final List<String> calls = new CopyOnWriteArrayList<>();
    private final List<Tx> txs = new CopyOnWriteArrayList<>();
    private final Map<String, Deque<Answer<StatementResult>>> answers = new HashMap<>(); // guarded by this
    private final Map<String, Integer> runs = new HashMap<>(); // guarded by this
    private final Map<String, Hold> holds = new HashMap<>(); // guarded by this: "cypher#n", the n-th run
    private final Map<Integer, Answer<Void>> commits = new HashMap<>(); // guarded by this

    /** The result a statement answers by default: one row, its own text. */
    static StatementResult result(Object value) {
        return new StatementResult(List.of("v"), List.of(List.of(value)), Map.of());
    }

    /** {@code cypher} answers these, one run after another (the last repeats). */
    synchronized void answer(String cypher, StatementResult... inTurn) {
        Deque<Answer<StatementResult>> each = new ArrayDeque<>();
        for (StatementResult r : inTurn) {
            each.add(() -> r);
        }
        answers.put(cypher, each);
    }

    /** {@code cypher}'s next run does what {@code answer} does (fail, say), then it answers as before. */
    synchronized void answerNext(String cypher, Answer<StatementResult> answer) {
        answers.computeIfAbsent(cypher, c -> new ArrayDeque<>(List.of(() -> result(c)))).addFirst(answer);
    }

    /** The {@code nth} run of {@code cypher} (1 the first) waits until the hold is released. */
    synchronized Hold hold(String cypher, int nth) {
        Hold h = new Hold();
        holds.put(cypher + "#" + nth, h);
        return h;
    }

    /** What transaction {@code n}'s commit does (by default it commits). */
    synchronized void commit(int n, Answer<Void> what) {
        commits.put(n, what);
    }

    /** Every call, in order: {@code "tx2 run B"}, {@code "tx2 commit"}, ... */
    List<String> calls() {
        return List.copyOf(calls);
    }

    /** Transaction {@code n}'s calls, in order, without its name: {@code "begin"}, {@code "run A"}, ... */
    List<String> calls(int n) {
        String prefix = "tx" + n + " ";
        List<String> mine = new ArrayList<>();
        for (String c : calls) {
            if (c.startsWith(prefix)) {
                mine.add(c.substring(prefix.length()));
            }
        }
        return mine;
    }

    /** How many transactions were begun. */
    int begun() {
        return txs.size();
    }

    /** Waits until transaction {@code n} has committed or rolled back (the call made, whatever it answered). */
    void awaitEnded(int n) throws InterruptedException {
        if (!txs.get(n - 1).ended.await(10, TimeUnit.SECONDS)) {
            throw new AssertionError("tx" + n + " never ended: " + calls(n));
        }
    }

    @Override
    public synchronized OpenTx begin(boolean write, TxConfig config) {
        Tx tx = new Tx(txs.size() + 1);
        txs.add(tx);
        calls.add(tx.name + " begin");
        return tx;
    }

    private synchronized Answer<StatementResult> next(String cypher, Tx tx) {
        int nth = runs.merge(cypher, 1, Integer::sum);
        Hold hold = holds.remove(cypher + "#" + nth);
        Deque<Answer<StatementResult>> scripted = answers.get(cypher);
        Answer<StatementResult> answer = scripted == null ? () -> result(cypher)
                : scripted.size() > 1 ? scripted.poll() : scripted.peek();
        if (hold == null) {
            return answer;
        }
        return () -> {
            hold.entered.countDown();
            try {
                if (!hold.released.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(tx.name + ": " + cypher + " held 10 s and never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return answer.get();
        };
    }

    private synchronized Answer<Void> commitOf(int n) {
        return commits.getOrDefault(n, () -> null);
    }

    /** One scripted transaction; a failed statement or commit ends it (rolled back, as {@link OpenTx} says). */
    private final class Tx implements OpenTx {
        final String name;
        final int n;
        final CountDownLatch ended = new CountDownLatch(1);
        private volatile boolean finished;

        Tx(int n) {
            this.n = n;
            this.name = "tx" + n;
        }

        @Override
        public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
            if (finished) {
                calls.add(name + " run after its end: " + cypher);
                throw new IllegalStateException(name + " has ended");
            }
            calls.add(name + " run " + cypher);
            try {
                return next(cypher, this).get();
            } catch (GraphException | RuntimeException e) {
                finished = true; // a failed statement rolls its transaction back
                ended.countDown();
                throw e;
            }
        }

        @Override
        public void commit() throws GraphException {
            if (finished) {
                calls.add(name + " commit after its end");
                throw new IllegalStateException(name + " has ended");
            }
            calls.add(name + " commit");
            finished = true;
            try {
                commitOf(n).get();
            } finally {
                ended.countDown();
            }
        }

        @Override
        public void rollback() {
            if (finished) {
                return; // a no-op, as OpenTx says
            }
            calls.add(name + " rollback");
            finished = true;
            ended.countDown();
        }
    }

    @Override
    public <T> T inTransaction(TxWork<T> work) {
        throw new UnsupportedOperationException("groups use begin only");
    }

    @Override
    public <T> T inReadTransaction(TxWork<T> work) {
        throw new UnsupportedOperationException("groups use begin only");
    }

    @Override
    public StatementResult runImplicit(String cypher, Map<String, Object> params) {
        throw new UnsupportedOperationException("groups use begin only");
    }

    @Override
    public QueryKind classify(String cypher) {
        throw new UnsupportedOperationException("groups use begin only");
    }

    @Override
    public String neo4jVersion() {
        return "scripted";
    }

    @Override
    public String describe() {
        return "a scripted sink";
    }

    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public void close() {}
}
