package io.sluice.time;

import java.util.concurrent.ThreadLocalRandom;

/**
 * A source of jitter for backoffs: a number in [0, 1). Injected, so a test can fix it and assert exact pauses.
 * Thread-safe.
 */
@FunctionalInterface
public interface Jitter {
    /** Uniform in [0, 1), from the calling thread's own generator (no contention between appliers). */
    Jitter RANDOM = () -> ThreadLocalRandom.current().nextDouble();

    double next();

    /** Always {@code value}; {@code value} must be in [0, 1). */
    static Jitter fixed(double value) {
        if (!(value >= 0 && value < 1)) {
            throw new IllegalArgumentException("jitter must be in [0, 1), got " + value);
        }
        return () -> value;
    }
}
