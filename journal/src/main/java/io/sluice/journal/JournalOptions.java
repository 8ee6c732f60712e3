package io.sluice.journal;

/**
 * How a journal lays out its files.
 *
 * @param maxSegmentBytes a segment is rolled before a record would take it past this size (a record larger
 *     than this gets a segment of its own); 32 B to 1 GiB, default 64 MiB
 * @param maxRecordBytes the largest payload {@link Journal#append} accepts; 1 B to 1 GiB, default 16 MiB.
 *     Recovery does not use it, so lowering it never makes existing records look corrupt.
 *
 * <p>Immutable; thread-safe.
 */
public record JournalOptions(long maxSegmentBytes, int maxRecordBytes) {
    public static final long DEFAULT_MAX_SEGMENT_BYTES = 64L << 20;
    public static final int DEFAULT_MAX_RECORD_BYTES = 16 << 20;
    private static final long MIN_SEGMENT_BYTES = FrameCodec.SEGMENT_HEADER_BYTES + FrameCodec.FRAME_HEADER_BYTES;

    public JournalOptions {
        if (maxSegmentBytes < MIN_SEGMENT_BYTES || maxSegmentBytes > FrameCodec.MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("maxSegmentBytes must be in [" + MIN_SEGMENT_BYTES + ", "
                    + FrameCodec.MAX_PAYLOAD_BYTES + "], got " + maxSegmentBytes);
        }
        if (maxRecordBytes < 1 || maxRecordBytes > FrameCodec.MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("maxRecordBytes must be in [1, " + FrameCodec.MAX_PAYLOAD_BYTES
                    + "], got " + maxRecordBytes);
        }
    }

    public static JournalOptions defaults() {
        return new JournalOptions(DEFAULT_MAX_SEGMENT_BYTES, DEFAULT_MAX_RECORD_BYTES);
    }

    public JournalOptions withMaxSegmentBytes(long bytes) {
        return new JournalOptions(bytes, maxRecordBytes);
    }

    public JournalOptions withMaxRecordBytes(int bytes) {
        return new JournalOptions(maxSegmentBytes, bytes);
    }
}
