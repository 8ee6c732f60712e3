package io.sluice.group;

import io.sluice.group.Group.Seat;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;

/**
 * A member's COMMIT: it waits for its group's commit, which the member whose COMMIT completes a closed group leads
 * (on its own thread, without the lock), then every member learns the outcome. A failed commit aborts the group
 * (its members told to retry); one whose outcome is unknown is told as the sink reports it, never as transient: a
 * retry could apply it twice.
 */
final class Commit {
    private final Groups groups;

    Commit(Groups groups) {
        this.groups = groups;
    }

    /** {@link TransactionGroups.Member#commit}. */
    void commit(Seat s) throws GraphException {
        Group g;
        boolean leader = false;
        Sink.OpenTx tx = null;
        groups.lock.lock();
        try {
            g = s.group;
            if (g == null) {
                return; // nothing ran: nothing to commit
            }
            if (s.evicted != null) {
                throw new GraphException(s.evicted, null);
            }
            Groups.failIfFinished(g);
            s.committing = true;
            s.lastActivity = groups.time.nanos();
            g.turn.release(s);
            groups.maybeClose(g);
            while (!g.finished() && s.evicted == null) {
                if (groups.readyToCommit(g)) {
                    groups.move(g, Phase.COMMITTING);
                    g.committingSince = groups.time.nanos();
                    leader = true;
                    tx = g.tx; // the leader's now: nothing runs in a closed group, and nothing aborts a committing one
                    break;
                }
                g.done.awaitUninterruptibly();
            }
        } finally {
            groups.lock.unlock();
        }
        if (leader) {
            lead(g, tx);
        }
        groups.lock.lock();
        try {
            if (s.evicted != null) {
                throw new GraphException(s.evicted, null);
            }
            if (g.phase() == Phase.ABORTED) {
                throw Groups.aborted(g);
            }
        } finally {
            groups.lock.unlock();
        }
    }

    /** Commits the group's transaction (its leader, without the lock), then tells every member. */
    private void lead(Group g, Sink.OpenTx tx) {
        long start = groups.time.nanos();
        Neo4jError failure = null;
        try {
            if (tx != null) {
                tx.commit();
            }
        } catch (GraphException e) {
            failure = e.commitOutcomeUnknown() && !e.error().isCommitOutcomeUnknown()
                    ? Neo4jError.commitOutcomeUnknown(e.error().message()) : e.error();
        } catch (RuntimeException | Error e) { // not the sink's answer: whether it committed is not known
            failure = Neo4jError.commitOutcomeUnknown("the group's commit failed: " + e);
        }
        long took = groups.time.nanos() - start;
        groups.lock.lock();
        try {
            g.rolledBack = true; // committed, or a failed commit left it rolled back (or, outcome unknown, not ours)
            if (failure == null) {
                groups.finish(g, Phase.COMMITTED);
                groups.listener.committed(g.members.size(), g.statements, took);
            } else {
                g.abort = failure.isCommitOutcomeUnknown() ? failure : new Neo4jError(Cause.ABORTED,
                        "the group this transaction ran in failed to commit: " + failure.message() + " (retry it)");
                g.cause = Cause.COMMIT_FAILED;
                groups.finish(g, Phase.ABORTED);
                groups.listener.aborted(g.members.size(), Cause.COMMIT_FAILED);
            }
        } finally {
            groups.lock.unlock();
        }
    }
}
