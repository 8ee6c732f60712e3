package io.sluice.config;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * {@code batch}: when a batch closes: at the row limit, or when its oldest write has waited {@code maxWait} (the
 * linger that lets a batch fill while the applier is free), whichever comes first. With {@code adaptive}, the row
 * limit moves between {@code minRows} and {@code maxRows}, growing while throughput rises and commits stay under
 * {@code targetCommit}, shrinking on slow commits and errors; without it, it is {@code maxRows}.
 */
public record Batch(int maxRows, Duration maxWait, int minRows, boolean adaptive, Duration targetCommit)
        implements Section {
    /** The defaults. A file without {@code min_rows} gets 50 or its {@code max_rows}, the lower. */
    public static final Batch DEFAULT = new Batch(2000, Duration.ofNanos(200_000), 50, true, Duration.ofMillis(100));

    public Batch {
        requireNonNull(maxWait, "batch.max_wait");
        requireNonNull(targetCommit, "batch.target_commit");
        if (maxRows < 1) {
            throw new IllegalArgumentException("batch.max_rows must be >= 1, got " + maxRows);
        }
        if (minRows < 1 || minRows > maxRows) {
            throw new IllegalArgumentException("batch.min_rows must be in [1, max_rows], got " + minRows);
        }
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("batch.max_wait must be >= 0, got " + maxWait);
        }
    }

    @JsonCreator
    static Batch fromYaml(@JsonProperty("max_rows") Integer maxRows, @JsonProperty("max_wait") Duration maxWait,
            @JsonProperty("min_rows") Integer minRows, @JsonProperty("adaptive") Boolean adaptive,
            @JsonProperty("target_commit") Duration targetCommit) {
        int max = requireNonNullElse(maxRows, DEFAULT.maxRows);
        return new Batch(
                max,
                requireNonNullElse(maxWait, DEFAULT.maxWait),
                requireNonNullElse(minRows, Math.min(DEFAULT.minRows, max)),
                requireNonNullElse(adaptive, DEFAULT.adaptive),
                requireNonNullElse(targetCommit, DEFAULT.targetCommit));
    }

    /** The same with another row limit; {@code minRows} is kept, so below it, lower that too. */
    public Batch withMaxRows(int maxRows) {
        return new Batch(maxRows, maxWait, minRows, adaptive, targetCommit);
    }

    /** The same with another floor for the adaptive row limit. */
    public Batch withMinRows(int minRows) {
        return new Batch(maxRows, maxWait, minRows, adaptive, targetCommit);
    }
}
