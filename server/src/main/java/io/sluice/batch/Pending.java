package io.sluice.batch;

import io.sluice.write.Outcome;
import io.sluice.write.WriteRequest;
import java.util.concurrent.CompletableFuture;

/**
 * An admitted request waiting for its outcome (with its journal offset when it came from the journal). Whoever takes it from the {@link Batcher} must complete
 * {@link #future()}: no waiter is ever left hanging.
 */
public record Pending(WriteRequest request, CompletableFuture<Outcome> future, long enqueuedNanos, long offset) {
    /** No journal offset: a sync or direct write. */
    public static final long NO_OFFSET = -1;

    public Pending(WriteRequest request, long enqueuedNanos) {
        this(request, new CompletableFuture<>(), enqueuedNanos, NO_OFFSET);
    }

    /** A write replayed from the journal at {@code offset}. */
    public Pending(WriteRequest request, long enqueuedNanos, long offset) {
        this(request, new CompletableFuture<>(), enqueuedNanos, offset);
    }

    public int rows() {
        return request.rows();
    }
}
