package io.sluice.front;

import java.time.Duration;
import java.util.Map;

/**
 * A door into the write path (HTTP, Bolt, the application topics ...): a part with a lifecycle the server owns.
 * Built first (nothing taken), {@link #start started} last of all the parts, so that no request or record arrives
 * before what it needs exists; at shutdown every door {@link #stopAccepting stops accepting} before anything else
 * closes, then each {@link #drain drains} (waits, bounded, for the work it took to be answered or applied: the
 * appliers still run) and is {@link #close closed}, in reverse order of start. Registered with the server's
 * {@link Doors} as it is built, which is how {@code /health} hears of it.
 */
public interface Door extends AutoCloseable {

    /** Opens the listeners, or starts consuming; throws (leaving nothing open) when it cannot. */
    void start();

    /**
     * From now on nothing new is taken: a listener refuses new requests (with the protocol's "shutting down"), a
     * consumer polls no more; what is in flight goes on.
     */
    void stopAccepting();

    /** Waits up to {@code wait} for the work in flight; false when some was still running then. */
    boolean drain(Duration wait);

    /** Releases the listeners, clients and threads; anything still in flight is cut off. */
    @Override
    void close();

    /** Where it listens or what it reads, for the start-up line ({@code HTTP http://127.0.0.1:7474}). */
    String describe();

    /**
     * What it adds to {@code /health}, by section name (the application topics': {@code sources}); nothing by
     * default. Called on any thread, at any time after it is built (also before it starts).
     */
    default Map<String, Object> health() {
        return Map.of();
    }
}
