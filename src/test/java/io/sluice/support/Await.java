package io.sluice.support;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waits for a condition to hold, re-checking it; fails the test at the deadline. Not a sleep: it ends as soon as the condition holds. */
public final class Await {
    private Await() {}

    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            LockSupport.parkNanos(2_000_000);
        }
    }
}
