package io.sluice.apply;

import java.time.Duration;

/**
 * Exponential backoff for transient errors: attempt {@code n} (from 1) waits
 * {@code min(initial * 2^(n-1), max)}, jittered by up to half, before attempt {@code n+1}.
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
    public RetryPolicy {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be >= 1, got " + maxAttempts);
        }
    }

    public Duration backoff(int attempt, double jitter01) {
        long base = initialBackoff.toNanos() << Math.min(attempt - 1, 30);
        long capped = Math.min(base <= 0 ? Long.MAX_VALUE : base, maxBackoff.toNanos());
        return Duration.ofNanos(capped / 2 + (long) (capped / 2 * jitter01));
    }
}
