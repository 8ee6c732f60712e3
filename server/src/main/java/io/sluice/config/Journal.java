package io.sluice.config;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code journal}: the async journal (in {@code DATA/journal}, dead letters in {@code DATA/dead-letters}): bounds on
 * the unapplied backlog (at a bound, async writes wait the admission timeout, then get 503), segment size.
 * {@code kafka}: the async journal on Kafka instead; null (not set) keeps it in {@code DATA/journal}.
 */
public record Journal(long maxLagRows, ByteSize maxLagBytes, ByteSize segmentBytes, Kafka kafka)
        implements Section {
    public static final Journal DEFAULT = new Journal(1_000_000, new ByteSize(1L << 30), new ByteSize(64L << 20), null);

    public Journal {
        requireNonNull(maxLagBytes, "journal.max_lag_bytes");
        requireNonNull(segmentBytes, "journal.segment_bytes");
        if (maxLagRows < 1 || maxLagBytes.bytes() < 1) {
            throw new IllegalArgumentException("journal.max_lag_rows and max_lag_bytes must be >= 1");
        }
        if (segmentBytes.bytes() < 4096) {
            throw new IllegalArgumentException("journal.segment_bytes must be >= 4096, got " + segmentBytes);
        }
    }

    @JsonCreator
    static Journal fromYaml(@JsonProperty("max_lag_rows") Long maxLagRows,
            @JsonProperty("max_lag_bytes") ByteSize maxLagBytes, @JsonProperty("segment_bytes") ByteSize segmentBytes,
            @JsonProperty("kafka") Kafka kafka) {
        return new Journal(
                requireNonNullElse(maxLagRows, DEFAULT.maxLagRows),
                requireNonNullElse(maxLagBytes, DEFAULT.maxLagBytes),
                requireNonNullElse(segmentBytes, DEFAULT.segmentBytes),
                kafka);
    }

    /** The same, its async journal on Kafka at {@code bootstrap} (the config's other Kafka settings kept). */
    public Journal withKafka(String bootstrap) {
        return withKafka((kafka == null ? Kafka.DEFAULT : kafka).withBootstrap(bootstrap));
    }

    /** The same, its async journal on {@code kafka} (null: in {@code DATA/journal}). */
    public Journal withKafka(Kafka kafka) {
        return new Journal(maxLagRows, maxLagBytes, segmentBytes, kafka);
    }
}
