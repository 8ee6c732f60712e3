package io.sluice.group;

import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;

/**
 * A group's turn: who may run a statement in its transaction, who waits for it (first come, first served; a replay
 * goes first), whether a statement runs, and who ran the last one. Waiting uses one condition per seat, so passing
 * the turn wakes only the next. Invariant: when no one holds the turn, no one waits for it. Every field is guarded
 * by the groups' lock, and every method is called with it held.
 */
final class Turn {
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
