package io.sluice.config;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * {@code admission}: bounds on pending (admitted, not yet committed) work. At a bound a new write waits up to
 * {@code timeout}, then is refused with 503 and Retry-After. Bodies above {@code maxBodyBytes} get 413.
 */
public record Admission(long maxPendingRows, ByteSize maxPendingBytes, Duration timeout, ByteSize maxBodyBytes)
        implements Section {
    public static final Admission DEFAULT = new Admission(100_000, new ByteSize(256L << 20), Duration.ofSeconds(2),
            new ByteSize(16L << 20));

    public Admission {
        requireNonNull(maxPendingBytes, "admission.max_pending_bytes");
        requireNonNull(timeout, "admission.timeout");
        requireNonNull(maxBodyBytes, "admission.max_body_bytes");
        if (maxPendingRows < 1) {
            throw new IllegalArgumentException("admission.max_pending_rows must be >= 1, got " + maxPendingRows);
        }
        if (maxBodyBytes.bytes() > maxPendingBytes.bytes()) {
            throw new IllegalArgumentException("admission.max_body_bytes (" + maxBodyBytes
                    + ") must not exceed admission.max_pending_bytes (" + maxPendingBytes + ")");
        }
    }

    @JsonCreator
    static Admission fromYaml(@JsonProperty("max_pending_rows") Long maxPendingRows,
            @JsonProperty("max_pending_bytes") ByteSize maxPendingBytes, @JsonProperty("timeout") Duration timeout,
            @JsonProperty("max_body_bytes") ByteSize maxBodyBytes) {
        return new Admission(
                requireNonNullElse(maxPendingRows, DEFAULT.maxPendingRows),
                requireNonNullElse(maxPendingBytes, DEFAULT.maxPendingBytes),
                requireNonNullElse(timeout, DEFAULT.timeout),
                requireNonNullElse(maxBodyBytes, DEFAULT.maxBodyBytes));
    }

    /** The same with another bound on pending rows. */
    public Admission withMaxPendingRows(long maxPendingRows) {
        return new Admission(maxPendingRows, maxPendingBytes, timeout, maxBodyBytes);
    }
}
