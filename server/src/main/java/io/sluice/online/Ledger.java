package io.sluice.online;

import io.sluice.csv.Tolerance;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The running totals of an online import and whether it must stop. Shared by the reader, the workers and the
 * progress thread; every field is atomic, the first stop reason wins.
 */
final class Ledger {
    private final Tolerance tolerance;
    final AtomicLong rowsRead = new AtomicLong();
    final AtomicLong bytesRead = new AtomicLong();
    final AtomicLong done = new AtomicLong();
    final AtomicLong resumed = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();
    final AtomicLong nodes = new AtomicLong();
    final AtomicLong relationships = new AtomicLong();
    final AtomicLong properties = new AtomicLong();
    /** Batches sent again because the target was busy (overloaded, transient errors past sluice's own retries). */
    final AtomicLong resends = new AtomicLong();
    private final AtomicReference<String> stopped = new AtomicReference<>();

    Ledger(Tolerance tolerance, long rejectedBefore) {
        this.tolerance = tolerance;
        this.rejected.set(rejectedBefore);
    }

    /** Counts {@code n} rejected rows; past the tolerance, the import stops. */
    void rejected(long n, String last) {
        if (n == 0) {
            return;
        }
        long total = rejected.addAndGet(n);
        if (tolerance.exceeded(total)) {
            stop(total + " bad rows exceed --bad-tolerance " + tolerance.badTolerance() + " (the last: " + last + ")");
        }
    }

    /** Adds a committed statement's counters, less what its progress mark wrote. */
    void committed(Map<String, Object> counters, boolean withMark) {
        nodes.addAndGet(number(counters.get("nodes_created")) - (withMark ? 1 : 0));
        relationships.addAndGet(number(counters.get("relationships_created")));
        properties.addAndGet(number(counters.get("properties_set")) - (withMark ? Statements.MARK_PROPERTIES : 0));
    }

    private static long number(Object o) {
        return o instanceof Number n ? n.longValue() : 0;
    }

    /** Asks everyone to stop; the first reason is the one reported. */
    void stop(String reason) {
        stopped.compareAndSet(null, reason);
    }

    boolean isStopped() {
        return stopped.get() != null;
    }

    String stopReason() {
        return stopped.get();
    }
}
