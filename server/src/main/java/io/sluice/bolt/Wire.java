package io.sluice.bolt;

import io.sluice.vocab.GraphException;
import io.sluice.write.Outcome;
import java.io.ByteArrayOutputStream;
import java.util.concurrent.CompletableFuture;

/**
 * What a connection gives its {@link BoltProtocol}: where replies go, and how to wait for a step that may block
 * while the driver's read timeout is kept from firing (NOOPs).
 */
interface Wire {
    /** What replies are buffered to before they are written even though more messages wait. */
    int FLUSH_BYTES = 64 * 1024;

    /** Work that may block on the database (a statement, a commit, a credentials check). */
    @FunctionalInterface
    interface Call<T> {
        T call() throws GraphException;
    }

    ByteArrayOutputStream out();

    /** Runs {@code call} where it may block, keeping the driver's read timeout from firing meanwhile. */
    <T> T blocking(Call<T> call) throws GraphException, InterruptedException;

    /** Waits for a write's outcome, keeping the driver's read timeout from firing meanwhile. */
    Outcome await(CompletableFuture<Outcome> outcome) throws InterruptedException;

    /** Sends what is buffered (a long result streams out as it is written). */
    void flush() throws InterruptedException;

    /** The connection has logged in: it may send large messages now. */
    void markLoggedIn();
}
