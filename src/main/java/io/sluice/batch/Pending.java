package io.sluice.batch;

import io.sluice.write.Outcome;
import io.sluice.write.WriteRequest;
import java.util.concurrent.CompletableFuture;

/**
 * An admitted request waiting for its outcome. Whoever takes it from the {@link Batcher} must complete
 * {@link #future()}: no waiter is ever left hanging.
 */
public record Pending(WriteRequest request, CompletableFuture<Outcome> future, long enqueuedNanos) {
    public Pending(WriteRequest request, long enqueuedNanos) {
        this(request, new CompletableFuture<>(), enqueuedNanos);
    }

    public int rows() {
        return request.rows();
    }
}
