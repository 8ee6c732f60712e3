package io.sluice.journal;

import java.util.Arrays;
import java.util.Objects;

/**
 * One record read back from the journal. The payload array belongs to the caller: the journal allocates a
 * fresh one per read and keeps no reference to it. Immutable apart from that array; thread-safe to share
 * if the caller does not modify the payload.
 */
public record JournalRecord(long offset, byte[] payload) {
    public JournalRecord {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0, got " + offset);
        }
        Objects.requireNonNull(payload, "payload");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JournalRecord r && r.offset == offset && Arrays.equals(r.payload, payload);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(offset) * 31 + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return "JournalRecord[offset=" + offset + ", " + payload.length + " bytes]";
    }
}
