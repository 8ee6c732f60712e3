package io.sluice.group;

import io.sluice.group.Group.Seat;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watchdog thread ({@code sluice-groups-watch}): every quarter of the member timeout (at least 5 ms) of the
 * injected clock, takes out of its group each silent member that holds the group up past the member timeout (one
 * that keeps the turn between statements, or keeps a closed group from committing): the group's transaction is
 * rolled back and the others' statements run again without it ({@link Replay#evictAndReplay}), so a stalled client
 * costs the others a replay, never a retry; it is told to retry when it comes back. Each eviction runs on a virtual
 * thread of its own ({@code sluice-groups-evict-N}, owned here: a replay may wait for the turn or for Neo4j's locks,
 * and the watch must go on meanwhile), which checks again under the lock that the member is still stalled.
 *
 * <p>It also ends a wait Neo4j cannot see: a group's commit that has waited past the member timeout (Neo4j takes a
 * relationship's node and group locks only at COMMIT, and one may be held by the group behind it) while that group's
 * members have all sent COMMIT and it waits for the commit in flight to end before it closes. That group is closed at
 * once ({@link Groups#closeReady}): its own commit then waits in Neo4j's lock manager too, where a cycle is a
 * deadlock Neo4j breaks (the victim group aborted, its members retried), instead of a wait for ever (found by the Go
 * driver's test, 2026-12-02).
 *
 * <p>Its wait is a condition wait whose deadline comes from the clock (a manual clock
 * decides when a pass is due), ended at once by {@link Groups#shutDown}. A pass that fails is logged; the watch goes
 * on.
 */
final class Watchdog implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);
    private static final Duration JOIN = Duration.ofSeconds(5);

    private final Groups groups;
    private final Replay replay;
    private final Thread thread;
    private final ExecutorService evictions =
            Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sluice-groups-evict-", 0).factory());
    private final long timeout;
    private final long every;

    Watchdog(Groups groups, Replay replay, ThreadFactory threads) {
        this.groups = groups;
        this.replay = replay;
        this.thread = threads.newThread(this);
        this.timeout = groups.options.memberTimeout().toNanos();
        this.every = Math.max(Duration.ofMillis(5).toNanos(), timeout / 4);
    }

    void start() {
        thread.start();
    }

    /** Waits (bounded) for the thread and the evictions to end, after {@link Groups#shutDown} told them to. */
    void join() {
        try {
            if (!thread.join(JOIN)) {
                log.warn("the groups' watchdog did not stop within {}", JOIN);
            }
            evictions.shutdown();
            if (!evictions.awaitTermination(JOIN.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("the groups' evictions did not end within {}", JOIN);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run() {
        while (true) {
            List<Stall> stalls = List.of();
            groups.lock.lock();
            try {
                if (!due()) {
                    return;
                }
                stalls = pass(groups.time.nanos());
            } catch (RuntimeException e) { // a pass that failed must not end the watch
                log.warn("the groups' watchdog's pass failed: {}", e.toString(), e);
            } finally {
                groups.lock.unlock();
            }
            for (Stall s : stalls) {
                try {
                    evictions.execute(() -> evict(s));
                } catch (RejectedExecutionException e) {
                    return; // shutting down
                }
            }
        }
    }

    private void evict(Stall s) {
        try {
            replay.evictAndReplay(s.group(), s.member(), Cause.STALLED, false, m -> stalled(s.group(), m,
                    groups.time.nanos()));
        } catch (RuntimeException e) {
            log.warn("taking a stalled member out of its group failed: {}", e.toString(), e);
        }
    }

    /** Whether {@code m} holds {@code g} up, silent past the timeout, at {@code now} (under the lock). */
    private boolean stalled(Group g, Seat m, long now) {
        // keeping the turn holds up the group, and its locks hold up everyone: whoever is there
        boolean blocking = g.turn.heldBy(m) || g.phase() == Phase.CLOSED;
        return m.ran && !m.committing && m.evicted == null && blocking && now - m.lastActivity > timeout;
    }

    /** A member found holding its group up past the timeout. */
    private record Stall(Group group, Seat member) {}

    /**
     * Waits (under the lock) until the clock has moved on by a pass's interval: a cadence, not a synchronisation,
     * stalls are found within it. False when the groups shut down (or the thread is interrupted).
     */
    private boolean due() {
        long deadline = groups.time.nanos() + every;
        try {
            for (long left = every; left > 0 && !groups.stopping(); left = deadline - groups.time.nanos()) {
                groups.stopping.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            return false;
        }
        return !groups.stopping();
    }

    /** Finds (under the lock) the members that hold their groups up past the timeout, one a group. */
    private List<Stall> pass(long now) {
        boolean commitWaits = groups.liveGroups().stream()
                .anyMatch(g -> g.phase() == Phase.COMMITTING && now - g.committingSince > timeout);
        if (commitWaits) {
            for (Group g : groups.liveGroups()) {
                if (groups.closeReady(g)) {
                    log.debug("group {} closed behind a commit that has waited past {} ms", g.id, timeout / 1_000_000);
                }
            }
        }
        List<Stall> stalls = new ArrayList<>();
        for (Group g : groups.liveGroups()) {
            if (g.turn.running() || g.phase() == Phase.COMMITTING) {
                continue;
            }
            for (Seat m : g.members) {
                if (stalled(g, m, now)) {
                    stalls.add(new Stall(g, m));
                    break;
                }
            }
        }
        return stalls;
    }
}
