package io.sluice.config;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/** {@code retry}: of transient errors (deadlocks, lock timeouts, database unavailable): exponential backoff. */
public record Retry(int maxAttempts, Duration initialBackoff, Duration maxBackoff) implements Section {
    public static final Retry DEFAULT = new Retry(10, Duration.ofMillis(5), Duration.ofSeconds(1));

    public Retry {
        requireNonNull(initialBackoff, "retry.initial_backoff");
        requireNonNull(maxBackoff, "retry.max_backoff");
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("retry.max_attempts must be >= 1, got " + maxAttempts);
        }
    }

    @JsonCreator
    static Retry fromYaml(@JsonProperty("max_attempts") Integer maxAttempts,
            @JsonProperty("initial_backoff") Duration initialBackoff,
            @JsonProperty("max_backoff") Duration maxBackoff) {
        return new Retry(
                requireNonNullElse(maxAttempts, DEFAULT.maxAttempts),
                requireNonNullElse(initialBackoff, DEFAULT.initialBackoff),
                requireNonNullElse(maxBackoff, DEFAULT.maxBackoff));
    }
}
