package io.sluice.session;

import io.sluice.time.Time;
import java.time.Duration;

/**
 * Whether a session's transactions may join groups: after two groups in a row aborted by its transactions (a
 * rollback, a failure, a stall), they run alone for a while, 1 s doubling to 30 s, so that one client's failing or
 * rolling-back transactions stop costing the others; a commit clears the count. On the injected clock. One
 * session's; not thread-safe (the session uses it from one request at a time).
 */
final class Demotion {
    private static final int STRIKES = 2;
    private static final long MAX_SECONDS = 30;

    private final Time time;
    private int strikes;
    private boolean demoted;
    private long aloneUntil;

    Demotion(Time time) {
        this.time = time;
    }

    /** Whether a transaction starting now may join a group. */
    boolean allowsGrouping() {
        return !demoted || time.nanos() - aloneUntil >= 0;
    }

    /** A transaction of this session aborted its group. */
    void struck() {
        strikes++;
        if (strikes >= STRIKES) {
            long seconds = Math.min(MAX_SECONDS, 1L << Math.min(5, strikes - STRIKES));
            aloneUntil = time.nanos() + Duration.ofSeconds(seconds).toNanos();
            demoted = true;
        }
    }

    /** A grouped transaction of this session committed. */
    void cleared() {
        strikes = 0;
    }
}
