package io.sluice.group;

import io.sluice.group.Group.Executed;
import io.sluice.group.Group.Seat;
import io.sluice.sink.Sink;
import io.sluice.time.Jitter;
import io.sluice.txn.Rerunnable;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.StatementResult;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A member's statement: it joins the open group at its first, waits for the turn, runs in the group's transaction
 * without the lock, and is logged (what a replay runs again); one that would interleave with another member's takes
 * its member out (the others replayed), and one that fails takes its member out (the others replayed) and is answered its own error once the
 * members it ran after have committed (a serial execution's answer), or told to retry when one of them did not; one
 * that meets a deadlock runs the group's statements again ({@link Replay#rerun}) and then itself, no one taken out
 * for it. Blocks the caller (the turn; Neo4j; a failed statement, its group's commit).
 */
final class Statements {
    /** How many times one statement's deadlocks re-run its group before the deadlock is its answer. */
    static final int MAX_RERUNS = 10;

    private final Groups groups;
    private final Replay replay;

    Statements(Groups groups, Replay replay) {
        this.groups = groups;
        this.replay = replay;
    }

    /** {@link TransactionGroups.Member#run}. */
    StatementResult run(Seat s, String cypher, Map<String, Object> params) throws GraphException {
        Group g;
        boolean interleaved = false;
        groups.lock.lock();
        try {
            if (s.group == null) {
                groups.join(s, cypher);
            }
            g = s.group;
            if (s.evicted != null) { // before the group's state: taken out, it was not in what committed
                throw new GraphException(s.evicted, null);
            }
            Groups.failIfFinished(g);
            if (interleaves(s, g)) {
                interleaved = true;
            } else {
                awaitTurn(s, g);
                g.turn.running(true);
            }
        } finally {
            groups.lock.unlock();
        }
        if (interleaved) {
            // it alone is taken out (the others replayed without its statements, and it is told to retry: its retry
            // runs alone); its shape is learned, so later ones run alone (the session layer asks multiStatement)
            replay.evictAndReplay(g, s, Cause.INTERLEAVED, false, null);
            throw replay.told(s, g);
        }
        StatementResult result = null;
        GraphException failure = null;
        for (int deadlocks = 0; ; deadlocks++) {
            try {
                if (g.tx == null) {
                    groups.begin(g);
                }
                result = g.tx.run(cypher, params);
                failure = null;
            } catch (GraphException e) {
                failure = e;
            } catch (RuntimeException | Error e) {
                failure = new GraphException(Neo4jError.unknown("a grouped statement failed: " + e), null);
            }
            if (failure == null || !Rerunnable.deadlock(failure) || deadlocks == MAX_RERUNS) {
                break;
            }
            // Neo4j rolled the group's transaction back to break a deadlock with another transaction: nobody's
            // fault in the group, so everyone's statements run again (checked), then this one, still holding the turn,
            // after a pause (the other transaction is usually about to commit)
            if (!Rerunnable.pause(groups.time, Jitter.RANDOM, deadlocks)) {
                break; // interrupted: the deadlock is its answer, as past the bound
            }
            if (!replay.rerun(g, s)) {
                throw leftAfterRerun(s, g);
            }
        }
        Set<Seat> before = failure == null ? Set.of() : othersIn(g, s);
        List<Executed> mine = failure == null ? List.of() : ownIn(g, s);
        ran(s, g, cypher, params, result, failure);
        if (failure != null) {
            replay.evictAndReplay(g, s, Cause.FAILED, true, null);
            if (before.isEmpty()) {
                throw failure; // nothing of anyone else's was in the transaction: its own, as alone
            }
            if (groups.committedWith(g, before)) {
                if (failure.error().isTransient()) {
                    throw failure; // a retry either way (its driver's), as this error tells it
                }
                // what it ran after has committed, but a replay checks answers, not writes: its statements run once
                // more, alone, after that commit (rolled back); the error is its own only if it recurs there,
                // which is what a serial execution after those members answers
                GraphException again = replay.failsAlone(mine, cypher, params, failure);
                if (again != null) {
                    throw again;
                }
            }
            // its error may have come from work that never committed (a member that left after it failed): it is
            // retried, alone
            throw new GraphException(new Neo4jError(Cause.ABORTED, "this transaction ran in a group with others,"
                    + " and its statement failed there after work of theirs that did not commit: "
                    + failure.error().message() + " (retry it: the retry runs alone)"), null);
        }
        return result;
    }

    /** {@code s}'s own statements in {@code g}'s transaction, in order, before its failed one. */
    private List<Executed> ownIn(Group g, Seat s) {
        groups.lock.lock();
        try {
            return g.log.stream().filter(e -> e.member() == s).toList();
        } finally {
            groups.lock.unlock();
        }
    }

    /** The other members whose statements are in {@code g}'s transaction, before {@code s}'s failed one. */
    private Set<Seat> othersIn(Group g, Seat s) {
        groups.lock.lock();
        try {
            Set<Seat> others = Collections.newSetFromMap(new IdentityHashMap<>());
            for (Executed e : g.log) {
                if (e.member() != s) {
                    others.add(e.member());
                }
            }
            return others;
        } finally {
            groups.lock.unlock();
        }
    }

    /**
     * After a re-run that {@code s} did not survive (under the lock): gives the turn up, and says why it ends, its own
     * eviction or its group's abort.
     */
    private GraphException leftAfterRerun(Seat s, Group g) {
        Sink.OpenTx rollback = null;
        groups.lock.lock();
        try {
            g.turn.running(false);
            if (g.finished()) {
                rollback = groups.takeRollback(g);
                return s.evicted != null ? new GraphException(s.evicted, null) : Groups.aborted(g);
            }
            g.turn.pass();
            if (g.members.isEmpty() && g.log.isEmpty()) {
                rollback = g.tx;
                g.tx = null;
                groups.finish(g, Phase.DISSOLVED); // no one left, nothing kept: its place goes back
            } else {
                groups.maybeClose(g);
                g.done.signalAll();
            }
            return new GraphException(s.evicted, null);
        } finally {
            groups.lock.unlock();
            Groups.rollbackNow(rollback);
        }
    }

    /**
     * Whether {@code s}'s statement would interleave with another member's (under the lock): the group is closed
     * (it runs nothing more, see {@link Phase}), or someone ran since {@code s}'s last statement. A member found to
     * take a second statement keeps the turn from then on, and its shape is learned.
     */
    private boolean interleaves(Seat s, Group g) {
        if (g.phase() == Phase.CLOSED) {
            groups.learn(s.shape);
            return true;
        }
        if (s.ran && !s.holding) {
            groups.learn(s.shape);
            if (g.turn.last() != s || g.turn.holder() != null && !g.turn.heldBy(s)) {
                return true;
            }
            s.holding = true;
        }
        return false;
    }

    /** Waits (under the lock) until {@code s} has the turn, or throws when it is taken out or the group aborts. */
    private void awaitTurn(Seat s, Group g) throws GraphException {
        g.turn.await(s, false, () -> g.finished() || s.evicted != null);
        if (s.evicted != null) {
            g.turn.release(s);
            throw new GraphException(s.evicted, null);
        }
        Groups.failIfFinished(g);
        s.lastActivity = groups.time.nanos();
    }

    /**
     * Records {@code s}'s statement that ran (or failed) in {@code g}, and gives the turn on; throws when {@code s}
     * was taken out meanwhile (its client gone) or the group aborted meanwhile. A failed statement keeps the turn: the
     * replay that takes {@code s} out runs with it.
     */
    private void ran(Seat s, Group g, String cypher, Map<String, Object> params, StatementResult result,
            GraphException failure) throws GraphException {
        Sink.OpenTx rollback = null;
        GraphException thrown = null;
        groups.lock.lock();
        try {
            g.turn.running(false);
            g.statements++;
            g.turn.last(s);
            s.ran = true;
            s.lastActivity = groups.time.nanos();
            if (s.evicted != null) {
                // taken out while its statement ran (its client went): the turn goes to the replay waiting for it
                if (g.phase() == Phase.ABORTED) {
                    rollback = groups.takeRollback(g);
                } else {
                    g.turn.pass();
                }
                thrown = new GraphException(s.evicted, null);
            } else if (g.phase() == Phase.ABORTED) { // aborted while it ran: the transaction is this thread's to end
                rollback = groups.takeRollback(g);
                if (failure == null) {
                    thrown = Groups.aborted(g);
                }
            } else if (failure == null) {
                g.log.add(new Executed(s, cypher, params, result));
                if (!s.holding) {
                    g.turn.pass();
                }
                groups.maybeClose(g);
            }
        } finally {
            groups.lock.unlock();
        }
        Groups.rollbackNow(rollback);
        if (thrown != null) {
            throw thrown;
        }
    }
}
