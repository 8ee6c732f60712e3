package io.sluice.group;

import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.StatementResult;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.function.BooleanSupplier;

/** One Neo4j transaction and its members. Guarded by the lock, except {@link #tx}: see there. */
final class Group {
    final long id;
    final List<Seat> members = new ArrayList<>();
    final Turn turn = new Turn();
    /** Signalled when the group finishes, becomes ready to commit, or a replay took members out. */
    final Condition done;
    Phase phase = Phase.OPEN; // guarded by lock: set by Groups.move alone
    /**
     * Its Neo4j transaction: begun, run in, replaced and rolled back by whoever holds the turn while
     * {@code turn.running()}, without the lock; else handed over under the lock (to the rollback of an abort,
     * {@link Groups#takeRollback}, or to the commit's leader), and never touched again by anyone else.
     */
    Sink.OpenTx tx;
    boolean entered; // guarded by lock: holds a place of the gate
    boolean rolledBack; // guarded by lock: tx is someone's to roll back, or rolled back, or committed
    int statements; // guarded by lock: statements in tx
    long committingSince; // guarded by lock: when its commit began (Time's nanos), once COMMITTING
    List<Executed> log = new ArrayList<>(); // guarded by lock: every statement in tx, in order (a replay's work)
    Neo4jError abort; // guarded by lock: what its members are told, once ABORTED
    Cause cause; // guarded by lock: why it was ABORTED
    Seat culprit; // guarded by lock: who aborted it, if anyone

    Group(long id, Condition done) {
        this.id = id;
        this.done = done;
    }

    Phase phase() {
        return phase;
    }

    boolean finished() {
        return phase.finished();
    }

    /** Whether a statement of {@code s}'s is in the transaction, or running in it now. */
    boolean holdsWorkOf(Seat s) {
        return turn.heldBy(s) && turn.running() || log.stream().anyMatch(e -> e.member() == s);
    }

    /** A statement run in a group's transaction, by whom, and what its member was answered. */
    record Executed(Seat member, String cypher, Map<String, Object> params, StatementResult result) {}

    /**
     * One client transaction's place in the groups (what a {@link TransactionGroups.Member} holds), or a replay's token
     * for the turn. Every field is guarded by the groups' lock.
     */
    static final class Seat {
        /** Signalled when the turn comes to it, or it is taken out while it waits for the turn. */
        final Condition wake;
        Group group; // guarded by lock: null until its first statement
        boolean ran; // guarded by lock: a statement of its ran in its group's transaction
        boolean holding; // guarded by lock: keeps the turn from its first statement to its COMMIT
        boolean committing; // guarded by lock: has sent COMMIT
        long lastActivity; // guarded by lock: when it last ran, took the turn or sent COMMIT (Time's nanos)
        Neo4jError evicted; // guarded by lock: taken out of its group, and what it is told
        boolean struck; // guarded by lock: cost its group a replay by stalling or interleaving (its demotion counts it)
        String shape; // guarded by lock: its first statement's text, what multiStatement knows it by

        Seat(Condition wake) {
            this.wake = wake;
        }
    }

    /**
     * A group's turn: who may run a statement in its transaction, who waits for it (first come, first served; a replay
     * goes first), whether a statement runs, and who ran the last one. Waiting uses one condition per seat, so passing
     * the turn wakes only the next. Invariant: when no one holds the turn, no one waits for it. Every field is guarded
     * by the groups' lock, and every method is called with it held.
     */
    static final class Turn {
        private Seat holder;
        private final ArrayDeque<Seat> waiting = new ArrayDeque<>();
        private boolean running;
        private Seat last;

        Seat holder() {
            return holder;
        }

        boolean heldBy(Seat s) {
            return holder == s;
        }

        /** A statement (or a replay) runs in the group's transaction, outside the lock. */
        boolean running() {
            return running;
        }

        void running(boolean running) {
            this.running = running;
        }

        /** Who ran the last statement that stayed in the group's transaction. */
        Seat last() {
            return last;
        }

        void last(Seat s) {
            last = s;
        }

        /** No statement runs or waits, and no one keeps the turn. */
        boolean quiet() {
            return !running && holder == null && waiting.isEmpty();
        }

        /**
         * Takes the turn for {@code s} at once if it is free, else waits for it, behind the others (or, {@code first},
         * before them), until it comes or {@code giveUp} says so. Returns whether {@code s} holds the turn.
         */
        boolean await(Seat s, boolean first, BooleanSupplier giveUp) {
            if (holder == s) {
                return true;
            }
            if (holder == null) {
                holder = s;
                return true;
            }
            if (first) {
                waiting.addFirst(s);
            } else {
                waiting.addLast(s);
            }
            while (holder != s && !giveUp.getAsBoolean()) {
                s.wake.awaitUninterruptibly();
            }
            waiting.remove(s);
            return holder == s;
        }

        /** Gives the turn to {@code to} at once: a replay taking it from the member it replaces, which is not running. */
        void handTo(Seat to) {
            holder = to;
        }

        /** Gives the turn to the next waiting seat, if any. */
        void pass() {
            Seat next = waiting.poll();
            holder = next;
            if (next != null) {
                next.wake.signal();
            }
        }

        /** {@code s} gives the turn up, if it holds it. */
        void release(Seat s) {
            if (holder == s) {
                pass();
            }
        }

        /** {@code s} no longer waits (taken out): its place in the queue goes, not the turn if it holds it. */
        void dequeue(Seat s) {
            waiting.remove(s);
        }

        /** Wakes every waiting seat (its group finished: they give up). */
        void wakeAll() {
            for (Seat s : waiting) {
                s.wake.signal();
            }
        }
    }
}
