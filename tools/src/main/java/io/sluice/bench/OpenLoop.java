package io.sluice.bench;

import io.sluice.time.Time;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The schedule and the connection pool of an open-loop run ({@code --rate}): requests arrive at a constant rate
 * whatever the server does, and each one's latency runs from when it was due, not from when it went out.
 *
 * <h2>Design</h2>
 * Request {@code i} is due at {@code window.start + i / rate} (computed from {@code i}, never by adding periods,
 * so the schedule does not drift). One pacing thread ({@link #pace}) wakes at each due time
 * ({@link LockSupport#parkNanos}; when it wakes late, every request due by then is scheduled at once, each with
 * its own due time) and hands the due requests to idle connections ({@link Slot}s, FIFO so every connection
 * stays in use). When every connection is busy the requests wait in a backlog, and a connection that gets its
 * answer takes the oldest of them at once ({@link #answered}): the wait counts in their latency, which is what a
 * closed-loop client hides (coordinated omission). The pool never grows beyond its connections: a server that
 * cannot keep up shows as a growing backlog, latencies that grow with it, and requests late to start.
 *
 * <p>The backlog is a range of request numbers, {@code [handedOut, scheduled)}, plus the few a connection had
 * to give back ({@link #requeue}, its channel closed under it): no allocation per request, however long it grows.
 *
 * <p>The schedule ends with the window: nothing is due at or after {@code window.end}. Then requests still in
 * the backlog are never sent; those of the measured window are counted ({@link Tally#notSent}); idle
 * connections are closed; connections with a request in flight close when it is answered or fails (the
 * connection's read time-out bounds that), so the run ends within a request time-out of the window.
 *
 * <p>Thread-safe: the pacing thread and the connections' event loops call in; state is guarded by this object's
 * monitor, and {@link Slot} calls are made outside it.
 */
final class OpenLoop {
    /** A request that starts later than this after its due time counts as late. */
    static final Duration LATE = Duration.ofMillis(1);
    /** {@link #free} and {@link #answered}: nothing to send now; the connection waits in the pool. */
    static final long IDLE = Long.MIN_VALUE;
    /** {@link #free} and {@link #answered}: the run is over for this connection; close it. */
    static final long STOP = Long.MIN_VALUE + 1;

    /** A connection of the pool. */
    interface Slot {
        /** Sends the request due at {@code intended}; called by the pacing thread, never under the lock. */
        void send(long intended);

        /** The run is over and this connection is idle: close it. */
        void close();
    }

    private final Window window;
    private final double ratePerSecond;
    private final Tally tally;
    private final ArrayDeque<Slot> idle = new ArrayDeque<>();
    private final ArrayDeque<Long> requeued = new ArrayDeque<>();
    private long scheduled; // requests [0, scheduled) are due
    private long handedOut; // of those, [0, handedOut) went to a connection (less the requeued)
    private boolean over;

    OpenLoop(Window window, double ratePerSecond, Tally tally) {
        if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
            throw new IllegalArgumentException("an open-loop rate must be a positive number of requests/s, got "
                    + ratePerSecond);
        }
        this.window = window;
        this.ratePerSecond = ratePerSecond;
        this.tally = tally;
    }

    /** When request {@code i} is due. */
    long intended(long i) {
        return window.start() + Math.round(i * 1e9 / ratePerSecond);
    }

    /**
     * The pacing loop, on the caller's thread: dispatches what is due, parks until the next due time, until the
     * window ends (then {@link #stop}s) or the thread is interrupted (then stops at once).
     */
    void pace(Time time) {
        while (!Thread.currentThread().isInterrupted()) {
            long due = dispatch(time.nanos());
            if (due == STOP) {
                return;
            }
            long wait = due - time.nanos();
            if (wait > 0) {
                LockSupport.parkNanos(this, wait);
            }
        }
        stop();
    }

    /**
     * Schedules every request due by {@code now} and hands what it can to idle connections; at or after the
     * window's end, then {@link #stop}s. Returns when the next request is due (the window's end when none is
     * left), or {@link #STOP} when the run is over.
     */
    long dispatch(long now) {
        List<Slot> slots = new ArrayList<>(2);
        List<Long> requests = new ArrayList<>(2);
        long next;
        synchronized (this) {
            if (over) {
                return STOP;
            }
            for (long t = intended(scheduled); t <= now && t < window.end(); t = intended(scheduled)) {
                scheduled++;
            }
            while (!idle.isEmpty()) {
                long r = takeBacklog();
                if (r == IDLE) {
                    break;
                }
                slots.add(idle.poll());
                requests.add(r);
            }
            next = Math.min(intended(scheduled), window.end());
        }
        for (int i = 0; i < slots.size(); i++) {
            slots.get(i).send(requests.get(i));
        }
        if (now >= window.end()) {
            stop();
            return STOP;
        }
        return next;
    }

    /**
     * Ends the schedule (idempotent): what is still in the backlog is never sent, and those of the measured
     * window are counted as not sent; idle connections are closed.
     */
    void stop() {
        List<Slot> toClose;
        synchronized (this) {
            if (over) {
                return;
            }
            over = true;
            long firstMeasured = firstDueAtOrAfter(window.measureStart());
            long unsent = Math.max(0, scheduled - Math.max(handedOut, firstMeasured));
            for (long t : requeued) {
                unsent += window.phase(t) == Window.Phase.MEASURE ? 1 : 0;
            }
            requeued.clear();
            handedOut = scheduled;
            tally.notSent(unsent);
            toClose = new ArrayList<>(idle);
            idle.clear();
        }
        toClose.forEach(Slot::close);
    }

    /**
     * {@code slot} is connected and has nothing in flight: returns the oldest waiting request for it to send, or
     * {@link #IDLE} (it joins the pool), or {@link #STOP} (the run is over: close it).
     */
    synchronized long free(Slot slot) {
        if (over) {
            return STOP;
        }
        long r = takeBacklog();
        if (r == IDLE) {
            idle.add(slot);
        }
        return r;
    }

    /**
     * {@code slot}'s request due at {@code intended}, sent at {@code sent}, was answered with {@code status} (0:
     * failed in transport) at {@code now}: records it in {@code counts} (the slot's own), then as {@link #free}.
     * {@link #STOP} too when {@code counts} is full.
     */
    long answered(Slot slot, Tally.Client counts, int status, int rows, long intended, long sent, long now) {
        return answered(slot, counts, status, false, rows, intended, sent, now);
    }

    /** The same for an answer whose body was read: {@code reportedErrors}, a 2xx reporting errors, is an error. */
    long answered(Slot slot, Tally.Client counts, int status, boolean reportedErrors, int rows, long intended,
            long sent, long now) {
        if (!counts.recordOpen(status, reportedErrors, rows, intended, sent, now)) {
            return STOP;
        }
        return free(slot);
    }

    /** {@code slot} closed (or failed to connect): it leaves the pool until it is {@link #free} again. */
    synchronized void gone(Slot slot) {
        idle.remove(slot);
    }

    /**
     * A connection handed the request due at {@code intended} could not send it (its channel had closed): it
     * goes back to the head of the backlog, or counts as not sent when the run is over.
     */
    void requeue(long intended) {
        synchronized (this) {
            if (!over) {
                requeued.addFirst(intended);
                return;
            }
        }
        if (window.phase(intended) == Window.Phase.MEASURE) {
            tally.notSent(1);
        }
    }

    synchronized boolean isOver() {
        return over;
    }

    /** The oldest waiting request's due time, taken out of the backlog; {@link #IDLE} when none waits. */
    private long takeBacklog() {
        if (!requeued.isEmpty()) {
            return requeued.poll();
        }
        return handedOut < scheduled ? intended(handedOut++) : IDLE;
    }

    /** The number of the first request due at or after {@code t}. */
    private long firstDueAtOrAfter(long t) {
        long i = Math.max(0, (long) Math.ceil((t - window.start()) / 1e9 * ratePerSecond));
        while (i > 0 && intended(i - 1) >= t) {
            i--;
        }
        while (intended(i) < t) {
            i++;
        }
        return i;
    }
}
