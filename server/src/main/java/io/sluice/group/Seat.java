package io.sluice.group;

import io.sluice.group.Groups.Group;
import io.sluice.vocab.Neo4jError;
import java.util.concurrent.locks.Condition;

/**
 * One client transaction's place in the groups (what a {@link TransactionGroups.Member} holds), or a replay's token
 * for the turn. Every field is guarded by the groups' lock.
 */
final class Seat {
    /** Signalled when the turn comes to it, or it is taken out while it waits for the turn. */
    final Condition wake;
    Group group; // guarded by lock: null until its first statement
    boolean ran; // guarded by lock: a statement of its ran in its group's transaction
    boolean holding; // guarded by lock: keeps the turn from its first statement to its COMMIT
    boolean committing; // guarded by lock: has sent COMMIT
    long lastActivity; // guarded by lock: when it last ran, took the turn or sent COMMIT (Time's nanos)
    Neo4jError evicted; // guarded by lock: taken out of its group, and what it is told
    String shape; // guarded by lock: its first statement's text, what multiStatement knows it by

    Seat(Condition wake) {
        this.wake = wake;
    }
}
