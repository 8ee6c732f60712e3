package io.sluice.group;

import io.sluice.vocab.Neo4jStatus;
import java.util.Locale;

/** Why a group was aborted, as the metrics count it. */
public enum Cause {
    ROLLBACK, FAILED, STALLED, INTERLEAVED, DISCONNECTED, COMMIT_FAILED, SHUTDOWN,
    /** A member whose results were not the same when its group was replayed without one that left. */
    REPLAY_MISMATCH,
    /** The group's transaction met a deadlock, and running its statements again failed. */
    DEADLOCK;

    /** What a member aborted by its group is told: transient, retried by every driver's managed transactions. */
    public static final String ABORTED = Neo4jStatus.Transaction.OUTDATED;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
