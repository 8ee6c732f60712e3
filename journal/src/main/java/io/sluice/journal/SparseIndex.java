package io.sluice.journal;

import java.util.Arrays;

/**
 * A sparse, in-memory map from offset to file position within one segment: one entry per
 * {@link #INTERVAL_BYTES} of frames, as Kafka's offset index, so a read scans at most that much. It is rebuilt
 * by the recovery scan on open and never written to disk.
 *
 * <p>Thread-safety: one writer (the journal's appender, under its write lock) and any number of concurrent
 * readers. The writer only fills array slots beyond the published size, then publishes a new size through a
 * volatile snapshot, so readers never see a half-written entry.
 */
final class SparseIndex {
    static final int INTERVAL_BYTES = 4096;

    /** A record's offset and the file position of its frame. */
    record Entry(long offset, long position) {}

    private record Snapshot(long[] offsets, long[] positions, int size) {}

    private final Entry first;
    private volatile Snapshot snapshot = new Snapshot(new long[16], new long[16], 0);
    private long lastPosition;

    SparseIndex(long baseOffset) {
        this.first = new Entry(baseOffset, FrameCodec.SEGMENT_HEADER_BYTES);
        this.lastPosition = first.position();
    }

    /** Notes that the frame of {@code offset} starts at {@code position}; keeps it if far enough on. */
    void frameAt(long offset, long position) {
        if (position - lastPosition < INTERVAL_BYTES) {
            return;
        }
        Snapshot s = snapshot;
        long[] offsets = s.offsets();
        long[] positions = s.positions();
        if (s.size() == offsets.length) {
            offsets = Arrays.copyOf(offsets, offsets.length * 2);
            positions = Arrays.copyOf(positions, positions.length * 2);
        }
        offsets[s.size()] = offset;
        positions[s.size()] = position;
        snapshot = new Snapshot(offsets, positions, s.size() + 1);
        lastPosition = position;
    }

    /** The entry with the greatest offset not above {@code offset}, or the segment's first frame. */
    Entry floor(long offset) {
        Snapshot s = snapshot;
        int i = Arrays.binarySearch(s.offsets(), 0, s.size(), offset);
        if (i < 0) {
            i = -i - 2; // insertion point - 1
        }
        return i < 0 ? first : new Entry(s.offsets()[i], s.positions()[i]);
    }
}
