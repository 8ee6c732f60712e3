package io.sluice.metrics;

/**
 * What the write path reports. Every method is a no-op by default, so code and tests that do not care about
 * metrics pass {@link #NONE}.
 */
public interface Metrics {
    Metrics NONE = new Metrics() {};

    /** A request answered: mode (sync, async, direct, read, alone), HTTP status, rows. */
    default void request(String mode, int status, int rows) {}

    /** A batch committed: its rows, requests and commit latency. */
    default void batchCommitted(int rows, int requests, long nanos) {}

    /** A transaction hit a transient error (deadlock, lock timeout) and will be retried. */
    default void transientRetry(String code) {}

    /** A failing batch was split in two to isolate the bad request. */
    default void bisection() {}

    /** A request failed while applying (constraint violation, type error ...). */
    default void writeFailed(String code) {}
}
