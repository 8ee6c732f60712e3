package io.sluice.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** A byte count written in the config as a number or with a unit ({@code 64mb}). */
public record ByteSize(long bytes) {
    public ByteSize {
        if (bytes < 0) {
            throw new IllegalArgumentException("byte size must be >= 0, got " + bytes);
        }
    }

    @JsonCreator
    public static ByteSize parse(Object value) {
        return value instanceof Number n ? new ByteSize(n.longValue()) : new ByteSize(Sizes.bytes(value.toString()));
    }

    @JsonValue
    @Override
    public String toString() {
        return bytes % (1 << 20) == 0 ? (bytes >> 20) + "mb" : Long.toString(bytes);
    }
}
