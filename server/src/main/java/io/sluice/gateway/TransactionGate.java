package io.sluice.gateway;

import io.sluice.batch.Admission;
import io.sluice.txn.TxRegistry;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What an explicit transaction occupies while it is open, shared by both HTTP APIs' registries: one of
 * {@code maxOpen} places (the bound is over both APIs together, since over Bolt each open transaction holds one of
 * the driver's connections), and one pending row of the write path's {@link Admission} bound, so open transactions
 * and batched writes share one budget. Entering waits for admission like any write (up to {@code timeout}), then
 * refuses with a transient {@code ResourceExhaustion} (HTTP 503 with Retry-After); a place is waited for the same
 * way, then refused with the registry's limit error. Thread-safe.
 */
public final class TransactionGate implements TxRegistry.Gate {
    private final Admission admission;
    private final int maxOpen;
    private final Duration timeout;
    private final AtomicInteger open = new AtomicInteger();
    /** The {@code maxOpen} places, handed out in order of asking. */
    private final Semaphore places;

    public TransactionGate(Admission admission, int maxOpen, Duration timeout) {
        this.admission = admission;
        this.maxOpen = maxOpen;
        this.timeout = timeout;
        this.places = new Semaphore(maxOpen, true);
    }

    /**
     * Takes a place, waiting for one up to the admission timeout as a write waits for room (a driver's managed
     * transactions from more sessions than places then take turns instead of being refused and backing off),
     * then one pending row of admission.
     */
    @Override
    public void enter() throws GraphException {
        boolean placed;
        try {
            placed = places.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            placed = false;
        }
        if (!placed) {
            throw new GraphException(TxRegistry.limitReached(maxOpen), null);
        }
        open.incrementAndGet();
        Admission.Result r;
        try {
            r = admission.acquire(1, 0, timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            r = Admission.Result.CLOSED;
        }
        if (r != Admission.Result.ADMITTED) {
            open.decrementAndGet();
            places.release();
            throw new GraphException(new Neo4jError(Neo4jStatus.Request.RESOURCE_EXHAUSTION,
                    r == Admission.Result.FULL
                            ? "pending work is at its bound; an explicit transaction counts as one pending row; waited "
                                    + timeout
                            : "sluice is shutting down"), null);
        }
    }

    @Override
    public void leave() {
        admission.release(1, 0);
        open.decrementAndGet();
        places.release();
    }

    /** Explicit transactions open now, over both APIs (for the gauge). */
    public int open() {
        return open.get();
    }
}
