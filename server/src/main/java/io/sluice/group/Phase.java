package io.sluice.group;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * A group's phases, and the moves between them; {@link Groups#move} makes every move and refuses one not in this
 * table.
 *
 * <pre>
 *   from        to                               when
 *   (new)       OPEN                             a member comes and no group takes members
 *   OPEN        SEALED                           it is full, or the commit before it ended
 *   OPEN        ABORTED | DISSOLVED              aborted | its only members left before anything ran
 *   SEALED      CLOSED                           no statement of it runs or waits, no one keeps the turn
 *   SEALED      ABORTED | DISSOLVED              aborted | a replay left no one and nothing
 *   CLOSED      SEALED                           a member left and the others must be replayed
 *   CLOSED      COMMITTING                       every member has sent COMMIT: the last one leads the commit
 *   CLOSED      ABORTED                          a member stalled it, or sent a statement late, or shutdown
 *   COMMITTING  COMMITTED | ABORTED              the commit succeeded | failed (outcome unknown included)
 * </pre>
 *
 * OPEN takes members; SEALED takes none, but its members' statements still run; CLOSED runs no statement any more,
 * so it can never wait for a lock: it waits only for its members' COMMITs, which the watchdog bounds, then commits.
 * That is what keeps groups from waiting on each other where Neo4j cannot see it: a later group may wait for a
 * closed one's locks, and a closed one waits for nothing but its clients. CLOSED and COMMITTING are the pipeline's
 * one slot ({@link #holdsCommitSlot}): while a group holds it, the open group fills. COMMITTED, ABORTED and
 * DISSOLVED are final.
 */
enum Phase {
    OPEN, SEALED, CLOSED, COMMITTING, COMMITTED, ABORTED,
    /** Finished with nothing to commit: every member left before anything of theirs stayed in its transaction. */
    DISSOLVED;

    private static final Map<Phase, Set<Phase>> MOVES = new EnumMap<>(Phase.class);

    static {
        MOVES.put(OPEN, EnumSet.of(SEALED, ABORTED, DISSOLVED));
        MOVES.put(SEALED, EnumSet.of(CLOSED, ABORTED, DISSOLVED));
        MOVES.put(CLOSED, EnumSet.of(SEALED, COMMITTING, ABORTED));
        MOVES.put(COMMITTING, EnumSet.of(COMMITTED, ABORTED));
        MOVES.put(COMMITTED, EnumSet.noneOf(Phase.class));
        MOVES.put(ABORTED, EnumSet.noneOf(Phase.class));
        MOVES.put(DISSOLVED, EnumSet.noneOf(Phase.class));
    }

    boolean mayMoveTo(Phase to) {
        return MOVES.get(this).contains(to);
    }

    boolean finished() {
        return this == COMMITTED || this == ABORTED || this == DISSOLVED;
    }

    /** Closed and not finished: the one commit in flight that the open group fills behind. */
    boolean holdsCommitSlot() {
        return this == CLOSED || this == COMMITTING;
    }

    /** Its members' statements may still run (a member may still join an OPEN one). */
    boolean running() {
        return this == OPEN || this == SEALED;
    }
}
