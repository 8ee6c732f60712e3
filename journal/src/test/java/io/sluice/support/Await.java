package io.sluice.support;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition to hold, re-checking it; fails the test at the deadline. Not a sleep: it ends as soon as the
 * condition holds. An interrupted waiter (a test past its time bound) stops waiting and fails.
 */
public final class Await {
    private static final Duration EVERY = Duration.ofMillis(2);

    private Await() {}

    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        until(what, timeout, EVERY, condition);
    }

    /** The same, re-checking every {@code every}: for a condition that costs a query to a server. */
    public static void until(String what, Duration timeout, Duration every, BooleanSupplier condition) {
        if (!holdsWithin(what, timeout, every, condition)) {
            throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
        }
    }

    /**
     * Waits for a condition that may never come, re-checking it every {@code every}, for at most {@code timeout}:
     * true as soon as it holds, false at the deadline.
     */
    public static boolean holdsWithin(String what, Duration timeout, Duration every, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new AssertionError("interrupted while waiting for: " + what);
            }
            LockSupport.parkNanos(every.toNanos());
        }
        return true;
    }
}
