package io.sluice.group;

import io.sluice.group.Group.Seat;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.txn.TxRegistry;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The groups' shared state and their phase table: the one lock, every live group, the one taking members, how many
 * hold the commit slot, and every move between phases ({@link #move}, as {@link Phase}'s table allows: nothing else
 * sets a phase, and the counts follow the moves). The other parts (the statements, the commit, the replay, the
 * watchdog) act through it. Methods that say "under the lock" are called with {@link #lock} held; the rest take it.
 */
final class Groups {
    /** How many statement shapes are remembered as taking more than one statement before the memory is cleared. */
    private static final int SHAPES = 10_000;

    final ReentrantLock lock = new ReentrantLock();
    /** Signalled when the groups shut down: the watchdog's wait ends. */
    final Condition stopping = lock.newCondition();
    final Sink sink;
    final TxRegistry.Gate gate;
    final Options options;
    final Time time;
    final Listener listener;
    private final Set<String> multiStatement = ConcurrentHashMap.newKeySet();
    private final List<Group> live = new ArrayList<>(); // guarded by lock: not finished, oldest first; by move alone
    private final int[] inPhase = new int[Phase.values().length]; // guarded by lock: live groups per phase; by move
    private Group open; // guarded by lock: the group in OPEN, if any; by move alone
    private long nextGroup; // guarded by lock
    private boolean shutdown; // guarded by lock

    Groups(Sink sink, TxRegistry.Gate gate, Options options, Time time, Listener listener) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.gate = Objects.requireNonNull(gate, "gate");
        this.options = Objects.requireNonNull(options, "options");
        this.time = Objects.requireNonNull(time, "time");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    // ---- the phase table ----

    /** Moves {@code g} to {@code to} (under the lock), as {@link Phase}'s table allows; refuses any other move. */
    void move(Group g, Phase to) {
        Phase from = g.phase;
        if (!from.mayMoveTo(to)) {
            throw new IllegalStateException("group " + g.id + " may not move from " + from + " to " + to);
        }
        inPhase[from.ordinal()]--;
        g.phase = to;
        if (from == Phase.OPEN) {
            open = null;
        }
        if (to.finished()) {
            live.remove(g);
        } else {
            inPhase[to.ordinal()]++;
        }
    }

    /** Groups holding the commit slot (under the lock): closed and not finished. */
    int closedUnfinished() {
        return inPhase[Phase.CLOSED.ordinal()] + inPhase[Phase.COMMITTING.ordinal()];
    }

    /** Seats {@code s} in the open group, opening one if none (under the lock): its first statement is {@code cypher}. */
    void join(Seat s, String cypher) throws GraphException {
        if (shutdown) {
            throw new GraphException(new Neo4jError(Neo4jStatus.General.DATABASE_UNAVAILABLE,
                    "sluice is shutting down"), null);
        }
        Group g = open;
        if (g == null) {
            g = new Group(nextGroup++, lock.newCondition());
            inPhase[Phase.OPEN.ordinal()]++;
            live.add(g);
            open = g;
        }
        g.members.add(s);
        s.group = g;
        s.shape = cypher;
        s.holding = multiStatement.contains(cypher);
        if (g.members.size() >= options.maxMembers()) {
            seal(g);
        }
    }

    /** Stops {@code g} taking members (under the lock): the next member to come opens a new group. */
    void seal(Group g) {
        if (g.phase == Phase.OPEN) {
            move(g, Phase.SEALED);
        }
    }

    /**
     * Closes {@code g} (under the lock) once no statement of it runs or waits: a sealed one then, an open one when no
     * closed group is unfinished (one commit at a time while the next group fills: group commit's pipeline) or it
     * is full.
     */
    void maybeClose(Group g) {
        if (g.phase.running() && g.statements > 0 && g.turn.quiet() && (g.phase == Phase.SEALED
                || closedUnfinished() == 0 || g.members.size() >= options.maxMembers())) {
            seal(g);
            move(g, Phase.CLOSED);
            if (readyToCommit(g)) {
                g.done.signalAll(); // every member has sent COMMIT already: one of them leads
            }
        }
    }

    /**
     * Closes {@code g} (under the lock) if it runs nothing and every member has sent COMMIT, whatever commit is in
     * flight; whether it did. What the watchdog does to the group behind a commit that waits too long (see
     * {@link Watchdog}).
     */
    boolean closeReady(Group g) {
        if (!g.phase.running() || g.statements == 0 || !g.turn.quiet() || !allCommitting(g)) {
            return false;
        }
        seal(g);
        move(g, Phase.CLOSED);
        g.done.signalAll(); // one of its members leads its commit
        return true;
    }

    /** Whether {@code g} is closed and every member has sent COMMIT (under the lock). */
    boolean readyToCommit(Group g) {
        return g.phase == Phase.CLOSED && allCommitting(g);
    }

    /** Whether every member of {@code g} has sent COMMIT (under the lock). */
    private static boolean allCommitting(Group g) {
        return g.members.stream().allMatch(m -> m.committing);
    }

    /** No closed group left unfinished (under the lock): the group that filled meanwhile seals, and closes once quiet. */
    void commitSlotFreed() {
        if (closedUnfinished() == 0) {
            if (open != null && open.statements > 0) {
                seal(open);
            }
            for (Group other : List.copyOf(live)) {
                maybeClose(other);
            }
        }
    }

    /**
     * Aborts {@code g} (under the lock) for {@code cause}, blaming {@code culprit}; returns the transaction the caller
     * must roll back once it has released the lock (null: nothing, or whoever runs in it will). A finished or
     * committing group is left as it is.
     */
    Sink.OpenTx abort(Group g, Cause cause, Seat culprit) {
        if (g.finished() || g.phase == Phase.COMMITTING) {
            return null;
        }
        g.abort = new Neo4jError(Cause.ABORTED, switch (cause) {
            case ROLLBACK -> "another transaction in this one's group rolled back";
            case FAILED -> "another transaction in this one's group failed";
            case STALLED -> "another transaction in this one's group kept it waiting past "
                    + options.memberTimeout().toMillis() + " ms";
            case INTERLEAVED -> "a transaction of more than one statement ran in this one's group";
            case DISCONNECTED -> "another transaction in this one's group lost its client";
            case COMMIT_FAILED -> "the group's commit failed";
            case REPLAY_MISMATCH -> "the group was replayed and its results changed";
            case SHUTDOWN -> "sluice is shutting down";
            case DEADLOCK -> "the group's transaction met a deadlock and could not run again";
        } + ": nothing of it was committed; retry it");
        g.cause = cause;
        g.culprit = culprit;
        Sink.OpenTx tx = takeRollback(g);
        finish(g, Phase.ABORTED);
        listener.aborted(g.members.size(), cause);
        return tx;
    }

    /** The transaction to roll back now (under the lock), unless a statement still runs in it (its runner will). */
    Sink.OpenTx takeRollback(Group g) {
        if (g.turn.running() || g.rolledBack) {
            return null;
        }
        g.rolledBack = true;
        return g.tx;
    }

    static void rollbackNow(Sink.OpenTx tx) {
        if (tx != null) {
            tx.rollback();
        }
    }

    /** Ends {@code g} (under the lock): wakes its members, gives its place back, closes the next group if due. */
    void finish(Group g, Phase phase) {
        move(g, phase);
        if (g.entered) {
            g.entered = false;
            gate.leave();
        }
        g.done.signalAll();
        g.turn.wakeAll();
        commitSlotFreed();
    }

    /**
     * Waits until {@code g} finishes; whether it committed with every one of {@code members} in it (none taken out).
     * What a failed member waits for before its own error can be its answer.
     */
    boolean committedWith(Group g, Set<Seat> members) {
        lock.lock();
        try {
            while (!g.finished()) {
                g.done.awaitUninterruptibly();
            }
            return g.phase() == Phase.COMMITTED && members.stream().allMatch(m -> m.evicted == null);
        } finally {
            lock.unlock();
        }
    }

    /** What a member of the aborted {@code g} is told. */
    static GraphException aborted(Group g) {
        return new GraphException(g.abort != null ? g.abort
                : new Neo4jError(Cause.ABORTED, "the group was aborted"), null);
    }

    /** Throws when {@code g} is finished (under the lock): aborted, the abort's error; else a bug of the caller's. */
    static void failIfFinished(Group g) throws GraphException {
        if (g.phase == Phase.ABORTED) {
            throw aborted(g);
        }
        if (g.finished()) {
            throw new GraphException(Neo4jError.invalid("the transaction has been committed"), null);
        }
    }

    /**
     * Begins {@code g}'s transaction (whoever holds the turn and runs, without the lock), taking a place of the gate
     * the first time: a replay's new transaction takes the same place.
     */
    void begin(Group g) throws GraphException {
        boolean enter;
        lock.lock();
        try {
            failIfFinished(g); // aborted meanwhile (a stall, shutdown): nothing to begin
            enter = !g.entered;
        } finally {
            lock.unlock();
        }
        if (enter) {
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

    // ---- shapes, shutdown, counts ----

    boolean multiStatement(String cypher) {
        return multiStatement.contains(cypher);
    }

    /** Remembers that transactions starting with {@code shape} take more than one statement (bounded memory). */
    void learn(String shape) {
        if (multiStatement.size() >= SHAPES) {
            multiStatement.clear(); // rare: that many shapes of several statements; each costs one abort to relearn
        }
        multiStatement.add(shape);
    }

    /** Groups not finished. */
    int live() {
        lock.lock();
        try {
            return live.size();
        } finally {
            lock.unlock();
        }
    }

    /** The live groups (under the lock), a copy. */
    List<Group> liveGroups() {
        return List.copyOf(live);
    }

    /** Whether the groups are shutting down (under the lock). */
    boolean stopping() {
        return shutdown;
    }

    /** Refuses new members and aborts every unfinished group (under the lock); returns what to roll back after. */
    List<Sink.OpenTx> shutDown() {
        shutdown = true;
        stopping.signalAll();
        List<Sink.OpenTx> rollbacks = new ArrayList<>();
        for (Group g : List.copyOf(live)) {
            Sink.OpenTx tx = abort(g, Cause.SHUTDOWN, null);
            if (tx != null) {
                rollbacks.add(tx);
            }
        }
        return rollbacks;
    }
}
