package io.sluice.front;

import java.time.Duration;

/**
 * A door into the write path (HTTP, Bolt ...): a part with a lifecycle the server owns. Built first (nothing
 * accepted), {@link #start started} last of all the parts, so that no request arrives before what it needs exists;
 * at shutdown every front end {@link #stopAccepting stops accepting} before anything else closes, then each
 * {@link #drain drains} (waits, bounded, for what it admitted to be answered: the appliers still run) and is
 * {@link #close closed}, in reverse order of start.
 */
public interface FrontEnd extends AutoCloseable {

    /** Opens the listeners; throws (leaving nothing open) when one cannot be opened. */
    void start();

    /** From now on new requests are refused (with the protocol's "shutting down"); those in flight go on. */
    void stopAccepting();

    /** Waits up to {@code wait} for the requests in flight; false when some were still running then. */
    boolean drain(Duration wait);

    /** Releases the listeners and threads; anything still in flight is cut off. */
    @Override
    void close();

    /** Where it listens, for the start-up line ({@code HTTP http://127.0.0.1:7474}). */
    String describe();
}
