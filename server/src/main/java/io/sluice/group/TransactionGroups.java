package io.sluice.group;

import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.txn.TxRegistry;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.StatementResult;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drivers' managed write transactions group-committed: many clients' transactions share one real Neo4j
 * transaction, and one commit.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Serial inside a group.</b> A group is one Neo4j transaction in which its members' statements run one at a
 *       time, in the order members take the group's <i>turn</i>. A member is answered as its statement runs (the
 *       driver needs the records and counters before it sends COMMIT); its COMMIT is answered only when the group
 *       commits. Every member therefore reads the state its predecessors in the group left, which is the state a
 *       serial execution in that order gives, and nothing it read can be undone without undoing it too.</li>
 *   <li><b>Never interleaved.</b> A member whose shape (its first statement's text) is not known to take more than
 *       one statement gives the turn up after each statement; if it then sends another statement after someone else
 *       ran, that statement would see the other's writes between its own: the group is <i>aborted</i> (cause
 *       {@code interleaved}) and the shape is remembered, so that its later members keep the turn from their first
 *       statement to their COMMIT. A member that keeps the turn and stays silent past the member timeout aborts the
 *       group (cause {@code stalled}), as does one that keeps a closed group from committing.</li>
 *   <li><b>Leaving without costing the others.</b> Neo4j has no savepoints. A member that rolls back, whose
 *       statement fails, or whose client goes is <i>taken out</i>: the group's transaction is rolled back and the
 *       other members' statements (each run's text, parameters and answer are logged) run again in a new one, in
 *       their order, each checked to give exactly the answer its member was given. A member whose answer would
 *       differ (it had read or counted the leaver's writes) is taken out too and told {@link #ABORTED}; the
 *       others never learn anything happened, and the group stays equivalent to the remaining members run one after
 *       another. A failing member gets its own error only when nothing of anyone else's was in the transaction;
 *       else {@link #ABORTED} (its error may have come from work that will not commit), and its retry runs
 *       alone.</li>
 *   <li><b>Aborts.</b> A member silent past the member timeout while it holds the group up, a member that
 *       interleaved, a replay that fails, and a failed commit abort the whole group: every member is told
 *       {@link #ABORTED} at its next message; nothing of the group was committed, and no member was told COMMIT
 *       SUCCESS before the commit.</li>
 *   <li><b>Commit outcome unknown</b> (a remote commit whose connection was lost) is told to every member as the
 *       sink reports it, a commit-outcome-unknown error, never as transient: a retry could apply it twice.</li>
 *   <li><b>When a group closes.</b> One group takes new members (it is <i>open</i>); it is sealed when it has
 *       {@code maxMembers} or when the commit in flight ends, and it closes once no statement of it runs or waits
 *       (an open one also when no closed group is unfinished): at most one closed group waiting for its members'
 *       COMMITs or committing while the next fills, group commit's usual pipeline, sized by the arrival rate
 *       without a timer. A closed group runs no statement (see {@link Phase}); it commits, on the thread of its last
 *       member's COMMIT, once every member has sent COMMIT.</li>
 *   <li><b>Threads.</b> Members call in on their front end's threads and block there; one lock guards every group's
 *       state, never held while Neo4j runs a statement or commits. Waiting for the turn uses one condition per
 *       member (no thundering herd); waiting for the outcome, one per group. The watchdog thread
 *       ({@code sluice-groups-watch}, owned here, stopped by {@link #close}) aborts stalled groups.</li>
 * </ul>
 * Thread-safe. A {@link Member} is one client transaction's, used by one thread at a time.
 */
public final class TransactionGroups implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TransactionGroups.class);

    /** What a member aborted by its group is told: transient, retried by every driver's managed transactions. */
    public static final String ABORTED = Neo4jStatus.Transaction.OUTDATED;

    /** Why a group was aborted, as the metrics count it. */
    public enum Cause {
        ROLLBACK, FAILED, STALLED, INTERLEAVED, DISCONNECTED, COMMIT_FAILED, SHUTDOWN,
        /** A member whose results were not the same when its group was replayed without one that left. */
        REPLAY_MISMATCH;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** {@code maxMembers}: members a group takes at most; {@code memberTimeout}: how long a member may keep it waiting. */
    public record Options(int maxMembers, Duration memberTimeout) {
        public Options {
            if (maxMembers < 1 || !memberTimeout.isPositive()) {
                throw new IllegalArgumentException("a group takes >= 1 member and the member timeout is positive, got "
                        + maxMembers + " and " + memberTimeout);
            }
        }
    }

    /** What the groups report (metrics). Called without the lock held... or with it: keep it cheap and lock-free. */
    public interface Listener {
        Listener NONE = new Listener() {};

        /** A group committed: its members and statements, and the commit's duration. */
        default void committed(int members, int statements, long commitNanos) {}

        /** A group aborted: its members, and why. */
        default void aborted(int members, Cause cause) {}

        /** A member taken out of its group, and why (the others were replayed, or kept what ran). */
        default void evicted(Cause cause) {}

        /** Statements run again by a replay. */
        default void replayed(int statements) {}
    }

    /** How many statement shapes are remembered as taking more than one statement before the memory is cleared. */
    private static final int SHAPES = 10_000;

    private final Sink sink;
    private final TxRegistry.Gate gate;
    private final Options options;
    private final Time time;
    private final Listener listener;
    private final ReentrantLock lock = new ReentrantLock();
    private final Set<String> multiStatement = ConcurrentHashMap.newKeySet();
    private final List<Group> live = new ArrayList<>(); // guarded by lock: open and closed, not finished
    private Group open; // guarded by lock: the group taking members, if any
    private int closedUnfinished; // guarded by lock
    private long nextGroup; // guarded by lock
    private boolean shutdown; // guarded by lock
    private final Thread watchdog;

    private TransactionGroups(Sink sink, TxRegistry.Gate gate, Options options, Time time, Listener listener,
            ThreadFactory threads) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.gate = Objects.requireNonNull(gate, "gate");
        this.options = Objects.requireNonNull(options, "options");
        this.time = Objects.requireNonNull(time, "time");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.watchdog = threads.newThread(this::watch);
    }

    /** Groups over {@code sink}, each holding one place of {@code gate} while its transaction is open; watching. */
    public static TransactionGroups start(Sink sink, TxRegistry.Gate gate, Options options, Time time,
            Listener listener, ThreadFactory threads) {
        TransactionGroups g = new TransactionGroups(sink, gate, options, time, listener, threads);
        g.watchdog.start();
        return g;
    }

    /** A new client transaction, in no group until its first statement. */
    public Member member() {
        return new Member();
    }

    /** Whether transactions starting with {@code cypher} have been seen to take more than one statement. */
    public boolean multiStatement(String cypher) {
        return multiStatement.contains(cypher);
    }

    /** Groups not finished (open or closed): for tests and the status page. */
    public int live() {
        lock.lock();
        try {
            return live.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * OPEN takes members; SEALED takes none (it is full, or the commit before it finished) but its members' statements
     * still run; CLOSED runs no statement any more (it closes only when none runs or waits for the turn, and no one
     * keeps the turn), so it can never wait for a lock: it waits only for its members' COMMITs, which the watchdog
     * bounds, then commits. That is what keeps groups from waiting on each other where Neo4j cannot see it: a later
     * group may wait for a closed one's locks, and a closed one waits for nothing but its clients.
     */
    private enum Phase { OPEN, SEALED, CLOSED, COMMITTING, COMMITTED, ABORTED }

    /** One Neo4j transaction and its members. Guarded by the lock, except {@link #tx}, used by the turn's holder. */
    private final class Group {
        final long id = nextGroup++;
        final List<Member> members = new ArrayList<>();
        final ArrayDeque<Member> waiting = new ArrayDeque<>();
        final Condition done = lock.newCondition();
        Phase phase = Phase.OPEN;
        Sink.OpenTx tx; // begun by the first member to run, while it holds the turn
        boolean entered; // holds a place of the gate
        Member turn;
        Member last; // who ran the last statement
        boolean running;
        boolean rolledBack;
        int statements;
        /** Every statement run in {@link #tx} so far, in order: what a replay runs again. */
        List<Executed> log = new ArrayList<>();
        Neo4jError abort; // what aborted members are told; set with phase ABORTED
        Cause cause;
        Member culprit;

        boolean finished() {
            return phase == Phase.COMMITTED || phase == Phase.ABORTED;
        }
    }

    /** A statement run in a group's transaction, by whom, and what its member was answered. */
    private record Executed(Member member, String cypher, Map<String, Object> params, StatementResult result) {}

    /**
     * One client transaction's membership. {@link #run} its statements, then {@link #commit} or {@link #rollback};
     * after an error from either it is finished (the group rolled it back). Used by one thread at a time.
     */
    public final class Member {
        private final Condition wake = lock.newCondition();
        private Group group; // guarded by lock
        private boolean ran; // guarded by lock
        private boolean holding; // guarded by lock: keeps the turn to its COMMIT
        private boolean committing; // guarded by lock
        private long lastActivity; // guarded by lock
        private Neo4jError evicted; // guarded by lock: taken out of its group (a replay), and what it is told
        private String shape; // guarded by lock: its first statement's text, what multiStatement knows it by

        private Member() {}

        /**
         * Runs a statement in this member's group (joining the open one at its first), when its turn comes. Throws
         * the statement's own error, or {@link #ABORTED} when the group was aborted (by this statement's failure when
         * others' writes preceded it, or by anyone before).
         */
        public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
            Group g;
            boolean first = false;
            Sink.OpenTx interleaved = null;
            boolean abortedNow = false;
            lock.lock();
            try {
                if (group == null) {
                    join(cypher);
                }
                g = group;
                if (evicted != null) { // before the group's state: taken out, it was not in what committed
                    throw new GraphException(evicted, null);
                }
                failIfFinished(g);
                if (g.phase == Phase.CLOSED) { // closed groups run nothing more (see Phase): a late statement
                    learn(shape);
                    interleaved = abort(g, Cause.INTERLEAVED, this);
                    abortedNow = true;
                } else if (ran && !holding) {
                    learn(shape);
                    if (g.last != this || (g.turn != null && g.turn != this)) {
                        // someone ran since this member's last statement: running this one after it would interleave
                        interleaved = abort(g, Cause.INTERLEAVED, this);
                        abortedNow = true;
                    } else {
                        holding = true;
                    }
                }
                if (!abortedNow) {
                    awaitTurn(g);
                    g.running = true;
                    first = g.statements == 0;
                }
            } finally {
                lock.unlock();
            }
            if (abortedNow) {
                rollbackNow(interleaved); // outside the lock: Neo4j's rollback may take a while
                throw aborted(g);
            }
            StatementResult result = null;
            GraphException failure = null;
            try {
                if (g.tx == null) {
                    begin(g);
                }
                result = g.tx.run(cypher, params);
            } catch (GraphException e) {
                failure = e;
            } catch (RuntimeException | Error e) {
                failure = new GraphException(Neo4jError.unknown("a grouped statement failed: " + e), null);
            }
            Sink.OpenTx rollback = null;
            boolean abortedMeanwhile = false;
            lock.lock();
            try {
                g.running = false;
                g.statements++;
                g.last = this;
                ran = true;
                lastActivity = time.nanos();
                if (evicted != null && failure == null && g.phase != Phase.ABORTED) {
                    // taken out while its statement ran (its client went): the turn goes to the replay waiting
                    passTurn(g);
                    throw new GraphException(evicted, null);
                }
                if (failure != null) {
                    // Neo4j's transaction is unusable after a failed statement: the others' statements are replayed
                    // in a new one below, this member's left out, while it still holds the turn (aborted meanwhile:
                    // nothing to replay, the transaction is this member's to roll back)
                    if (g.phase == Phase.ABORTED) {
                        rollback = takeRollback(g);
                    }
                } else if (g.phase == Phase.ABORTED) {
                    abortedMeanwhile = true;
                    rollback = takeRollback(g); // aborted while this statement ran
                } else {
                    g.log.add(new Executed(this, cypher, params, result));
                    if (!holding) {
                        passTurn(g);
                    }
                    maybeClose(g);
                }
            } finally {
                lock.unlock();
            }
            rollbackNow(rollback);
            if (failure != null) {
                // its error is its own only when nothing of anyone else's was in the transaction; else it may have
                // come from work that will never commit (a member that rolls back later): it is retried, alone
                evictAndReplay(g, this, Cause.FAILED, true);
                throw first ? failure : new GraphException(new Neo4jError(ABORTED, "this transaction ran in a"
                        + " group with others, and its statement failed there: " + failure.error().message()
                        + " (retry it: the retry runs alone)"), null);
            }
            if (abortedMeanwhile) {
                throw aborted(g);
            }
            return result;
        }

        /**
         * Commits: waits for the group's commit (nothing to do when nothing ran). Throws {@link #ABORTED} when the
         * group was aborted, or the commit's own error (commit outcome unknown included).
         */
        public void commit() throws GraphException {
            Group g;
            boolean leader = false;
            lock.lock();
            try {
                g = group;
                if (g == null) {
                    return; // nothing ran: nothing to commit
                }
                if (evicted != null) {
                    throw new GraphException(evicted, null);
                }
                failIfFinished(g);
                committing = true;
                lastActivity = time.nanos();
                if (g.turn == this) {
                    passTurn(g);
                }
                maybeClose(g);
                while (!g.finished() && evicted == null) {
                    if (readyToCommit(g)) {
                        g.phase = Phase.COMMITTING;
                        leader = true;
                        break;
                    }
                    g.done.awaitUninterruptibly();
                }
            } finally {
                lock.unlock();
            }
            if (leader) {
                commitGroup(g);
            }
            lock.lock();
            try {
                if (evicted != null) {
                    throw new GraphException(evicted, null);
                }
                if (g.phase == Phase.ABORTED) {
                    throw aborted(g);
                }
            } finally {
                lock.unlock();
            }
        }

        /**
         * Rolls back (ROLLBACK, RESET, a client gone): aborts the group unless this member ran nothing or the group
         * already finished. Returns whether it aborted a group (the caller's demotion counts it). Never throws.
         */
        public boolean rollback(boolean disconnected) {
            Group g;
            lock.lock();
            try {
                g = group;
                if (g == null || g.finished() || evicted != null) {
                    return false;
                }
                if (!ran && !(g.turn == this && g.running)) {
                    leave(g);
                    return false;
                }
            } finally {
                lock.unlock();
            }
            // its statements are in the group's transaction: replayed without them; the others go on
            evictAndReplay(g, this, disconnected ? Cause.DISCONNECTED : Cause.ROLLBACK, false);
            return true;
        }

        /** Whether this member's group was aborted by this member (its rollback, failure, stall, interleaving). */
        public boolean abortedGroup() {
            lock.lock();
            try {
                return group != null && group.phase == Phase.ABORTED && group.culprit == this;
            } finally {
                lock.unlock();
            }
        }

        /** Joins the open group, opening one if none (under the lock). */
        private void join(String cypher) throws GraphException {
            if (shutdown) {
                throw new GraphException(new Neo4jError(Neo4jStatus.General.DATABASE_UNAVAILABLE,
                        "sluice is shutting down"), null);
            }
            Group g = open;
            if (g == null) {
                g = new Group();
                open = g;
                live.add(g);
            }
            g.members.add(this);
            group = g;
            shape = cypher;
            holding = multiStatement.contains(shape);
            if (g.members.size() >= options.maxMembers()) {
                seal(g);
            }
        }

        /** Waits (under the lock) until this member has the turn, or throws when the group aborts meanwhile. */
        private void awaitTurn(Group g) throws GraphException {
            if (g.turn == null && g.waiting.isEmpty()) {
                g.turn = this;
            } else if (g.turn != this) {
                g.waiting.add(this);
                while (g.turn != this && g.phase != Phase.ABORTED && evicted == null) {
                    wake.awaitUninterruptibly();
                }
                g.waiting.remove(this);
            }
            if (evicted != null) {
                if (g.turn == this) {
                    passTurn(g);
                }
                throw new GraphException(evicted, null);
            }
            if (g.phase == Phase.ABORTED) {
                throw aborted(g);
            }
            lastActivity = time.nanos();
        }

        /** A member that ran nothing leaves its group (a ROLLBACK before any statement ran). */
        private void leave(Group g) {
            evicted = new Neo4jError(ABORTED, "this transaction left its group");
            wake.signal(); // a statement of its waiting for the turn (its client gone under it) gives up
            g.members.remove(this);
            g.waiting.remove(this);
            if (g.turn == this) {
                passTurn(g);
            }
            if (g.members.isEmpty() && g.statements == 0) {
                finish(g, Phase.COMMITTED); // nothing ran in it; nothing to commit
                return;
            }
            maybeClose(g);
            if (readyToCommit(g)) {
                g.done.signalAll(); // the others have all sent COMMIT: one of them leads
            }
        }
    }

    /**
     * Takes {@code culprit} (which rolled back, failed or lost its client) out of {@code g} and, if anything of its
     * ran, rolls the group's transaction back and runs the others' statements again in a new one, in their order,
     * holding the turn ({@code haveTurn}: the culprit holds it already). A statement whose result differs from what
     * its member was answered (it had read or counted the culprit's writes) evicts that member too (told
     * {@link #ABORTED}: it retries), and the replay starts over without it. So the group stays equivalent to its
     * remaining members run one after another, each answered exactly what that order gives. A closed group goes
     * back to sealed while it replays (it must not wait on locks while closed: see {@link Phase}). A replay that
     * fails (a deadlock with another group, Neo4j away) aborts the group. Returns whether every other member kept
     * its answers. Blocks (the turn; Neo4j); called without the lock.
     */
    private boolean evictAndReplay(Group g, Member culprit, Cause cause, boolean haveTurn) {
        Member token = haveTurn ? culprit : new Member();
        lock.lock();
        try {
            if (g.finished() || g.phase == Phase.COMMITTING) {
                return false;
            }
            culprit.evicted = new Neo4jError(ABORTED, "this transaction was taken out of its group");
            culprit.wake.signal();
            g.members.remove(culprit);
            g.waiting.remove(culprit);
            // a statement of its may still be running (its client gone under it): that is in the transaction too
            boolean wrote = cause == Cause.FAILED || g.turn == culprit && g.running
                    || g.log.stream().anyMatch(e -> e.member() == culprit);
            if (!wrote) {
                if (g.turn == culprit) {
                    passTurn(g);
                }
                if (g.members.isEmpty() && g.statements == 0) {
                    finish(g, Phase.COMMITTED); // nothing ran in it; nothing to commit
                    return true;
                }
                maybeClose(g);
                g.done.signalAll();
                return true;
            }
            boolean reopened = g.phase == Phase.CLOSED; // quiet when closed: the turn below is free at once
            if (reopened) {
                g.phase = Phase.SEALED;
                closedUnfinished--;
            }
            if (!haveTurn) {
                if (g.turn == culprit && !g.running) {
                    g.turn = token;
                } else if (g.turn == null && g.waiting.isEmpty()) {
                    g.turn = token;
                } else {
                    g.waiting.addFirst(token);
                    while (g.turn != token && !g.finished()) {
                        token.wake.awaitUninterruptibly();
                    }
                    g.waiting.remove(token);
                    if (g.finished()) {
                        return false;
                    }
                }
            }
            g.running = true;
            if (reopened) {
                // only now, running: the others may close and commit meanwhile, but not this group under the replay
                commitSlotFreed();
            }
        } finally {
            lock.unlock();
        }
        boolean keptAll = true;
        int replayed = 0;
        Neo4jError failed = null;
        List<Executed> kept = new ArrayList<>();
        while (true) {
            kept.clear();
            Member mismatch = null;
            try {
                if (g.tx != null) {
                    g.tx.rollback();
                }
                g.tx = null;
                List<Executed> log;
                lock.lock();
                try {
                    log = List.copyOf(g.log);
                } finally {
                    lock.unlock();
                }
                for (Executed e : log) {
                    if (e.member().evicted != null) {
                        continue;
                    }
                    if (g.tx == null) {
                        g.tx = sink.begin(true);
                    }
                    StatementResult again = g.tx.run(e.cypher(), e.params());
                    replayed++;
                    if (!again.equals(e.result())) {
                        mismatch = e.member();
                        break;
                    }
                    kept.add(e);
                }
            } catch (GraphException e) {
                failed = e.error();
            } catch (RuntimeException e) {
                failed = Neo4jError.unknown("a group's replay failed: " + e);
            }
            if (failed != null || mismatch == null) {
                break;
            }
            keptAll = false;
            lock.lock();
            try {
                mismatch.evicted = new Neo4jError(ABORTED, "this transaction's group was replayed without one that"
                        + " rolled back, and its results were not the same without it: nothing of it was committed;"
                        + " retry it");
                g.members.remove(mismatch);
                g.waiting.remove(mismatch);
                if (g.turn == mismatch) {
                    g.turn = token;
                }
                listener.evicted(Cause.REPLAY_MISMATCH);
            } finally {
                lock.unlock();
            }
        }
        Sink.OpenTx rollback = null;
        lock.lock();
        try {
            g.running = false;
            listener.evicted(cause);
            listener.replayed(replayed);
            if (g.phase == Phase.ABORTED) { // aborted meanwhile (shutdown, a stall): this replay's to roll back
                rollback = takeRollback(g);
                return false;
            }
            if (failed != null) {
                g.rolledBack = false;
                rollback = abort(g, cause, culprit);
                return false;
            }
            g.log = new ArrayList<>(kept);
            g.statements = kept.size();
            g.last = kept.isEmpty() ? null : kept.getLast().member();
            if (g.turn == token) {
                passTurn(g);
            }
            if (g.members.isEmpty() && kept.isEmpty()) {
                finish(g, Phase.COMMITTED); // no one left, nothing kept: its place goes back
                return keptAll;
            }
            maybeClose(g);
            g.done.signalAll(); // members evicted while waiting for the commit learn it
        } finally {
            lock.unlock();
            rollbackNow(rollback);
        }
        return keptAll;
    }

    /** Remembers that transactions starting with {@code shape} take more than one statement (bounded memory). */
    private void learn(String shape) {
        if (multiStatement.size() >= SHAPES) {
            multiStatement.clear(); // rare: that many shapes of several statements; each costs one abort to relearn
        }
        multiStatement.add(shape);
    }

    /** Throws when the group is finished (aborted: the abort's error; committed: a bug of the caller's). */
    private GraphException aborted(Group g) {
        return new GraphException(g.abort != null ? g.abort : new Neo4jError(ABORTED, "the group was aborted"), null);
    }

    private void failIfFinished(Group g) throws GraphException {
        if (g.phase == Phase.ABORTED) {
            throw aborted(g);
        }
        if (g.phase == Phase.COMMITTED) {
            throw new GraphException(Neo4jError.invalid("the transaction has been committed"), null);
        }
    }

    /** Begins the group's transaction (the first member to run, holding the turn, without the lock). */
    private void begin(Group g) throws GraphException {
        boolean enter;
        lock.lock();
        try {
            enter = !g.entered;
        } finally {
            lock.unlock();
        }
        if (enter) { // once per group: a replay's new transaction takes the same place
            gate.enter();
            lock.lock();
            try {
                if (g.finished()) { // aborted meanwhile (shutdown): its place is not ours to keep
                    gate.leave();
                    throw aborted(g);
                }
                g.entered = true;
            } finally {
                lock.unlock();
            }
        }
        g.tx = sink.begin(true);
    }

    /** Gives the turn to the next waiting member, if any (under the lock). */
    private void passTurn(Group g) {
        Member next = g.waiting.poll();
        g.turn = next;
        if (next != null) {
            next.wake.signal();
        }
    }

    /** Stops {@code g} taking members (under the lock): the next member to come opens a new group. */
    private void seal(Group g) {
        if (g.phase == Phase.OPEN) {
            g.phase = Phase.SEALED;
        }
        if (open == g) {
            open = null;
        }
    }

    /**
     * Closes {@code g} (under the lock) once no statement of it runs or waits: a sealed one then, an open one when no
     * closed group is unfinished (one commit at a time while the next group fills: group commit's pipeline) or it
     * is full.
     */
    private void maybeClose(Group g) {
        if ((g.phase == Phase.OPEN || g.phase == Phase.SEALED) && g.statements > 0 && !g.running && g.turn == null
                && g.waiting.isEmpty() && (g.phase == Phase.SEALED || closedUnfinished == 0
                || g.members.size() >= options.maxMembers())) {
            seal(g);
            g.phase = Phase.CLOSED;
            closedUnfinished++;
            if (readyToCommit(g)) {
                g.done.signalAll(); // every member has sent COMMIT already: one of them leads
            }
        }
    }

    private boolean readyToCommit(Group g) {
        if (g.phase != Phase.CLOSED) {
            return false;
        }
        for (Member m : g.members) {
            if (!m.committing) {
                return false;
            }
        }
        return true;
    }

    /** Commits the group's transaction (its leader, without the lock), then tells every member. */
    private void commitGroup(Group g) {
        long start = time.nanos();
        Neo4jError failure = null;
        if (g.tx != null) {
            try {
                g.tx.commit();
            } catch (GraphException e) {
                failure = e.error();
            } catch (RuntimeException e) { // not the sink's answer: whether it committed is not known
                failure = Neo4jError.commitOutcomeUnknown("the group's commit failed: " + e);
            }
        }
        long took = time.nanos() - start;
        lock.lock();
        try {
            if (failure == null) {
                finish(g, Phase.COMMITTED);
                listener.committed(g.members.size(), g.statements, took);
            } else {
                g.rolledBack = true; // a failed commit leaves it rolled back (or, outcome unknown, not ours to undo)
                g.abort = failure.isCommitOutcomeUnknown() ? failure : new Neo4jError(ABORTED,
                        "the group this transaction ran in failed to commit: " + failure.message() + " (retry it)");
                g.cause = Cause.COMMIT_FAILED;
                finish(g, Phase.ABORTED);
                listener.aborted(g.members.size(), Cause.COMMIT_FAILED);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Aborts {@code g} (under the lock) for {@code cause}, blaming {@code culprit}; returns the transaction the caller
     * must roll back once it has released the lock (null: nothing, or the running statement's member will).
     */
    private Sink.OpenTx abort(Group g, Cause cause, Member culprit) {
        if (g.finished() || g.phase == Phase.COMMITTING) {
            return null;
        }
        g.abort = new Neo4jError(ABORTED, switch (cause) {
            case ROLLBACK -> "another transaction in this one's group rolled back";
            case FAILED -> "another transaction in this one's group failed";
            case STALLED -> "another transaction in this one's group kept it waiting past "
                    + options.memberTimeout().toMillis() + " ms";
            case INTERLEAVED -> "a transaction of more than one statement ran in this one's group";
            case DISCONNECTED -> "another transaction in this one's group lost its client";
            case COMMIT_FAILED -> "the group's commit failed";
            case REPLAY_MISMATCH -> "the group was replayed and its results changed";
            case SHUTDOWN -> "sluice is shutting down";
        } + ": nothing of it was committed; retry it");
        g.cause = cause;
        g.culprit = culprit;
        Sink.OpenTx tx = takeRollback(g);
        finish(g, Phase.ABORTED);
        listener.aborted(g.members.size(), cause);
        return tx;
    }

    /** The transaction to roll back now, unless a statement still runs in it (its member rolls it back after). */
    private Sink.OpenTx takeRollback(Group g) {
        if (g.running || g.rolledBack) {
            return null;
        }
        g.rolledBack = true;
        return g.tx;
    }

    private static void rollbackNow(Sink.OpenTx tx) {
        if (tx != null) {
            tx.rollback();
        }
    }

    /** Ends {@code g} (under the lock): wakes its members, gives its place back, closes the next group if due. */
    private void finish(Group g, Phase phase) {
        boolean wasClosed = g.phase == Phase.CLOSED || g.phase == Phase.COMMITTING;
        g.phase = phase;
        if (open == g) {
            open = null;
        }
        if (wasClosed) {
            closedUnfinished--;
        }
        live.remove(g);
        if (g.entered) {
            g.entered = false;
            gate.leave();
        }
        g.done.signalAll();
        for (Member m : g.waiting) {
            m.wake.signal();
        }
        commitSlotFreed();
    }

    /** No closed group left unfinished (under the lock): the group that filled meanwhile seals, and closes once quiet. */
    private void commitSlotFreed() {
        if (closedUnfinished == 0) {
            if (open != null && open.statements > 0) {
                seal(open);
            }
            for (Group other : List.copyOf(live)) {
                maybeClose(other);
            }
        }
    }

    /** The watchdog: aborts groups a member keeps waiting past the member timeout. */
    private void watch() {
        long timeout = options.memberTimeout().toNanos();
        long every = Math.max(TimeUnit.MILLISECONDS.toNanos(5), timeout / 4);
        while (true) {
            List<Sink.OpenTx> rollbacks = new ArrayList<>();
            lock.lock();
            try {
                if (shutdown) {
                    return;
                }
                long now = time.nanos();
                for (Group g : List.copyOf(live)) {
                    if (g.running || g.phase == Phase.COMMITTING) {
                        continue;
                    }
                    for (Member m : g.members) {
                        // keeping the turn holds up the group, and its locks hold up everyone: whoever is there
                        boolean blocking = g.turn == m || g.phase == Phase.CLOSED;
                        if (m.ran && !m.committing && blocking && now - m.lastActivity > timeout) {
                            Sink.OpenTx tx = abort(g, Cause.STALLED, m);
                            if (tx != null) {
                                rollbacks.add(tx);
                            }
                            break;
                        }
                    }
                }
            } finally {
                lock.unlock();
            }
            try {
                rollbacks.forEach(TransactionGroups::rollbackNow);
            } catch (RuntimeException e) { // a pass that failed must not end the watch
                log.warn("rolling back a stalled group failed: {}", e.toString(), e);
            }
            try {
                TimeUnit.NANOSECONDS.sleep(every); // a cadence, not a synchronisation: stalls are found within it
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Aborts every unfinished group (their members are told to retry) and stops the watchdog. */
    @Override
    public void close() {
        List<Sink.OpenTx> rollbacks = new ArrayList<>();
        lock.lock();
        try {
            shutdown = true;
            for (Group g : List.copyOf(live)) {
                Sink.OpenTx tx = abort(g, Cause.SHUTDOWN, null);
                if (tx != null) {
                    rollbacks.add(tx);
                }
            }
        } finally {
            lock.unlock();
        }
        rollbacks.forEach(TransactionGroups::rollbackNow);
        watchdog.interrupt();
        try {
            watchdog.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.debug("transaction groups closed");
    }
}
