package io.sluice.txn;

import io.sluice.sink.Sink;
import io.sluice.time.Jitter;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.TxConfig;
import io.sluice.write.IdScheme;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Explicit transactions held open for a front end's clients between their requests, as Neo4j holds them: real
 * Neo4j transactions ({@link Sink#begin}), or grouped ones the session layer made ({@link #register}). Protocol-neutral: the ids' form and the
 * refusals' texts are the front end's {@link IdScheme}; one registry per scheme, all sharing one {@link Gate}.
 *
 * <p>Design. One lock guards the table of open transactions and each one's state (held by a request or idle,
 * its idle deadline); no call into Neo4j is ever made under it, so a slow statement or rollback holds up only its
 * own transaction. A request {@link #acquire acquires} a transaction exclusively: a second request on the same id
 * meanwhile is refused with {@code TransactionAccessedConcurrently}, as Neo4j refuses it, so two requests never
 * run in one Neo4j transaction at once, and the lock hand-over orders one request's calls before the next's (the
 * transaction may be used from a different thread each time). The idle clock (the injected {@link Time}) restarts
 * when a request releases the transaction; a held transaction never expires. Expired ones are rolled back by one
 * sweeper thread, and found expired on access as well, so expiry never waits for the sweep. Any error inside a
 * transaction rolls it back and forgets it, as Neo4j does: the id is then unknown. The number open (counting
 * those being begun) is bounded; past it {@link #open} fails with Neo4j's {@code MaximumTransactionLimitReached}.
 *
 * <p>{@link #close} stops the sweeper, refuses every later call with a clear error, rolls back the idle
 * transactions, and waits (bounded) for held ones, which their requests roll back when they release them.
 *
 * <p>Its size (about 580 lines, over a third of them this note and the others' javadoc): the table, the
 * {@link Held} handle, the sweeper and the close protocol share one lock and its invariants (what {@code beginning}
 * counts, which entries hold a place at the gate and who gives it back, when a release rolls back instead); split,
 * each part would have to expose them to the others.
 *
 * <p>Entries are of two kinds: transactions it begins ({@link #open}: a place at the gate, then {@link Sink#begin}),
 * and transactions made elsewhere that take no place here ({@link #register}: a grouped one, whose group holds the
 * place, and which takes its own if it becomes a real transaction). Both expire, are held one request at a time and
 * are rolled back at close alike.
 *
 * <p>Thread-safe. A {@link Held} is one request's and not thread-safe.
 */
public final class TxRegistry implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TxRegistry.class);

    /**
     * {@code idleTimeout}: how long an unused transaction stays open; {@code maxOpen}: the bound on open ones;
     * {@code sweepEvery}: how often the sweeper looks (so a transaction may outlive its deadline by as much, unless
     * touched); {@code closeWait}: how long {@link #close} waits for requests still in a transaction.
     */
    public record Options(IdScheme ids, Duration idleTimeout, int maxOpen, Duration sweepEvery, Duration closeWait) {
        public Options {
            Objects.requireNonNull(ids, "ids");
            if (!idleTimeout.isPositive()) {
                throw new IllegalArgumentException("idle timeout must be positive, got " + idleTimeout);
            }
            if (maxOpen < 1) {
                throw new IllegalArgumentException("maxOpen must be >= 1, got " + maxOpen);
            }
            if (!sweepEvery.isPositive()) {
                throw new IllegalArgumentException("sweep interval must be positive, got " + sweepEvery);
            }
            if (closeWait.isNegative()) {
                throw new IllegalArgumentException("close wait must not be negative, got " + closeWait);
            }
        }

        /** The scheme's idle timeout (or {@code idleTimeout} if given) and its sweep cadence. */
        public static Options of(IdScheme ids, Duration idleTimeout, int maxOpen) {
            Duration idle = idleTimeout == null ? ids.defaultIdleTimeout() : idleTimeout;
            return new Options(ids, idle, maxOpen, ids.sweepEvery(idle), Duration.ofSeconds(10));
        }
    }

    /** A transaction just opened: its id, and when it expires if left idle (wall clock, for the response). */
    public record Opened(String id, Instant expires) {}

    /**
     * What an open transaction occupies outside the registry (the write path's pending bound): {@link #enter} before
     * a transaction is begun (it may wait, and refuses with a {@link GraphException} when there is no room),
     * {@link #leave} exactly once when it ends, however it ends. Called without the registry's lock held.
     */
    public interface Gate {
        Gate NONE = new Gate() {
            @Override
            public void enter() {}

            @Override
            public void leave() {}
        };

        void enter() throws GraphException;

        void leave();
    }

    private final Sink sink;
    private final Gate gate;
    private final Options options;
    private final Time time;
    private final RandomGenerator random;
    private final Rerunnable.Listener deadlocks;
    private final Predicate<String> reads;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition released = lock.newCondition();
    private final Condition stopping = lock.newCondition();
    private final Map<String, Entry> open = new HashMap<>(); // guarded by lock
    private int beginning; // guarded by lock
    private long sequence; // guarded by lock
    private boolean closed; // guarded by lock
    private final Thread sweeper;

    private TxRegistry(Sink sink, Gate gate, Options options, Time time, RandomGenerator random, ThreadFactory threads,
            Rerunnable.Listener deadlocks, Predicate<String> reads) {
        this.sink = sink;
        this.deadlocks = deadlocks;
        this.reads = reads;
        this.gate = gate;
        this.options = options;
        this.time = time;
        this.random = random;
        this.sweeper = threads.newThread(this::sweepUntilClosed);
    }

    /** A registry whose sweeper is a platform thread named {@code sluice-txn-sweeper-<scheme>}; no gate. */
    public static TxRegistry start(Sink sink, Options options, Time time) {
        return start(sink, Gate.NONE, options, time);
    }

    /** As {@link #start(Sink, Options, Time)}, each open transaction passing {@code gate}. */
    public static TxRegistry start(Sink sink, Gate gate, Options options, Time time) {
        return start(sink, gate, options, time, new SecureRandom(), Thread.ofPlatform()
                .name("sluice-txn-sweeper-" + options.ids().label()).factory());
    }

    /** As {@link #start(Sink, Gate, Options, Time)}, with the ids' randomness and the sweeper's thread injected. */
    public static TxRegistry start(Sink sink, Gate gate, Options options, Time time, RandomGenerator random,
            ThreadFactory threads) {
        return start(sink, gate, options, time, random, threads, Rerunnable.Listener.NONE);
    }

    /**
     * As {@link #start(Sink, Gate, Options, Time, RandomGenerator, ThreadFactory)}, telling {@code deadlocks} how
     * each deadlock in a write transaction ended ({@link Rerunnable}).
     */
    public static TxRegistry start(Sink sink, Gate gate, Options options, Time time, RandomGenerator random,
            ThreadFactory threads, Rerunnable.Listener deadlocks) {
        return start(sink, gate, options, time, random, threads, deadlocks, cypher -> false);
    }

    /**
     * As {@link #start(Sink, Gate, Options, Time, RandomGenerator, ThreadFactory, Rerunnable.Listener)}, {@code reads}
     * telling which statements Neo4j plans as reads (a re-run may let those answer differently: {@link Rerunnable}).
     */
    public static TxRegistry start(Sink sink, Gate gate, Options options, Time time, RandomGenerator random,
            ThreadFactory threads, Rerunnable.Listener deadlocks, Predicate<String> reads) {
        TxRegistry r = new TxRegistry(sink, gate, options, time, random, threads, deadlocks, reads);
        r.sweeper.start();
        return r;
    }

    /**
     * Begins a transaction for {@code owner} (whatever identifies the caller, compared with {@code equals}: only
     * the same owner finds it again, as Neo4j compares the opener's credentials).
     */
    public Opened open(boolean write, Object owner) throws GraphException {
        return open(write, owner, TxConfig.NONE);
    }

    /**
     * A write transaction of the caller's own, neither registered here nor taking a place at the gate (the caller
     * holds one): re-run when it is a deadlock's victim ({@link Rerunnable}), as one {@link #open}ed here is.
     */
    public Sink.OpenTx beginWrite() throws GraphException {
        return Rerunnable.begin(c -> sink.begin(true, c), TxConfig.NONE, time, Jitter.RANDOM, deadlocks, reads);
    }

    /** As {@link #open(boolean, Object)}, with {@code config}'s timeout and metadata ({@link Sink#begin}). */
    public Opened open(boolean write, Object owner, TxConfig config) throws GraphException {
        lock.lock();
        try {
            if (closed) {
                throw new GraphException(closed(), null);
            }
            if (open.size() + beginning >= options.maxOpen()) {
                throw new GraphException(limitReached(options.maxOpen()), null);
            }
            beginning++;
        } finally {
            lock.unlock();
        }
        Sink.OpenTx tx;
        boolean entered = false;
        try {
            gate.enter();
            entered = true;
            // a write transaction survives being a deadlock's victim (Rerunnable); a read one takes no write locks
            tx = write ? Rerunnable.begin(c -> sink.begin(true, c), config, time, Jitter.RANDOM, deadlocks, reads)
                    : sink.begin(false, config);
        } catch (GraphException | RuntimeException e) {
            if (entered) {
                gate.leave();
            }
            lock.lock();
            try {
                beginning--;
                released.signalAll(); // close may be waiting for begins to end
            } finally {
                lock.unlock();
            }
            throw e;
        }
        lock.lock();
        try {
            if (!closed) {
                beginning--;
                Entry e = new Entry(newId(), owner, tx, true);
                e.deadline = time.nanos() + options.idleTimeout().toNanos();
                open.put(e.id, e);
                return new Opened(e.id, expires());
            }
        } finally {
            lock.unlock();
        }
        tx.rollback(); // closed while it was being begun; close waits for this (beginning is still counted)
        gate.leave();
        lock.lock();
        try {
            beginning--;
            released.signalAll();
        } finally {
            lock.unlock();
        }
        throw new GraphException(closed(), null);
    }

    /**
     * Registers {@code tx}, already made and holding no place at the gate (a transaction that takes its own when it
     * needs one: a grouped one), for {@code owner}; refused past the bound or once closed (then rolled back).
     */
    public Opened register(Sink.OpenTx tx, Object owner) throws GraphException {
        lock.lock();
        try {
            if (!closed && open.size() + beginning < options.maxOpen()) {
                Entry e = new Entry(newId(), owner, tx, false);
                e.deadline = time.nanos() + options.idleTimeout().toNanos();
                open.put(e.id, e);
                return new Opened(e.id, expires());
            }
        } finally {
            lock.unlock();
        }
        tx.rollback();
        throw new GraphException(closed ? closed() : limitReached(options.maxOpen()), null);
    }

    /**
     * Takes transaction {@code id} for one request, until {@link Held#close}: unknown, expired, finished or
     * another owner's is {@code notFound}; in use by another request is refused, not waited for.
     */
    public Held acquire(String id, Object owner) throws GraphException {
        Entry expired;
        lock.lock();
        try {
            if (closed) {
                throw new GraphException(closed(), null);
            }
            Entry e = open.get(id);
            if (e == null || !Objects.equals(e.owner, owner)) {
                throw new GraphException(options.ids().notFound(id), null);
            }
            if (e.held) {
                throw new GraphException(options.ids().inUse(), null);
            }
            if (time.nanos() - e.deadline < 0) {
                e.held = true;
                return new Held(e);
            }
            open.remove(id);
            expired = e;
        } finally {
            lock.unlock();
        }
        rollBackExpired(expired); // the sweeper has not come by yet
        throw new GraphException(options.ids().notFound(id), null);
    }

    /** Commits transaction {@code id} (one request: acquire, commit). */
    public void commit(String id, Object owner) throws GraphException {
        try (Held h = acquire(id, owner)) {
            h.commit();
        }
    }

    /** Rolls back transaction {@code id} (one request: acquire, roll back). */
    public void rollback(String id, Object owner) throws GraphException {
        try (Held h = acquire(id, owner)) {
            h.rollback();
        }
    }

    /** Rolls back transaction {@code id} because its client went (one request: acquire, abandon). */
    public void abandon(String id, Object owner) throws GraphException {
        try (Held h = acquire(id, owner)) {
            h.abandon();
        }
    }

    /**
     * Whether transaction {@code id} is still registered (open, held or idle; an expired one until it is swept or
     * touched): for a front end that keeps something beside a transaction and must let go of it when it ends.
     */
    public boolean isOpen(String id) {
        lock.lock();
        try {
            return open.containsKey(id);
        } finally {
            lock.unlock();
        }
    }

    /** The clock the registry's deadlines are read from. */
    public Time time() {
        return time;
    }

    /** How this registry's ids look and its refusals read. */
    public IdScheme ids() {
        return options.ids();
    }

    /** Transactions open now, held or idle (for a gauge). */
    public int openCount() {
        lock.lock();
        try {
            return open.size();
        } finally {
            lock.unlock();
        }
    }

    /** Rolls back every idle transaction past its deadline; returns how many. The sweeper's work, callable by tests. */
    int sweep() {
        List<Entry> expired = new ArrayList<>();
        lock.lock();
        try {
            long now = time.nanos();
            for (var it = open.values().iterator(); it.hasNext(); ) {
                Entry e = it.next();
                if (!e.held && now - e.deadline >= 0) {
                    it.remove();
                    expired.add(e);
                }
            }
        } finally {
            lock.unlock();
        }
        expired.forEach(this::rollBackExpired);
        return expired.size();
    }

    private void rollBackExpired(Entry e) {
        end(e);
        log.info("Transaction with id {} has been automatically rolled back due to transaction timeout.", e.id);
    }

    private void sweepUntilClosed() {
        while (true) {
            lock.lock();
            try {
                // a real-time wait for the period: the deadlines themselves are read from the injected clock
                long left = options.sweepEvery().toNanos();
                while (!closed && left > 0) {
                    left = stopping.awaitNanos(left);
                }
                if (closed) {
                    return;
                }
            } catch (InterruptedException e) {
                log.warn("transaction sweeper interrupted; stopping (transactions now expire only on access)");
                return;
            } finally {
                lock.unlock();
            }
            try {
                sweep();
            } catch (RuntimeException e) {
                log.error("sweeping expired transactions failed; trying again next time", e);
            }
        }
    }

    /**
     * Stops the sweeper, refuses every later call, rolls back idle transactions and waits up to
     * {@code closeWait} for the ones requests still hold (they roll back on release). Idempotent.
     */
    @Override
    public void close() {
        List<Entry> idle = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            stopping.signalAll();
            for (var it = open.values().iterator(); it.hasNext(); ) {
                Entry e = it.next();
                if (!e.held) {
                    it.remove();
                    idle.add(e);
                }
            }
        } finally {
            lock.unlock();
        }
        joinSweeper();
        idle.forEach(this::end);
        if (!idle.isEmpty()) {
            log.info("rolled back {} open transaction(s) at shutdown", idle.size());
        }
        awaitHeld();
    }

    private void joinSweeper() {
        try {
            if (!sweeper.join(options.closeWait())) {
                log.warn("{} did not stop within {}", sweeper.getName(), options.closeWait());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void awaitHeld() {
        lock.lock();
        try {
            long left = options.closeWait().toNanos();
            while ((!open.isEmpty() || beginning > 0) && left > 0) { // held ones, and ones being begun
                left = released.awaitNanos(left);
            }
            if (!open.isEmpty()) {
                log.warn("transactions {} still in a request after {}; they roll back when it ends, or with the sink",
                        open.keySet(), options.closeWait());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    private String newId() { // under lock
        String id;
        do {
            id = options.ids().newId(++sequence, random);
        } while (open.containsKey(id));
        return id;
    }

    /** Past the bound on open transactions: Neo4j's kernel limit's code and message. */
    public static Neo4jError limitReached(int max) {
        return new Neo4jError(Neo4jStatus.Transaction.MAXIMUM_TRANSACTION_LIMIT_REACHED,
                "Unable to start new transaction since limit of concurrently executed transactions is reached."
                        + " See sluice's limit on open explicit transactions (" + max + ").");
    }

    /** After {@link #close}: the transaction, if there was one, was rolled back. */
    static Neo4jError closed() {
        return new Neo4jError(Neo4jStatus.General.DATABASE_UNAVAILABLE,
                "sluice is shutting down: open transactions have been rolled back and no new one can begin");
    }

    /** When a transaction released now expires: now plus the idle timeout. */
    public Instant expires() {
        return time.now().plus(options.idleTimeout());
    }

    /** Rolls {@code e} back and gives its place at the gate back. */
    private void end(Entry e) {
        try {
            e.tx.rollback();
        } finally {
            leave(e);
        }
    }

    /** Gives {@code e}'s place at the gate back, if it took one. */
    private void leave(Entry e) {
        if (e.gated) {
            gate.leave();
        }
    }

    /** Forgets {@code e} (finished, failed): its id is unknown from now on; its place at the gate is given back. */
    private void forget(Entry e) {
        leave(e);
        lock.lock();
        try {
            open.remove(e.id, e);
            released.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Releases {@code e} to idle, its idle clock restarted; after {@link #close}, rolls it back instead. */
    private void release(Entry e) {
        boolean rollBack;
        lock.lock();
        try {
            e.held = false;
            e.deadline = time.nanos() + options.idleTimeout().toNanos();
            rollBack = closed;
        } finally {
            lock.unlock();
        }
        if (rollBack) {
            end(e); // before close hears of it, so the sink is not closed under a rollback
            lock.lock();
            try {
                open.remove(e.id, e);
                released.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    private static final class Entry {
        final String id;
        final Object owner;
        final Sink.OpenTx tx;
        final boolean gated; // holds a place at the gate
        boolean held; // guarded by the registry's lock
        long deadline; // guarded by the registry's lock; Time.nanos()

        Entry(String id, Object owner, Sink.OpenTx tx, boolean gated) {
            this.id = id;
            this.owner = owner;
            this.tx = tx;
            this.gated = gated;
        }
    }

    /**
     * One request's hold on a transaction: run statements, then commit, roll back, or close to leave it open
     * (which restarts its idle clock). A failing statement rolls the transaction back and forgets it.
     */
    public final class Held implements AutoCloseable {
        private final Entry entry;
        private boolean finished;

        private Held(Entry entry) {
            this.entry = entry;
        }

        public String id() {
            return entry.id;
        }

        /** When the transaction expires if left idle after this request (wall clock, for the response). */
        public Instant expires() {
            return TxRegistry.this.expires();
        }

        public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
            if (finished) {
                throw new IllegalStateException("transaction " + entry.id + " already finished by this request");
            }
            try {
                return entry.tx.run(cypher, params);
            } catch (GraphException | RuntimeException e) {
                finished = true;
                entry.tx.rollback(); // the sink has already, for a GraphException; a bug's exception too
                forget(entry);
                throw e;
            }
        }

        public void commit() throws GraphException {
            finish();
            try {
                entry.tx.commit();
            } finally {
                forget(entry); // only now: close() waits for a commit in progress
            }
        }

        public void rollback() {
            finish();
            try {
                entry.tx.rollback();
            } finally {
                forget(entry);
            }
        }

        /** Rolls back because the client went. */
        public void abandon() {
            finish();
            try {
                entry.tx.abandon();
            } finally {
                forget(entry);
            }
        }

        private void finish() {
            if (finished) {
                throw new IllegalStateException("transaction " + entry.id + " already finished by this request");
            }
            finished = true;
        }

        /** Leaves the transaction open for the next request, unless it has finished. */
        @Override
        public void close() {
            if (!finished) {
                finished = true;
                release(entry);
            }
        }
    }
}
