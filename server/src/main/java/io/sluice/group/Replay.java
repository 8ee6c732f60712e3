package io.sluice.group;

import io.sluice.group.Group.Executed;
import io.sluice.group.Group.Seat;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.StatementResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A member leaving its group (ROLLBACK, RESET, its client gone, its statement failed) without costing the others:
 * Neo4j has no savepoints, so the group's transaction is rolled back and the others' statements run again in a new
 * one, in their order, each checked to give exactly the answer its member was given. A member whose answer differs
 * (it had read or counted the leaver's writes) is taken out too and told {@link TransactionGroups#ABORTED}; the
 * replay starts over without it. So the group stays equivalent to its remaining members run one after another, each
 * answered exactly what that order gives. Blocks (the turn; Neo4j); called without the lock.
 */
final class Replay {
    private final Groups groups;

    Replay(Groups groups) {
        this.groups = groups;
    }

    /** {@link TransactionGroups.Member#rollback}. */
    boolean rollback(Seat s, boolean disconnected) {
        Group g;
        groups.lock.lock();
        try {
            g = s.group;
            if (g == null || g.finished() || s.evicted != null) {
                return false;
            }
            if (!s.ran && !(g.turn.heldBy(s) && g.turn.running())) {
                leave(s, g);
                return false;
            }
        } finally {
            groups.lock.unlock();
        }
        // its statements are in the group's transaction: replayed without them; the others go on
        evictAndReplay(g, s, disconnected ? Cause.DISCONNECTED : Cause.ROLLBACK, false, null);
        return true;
    }

    /** A member that ran nothing leaves its group (under the lock): a ROLLBACK before any statement of its ran. */
    private void leave(Seat s, Group g) {
        s.evicted = new Neo4jError(Cause.ABORTED, "this transaction left its group");
        s.wake.signal(); // a statement of its waiting for the turn (its client gone under it) gives up
        g.members.remove(s);
        g.turn.dequeue(s);
        g.turn.release(s);
        if (g.members.isEmpty() && g.statements == 0) {
            groups.finish(g, Phase.DISSOLVED); // nothing ran in it; nothing to commit
            return;
        }
        groups.maybeClose(g);
        if (groups.readyToCommit(g)) {
            g.done.signalAll(); // the others have all sent COMMIT: one of them leads
        }
    }

    /**
     * Takes {@code culprit} out of {@code g} and, if anything of its ran, rolls the group's transaction back and
     * replays the others, holding the turn ({@code haveTurn}: the culprit holds it already, its statement failed). A
     * closed group goes back to sealed while it replays (it must not wait on locks while closed: see {@link Phase}).
     * A replay that fails (a deadlock with another group, Neo4j away) aborts the group. Nothing is done when the
     * culprit was taken out already (by another caller: a stall, a lost client), when it no longer holds the turn it
     * says it holds, or when {@code still} (checked under the lock; null: always) says it no longer applies; a
     * culprit taken out for a stall or an interleaving is marked {@link Seat#struck} then.
     */
    void evictAndReplay(Group g, Seat culprit, Cause cause, boolean haveTurn, Predicate<Seat> still) {
        Seat token = haveTurn ? culprit : new Seat(groups.lock.newCondition());
        groups.lock.lock();
        try {
            if (g.finished() || g.phase() == Phase.COMMITTING || culprit.evicted != null
                    || haveTurn && !g.turn.heldBy(culprit) || still != null && !still.test(culprit)) {
                return;
            }
            if (cause == Cause.STALLED || cause == Cause.INTERLEAVED) {
                culprit.struck = true; // its session's demotion counts it
            }
            // a statement of its may still be running (its client gone under it): that is in the transaction too
            boolean wrote = cause == Cause.FAILED || g.holdsWorkOf(culprit);
            culprit.evicted = new Neo4jError(Cause.ABORTED, "this transaction was taken out of its group");
            culprit.wake.signal();
            g.members.remove(culprit);
            g.turn.dequeue(culprit);
            if (!wrote) {
                g.turn.release(culprit);
                if (g.members.isEmpty() && g.statements == 0) {
                    groups.finish(g, Phase.DISSOLVED); // nothing ran in it; nothing to commit
                    return;
                }
                groups.maybeClose(g);
                g.done.signalAll();
                return;
            }
            if (!takeTurn(g, culprit, token, haveTurn)) {
                return;
            }
        } finally {
            groups.lock.unlock();
        }
        replay(g, culprit, cause, token);
    }

    /**
     * Takes the turn for the replay (under the lock), reopening a closed group (quiet when closed: the turn is free at
     * once); false when the group finished meanwhile.
     */
    private boolean takeTurn(Group g, Seat culprit, Seat token, boolean haveTurn) {
        boolean reopened = g.phase() == Phase.CLOSED;
        if (reopened) {
            groups.move(g, Phase.SEALED);
        }
        if (!haveTurn) {
            if (g.turn.heldBy(culprit) && !g.turn.running()) {
                g.turn.handTo(token);
            } else if (!g.turn.await(token, true, g::finished)) {
                return false;
            }
        }
        g.turn.running(true);
        if (reopened) {
            // only now, running: the others may close and commit meanwhile, but not this group under the replay
            groups.commitSlotFreed();
        }
        return true;
    }

    /** Runs the group's statements again, as the turn's holder {@code token}, without those of members taken out. */
    private void replay(Group g, Seat culprit, Cause cause, Seat token) {
        Again a = runAgain(g);
        ended(g, culprit, cause, token, a.kept(), a.replayed(), a.failed());
    }

    /** What running a group's log again gave: the statements kept, how many ran, why it failed (null: it did not). */
    private record Again(List<Executed> kept, int replayed, Neo4jError failed) {}

    /**
     * Rolls the group's transaction back and runs the statements of the members not taken out again in a new one,
     * in order, each checked against its member's answer; a member whose answer differs is taken out and the run
     * starts over without it. Called holding the turn, running, without the lock.
     */
    private Again runAgain(Group g) {
        int replayed = 0;
        Neo4jError failed = null;
        List<Executed> kept = new ArrayList<>();
        while (true) {
            kept.clear();
            Seat mismatch = null;
            try {
                Groups.rollbackNow(g.tx);
                g.tx = null;
                for (Executed e : remaining(g)) {
                    if (finished(g)) {
                        break; // aborted meanwhile (shutdown, a stall): nothing to go on for
                    }
                    if (g.tx == null) {
                        g.tx = groups.sink.begin(true);
                    }
                    StatementResult again = g.tx.run(e.cypher(), e.params());
                    replayed++;
                    if (!again.sameAnswer(e.result())) {
                        mismatch = e.member();
                        break;
                    }
                    kept.add(e);
                }
            } catch (GraphException e) {
                failed = e.error();
            } catch (RuntimeException | Error e) { // never out with the turn held, running: the group would hang
                failed = Neo4jError.unknown("a group's replay failed: " + e);
            }
            if (failed != null || mismatch == null || !evictMismatch(g, mismatch)) {
                return new Again(kept, replayed, failed);
            }
        }
    }

    /**
     * A statement of {@code s}, which holds the turn and is running, met a deadlock: Neo4j rolled the group's
     * transaction back. The group's statements run again in a new transaction, as when a member leaves, but no one
     * leaves for it (a member whose answer would differ is taken out, as there); {@code s} keeps the turn, running,
     * to run its statement again. True when it may; false when {@code s} was taken out (its own earlier answer
     * differed) or the group ended (the re-run failed: the group is aborted, and its transaction rolled back).
     */
    boolean rerun(Group g, Seat s) {
        Again a = runAgain(g);
        Sink.OpenTx rollback = null;
        groups.lock.lock();
        try {
            groups.listener.replayed(a.replayed());
            if (g.finished()) { // aborted meanwhile (shutdown, a stall): this re-run's transaction to roll back
                g.turn.running(false);
                rollback = groups.takeRollback(g);
                return false;
            }
            if (a.failed() != null) {
                g.turn.running(false);
                rollback = groups.abort(g, Cause.DEADLOCK, null);
                return false;
            }
            g.log = new ArrayList<>(a.kept());
            g.statements = a.kept().size();
            g.turn.last(a.kept().isEmpty() ? null : a.kept().getLast().member());
            g.done.signalAll(); // members taken out while waiting for the commit learn it
            return s.evicted == null;
        } finally {
            groups.lock.unlock();
            Groups.rollbackNow(rollback);
        }
    }

    /**
     * Runs a failed member's statements ({@code mine}, each to answer as before, then {@code cypher}) alone in a new
     * transaction, always rolled back, after the members it ran after have committed: the error it now meets, when
     * it is {@code failure}'s (its code), else null (it would not fail so, or an answer differs: not its own error).
     * A brief transaction outside the gate's places (the group held one for it). Called without the lock.
     */
    GraphException failsAlone(List<Executed> mine, String cypher, Map<String, Object> params, GraphException failure) {
        Sink.OpenTx tx = null;
        try {
            tx = groups.sink.begin(true);
            for (Executed e : mine) {
                if (!tx.run(e.cypher(), e.params()).sameAnswer(e.result())) {
                    return null;
                }
            }
            tx.run(cypher, params);
            return null; // it does not fail now
        } catch (GraphException e) {
            return e.error() != null && failure.error() != null && e.error().code().equals(failure.error().code())
                    ? e : null;
        } catch (RuntimeException e) {
            return null;
        } finally {
            Groups.rollbackNow(tx);
        }
    }

    /** What {@code s}, taken out of {@code g} or in it when it aborted, is told (read under the lock). */
    GraphException told(Seat s, Group g) {
        groups.lock.lock();
        try {
            return s.evicted != null ? new GraphException(s.evicted, null) : Groups.aborted(g);
        } finally {
            groups.lock.unlock();
        }
    }

    /** The log's statements of members not taken out, a copy (taken under the lock). */
    private List<Executed> remaining(Group g) {
        groups.lock.lock();
        try {
            return g.log.stream().filter(e -> e.member().evicted == null).toList();
        } finally {
            groups.lock.unlock();
        }
    }

    private boolean finished(Group g) {
        groups.lock.lock();
        try {
            return g.finished();
        } finally {
            groups.lock.unlock();
        }
    }

    /** Takes out a member whose replayed answer differed; false when the group finished meanwhile (no next round). */
    private boolean evictMismatch(Group g, Seat mismatch) {
        groups.lock.lock();
        try {
            if (g.finished()) {
                return false;
            }
            mismatch.evicted = new Neo4jError(Cause.ABORTED, "this transaction's group ran again (without one"
                    + " that left it, or after a deadlock with another transaction), and its results were not the same:"
                    + " nothing of it was committed; retry it");
            mismatch.wake.signal();
            g.members.remove(mismatch);
            g.turn.dequeue(mismatch);
            groups.listener.evicted(Cause.REPLAY_MISMATCH);
            return true;
        } finally {
            groups.lock.unlock();
        }
    }

    /**
     * Ends the replay (under the lock, then the rollback outside it): an abort meanwhile or a failed replay ends the
     * group; else what was kept is its log, the turn goes on, and it closes if due.
     */
    private void ended(Group g, Seat culprit, Cause cause, Seat token, List<Executed> kept, int replayed,
            Neo4jError failed) {
        Sink.OpenTx rollback = null;
        groups.lock.lock();
        try {
            g.turn.running(false);
            groups.listener.evicted(cause);
            groups.listener.replayed(replayed);
            if (g.finished()) { // aborted meanwhile (shutdown, a stall): this replay's transaction to roll back
                rollback = groups.takeRollback(g);
                return;
            }
            if (failed != null) {
                rollback = groups.abort(g, cause, culprit);
                return;
            }
            g.log = new ArrayList<>(kept);
            g.statements = kept.size();
            g.turn.last(kept.isEmpty() ? null : kept.getLast().member());
            g.turn.release(token);
            if (g.members.isEmpty() && kept.isEmpty()) {
                groups.finish(g, Phase.DISSOLVED); // no one left, nothing kept: its place goes back
                return;
            }
            groups.maybeClose(g);
            g.done.signalAll(); // members taken out while waiting for the commit learn it
        } finally {
            groups.lock.unlock();
            Groups.rollbackNow(rollback);
        }
    }
}
