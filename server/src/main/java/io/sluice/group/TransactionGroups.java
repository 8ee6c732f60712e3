package io.sluice.group;

import io.sluice.group.Group.Seat;
import io.sluice.group.Group.Turn;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.txn.TxRegistry;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.StatementResult;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadFactory;
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
 *       ran, that statement would see the other's writes between its own: it is <i>taken out</i> (cause
 *       {@code interleaved}; below) and told {@link #ABORTED} (its retry runs alone), and the shape is remembered
 *       ({@link #multiStatement}): the session layer runs later transactions of it alone (a member holding the turn
 *       across its client's round trips makes the group wait on it), and a member of a known shape that joins
 *       anyway keeps the turn from its first statement to its COMMIT.</li>
 *   <li><b>Leaving without costing the others.</b> Neo4j has no savepoints. A member that rolls back, whose
 *       statement fails, whose client goes, or that stays silent past the member timeout while it holds the group up
 *       (it keeps the turn between statements, or a closed group waits for its COMMIT: cause {@code stalled}) is
 *       <i>taken out</i>: the group's transaction is rolled back and the
 *       other members' statements (each run's text, parameters and answer are logged) run again in a new one, in
 *       their order, each checked to give exactly the answer its member was given. A member whose answer would
 *       differ (it had read or counted the leaver's writes) is taken out too and told {@link #ABORTED}; the
 *       others never learn anything happened, and the group stays equivalent to the remaining members run one after
 *       another. A failing member is taken out at once (the others replayed) and answered when the members whose
 *       work it ran after have finished: if they all committed, its own error, which is what a serial execution in
 *       that order answers (so a constraint violation is a constraint violation, not a retry); if one of them left
 *       (its error may have come from work that never committed), {@link #ABORTED}, and its retry runs
 *       alone.</li>
 *   <li><b>Aborts.</b> A replay that fails, and a failed commit abort the whole group: every member is told
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
 *   <li><b>An explicit machine.</b> A group's phase moves only through {@link Groups#move}, by {@link Phase}'s
 *       table (OPEN, SEALED, CLOSED, COMMITTING, then COMMITTED, ABORTED or DISSOLVED; CLOSED back to SEALED for a
 *       replay), which refuses any other move with an {@link IllegalStateException}; the live groups, the open one
 *       and the number holding the commit slot (closed, unfinished) are kept by the moves alone. The parts:
 *       {@link Groups} (the lock, the phase table, join, close, abort, finish), {@link Turn} (a group's turn),
 *       {@link Statements} (a member's statement), {@link Replay} (a member leaving: eviction and replay),
 *       {@link Commit} (a member's COMMIT and the group's commit), {@link Watchdog} (stalls), {@link Seat} (a
 *       member's state).</li>
 *   <li><b>Threads.</b> Members call in on their front end's threads and block there; one lock guards every group's
 *       state, never held while Neo4j runs a statement or commits (a group's transaction is used, without it, only
 *       by whoever holds its turn and runs, or by its commit's leader). Waiting for the turn uses one condition per
 *       member (no thundering herd); waiting for the outcome, one per group. The watchdog thread
 *       ({@code sluice-groups-watch}, owned here, stopped by {@link #close}) takes stalled members out (their
 *       replays run on it); it waits on the
 *       injected clock's deadlines ({@link Time}), never on the JVM's clock.</li>
 * </ul>
 * Thread-safe. A {@link Member} is one client transaction's, used by one thread at a time (its rollback, when its
 * client goes, may come from another while its statement runs).
 */
public final class TransactionGroups implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TransactionGroups.class);

    /** What a member aborted by its group is told: transient, retried by every driver's managed transactions. */
    public static final String ABORTED = Cause.ABORTED;

    private final Groups groups;
    private final Replay replay;
    private final Statements statements;
    private final Commit commit;
    private final Watchdog watchdog;

    private TransactionGroups(Sink sink, TxRegistry.Gate gate, Options options, Time time, Listener listener,
            ThreadFactory threads) {
        this.groups = new Groups(sink, gate, options, time, listener);
        this.replay = new Replay(groups);
        this.statements = new Statements(groups, replay);
        this.commit = new Commit(groups);
        this.watchdog = new Watchdog(groups, replay, threads);
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
        return groups.multiStatement(cypher);
    }

    /** Groups not finished (open or closed): for tests and the status page. */
    public int live() {
        return groups.live();
    }

    /**
     * One client transaction's membership. {@link #run} its statements, then {@link #commit} or {@link #rollback};
     * after an error from either it is finished (the group rolled it back). Used by one thread at a time.
     */
    public final class Member {
        private final Seat seat = new Seat(groups.lock.newCondition());

        private Member() {}

        /**
         * Runs a statement in this member's group (joining the open one at its first), when its turn comes. Throws
         * the statement's own error (once the members it ran after have committed), or {@link #ABORTED} when the
         * group was aborted (by anyone before) or work this statement failed after did not commit.
         */
        public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
            return statements.run(seat, cypher, params);
        }

        /**
         * Commits: waits for the group's commit (nothing to do when nothing ran). Throws {@link #ABORTED} when the
         * group was aborted, or the commit's own error (commit outcome unknown included).
         */
        public void commit() throws GraphException {
            commit.commit(seat);
        }

        /**
         * Rolls back (ROLLBACK, RESET, a client gone): aborts the group unless this member ran nothing or the group
         * already finished. Returns whether it aborted a group (the caller's demotion counts it). Never throws.
         */
        public boolean rollback(boolean disconnected) {
            return replay.rollback(seat, disconnected);
        }

        /**
         * Whether this member cost its group a replay by stalling or interleaving, or an abort: what its session's
         * demotion counts.
         */
        public boolean abortedGroup() {
            groups.lock.lock();
            try {
                return seat.struck
                        || seat.group != null && seat.group.phase() == Phase.ABORTED && seat.group.culprit == seat;
            } finally {
                groups.lock.unlock();
            }
        }
    }

    /** Aborts every unfinished group (their members are told to retry) and stops the watchdog. */
    @Override
    public void close() {
        List<Sink.OpenTx> rollbacks;
        groups.lock.lock();
        try {
            rollbacks = groups.shutDown();
        } finally {
            groups.lock.unlock();
        }
        rollbacks.forEach(Groups::rollbackNow);
        watchdog.join();
        log.debug("transaction groups closed");
    }
}
