package io.sluice.batch;

/** A source of nanosecond time, injected so tests can drive the batcher's clock by hand. */
@FunctionalInterface
public interface Ticker {
    long read();

    static Ticker system() {
        return System::nanoTime;
    }
}
