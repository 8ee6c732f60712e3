package io.sluice.journal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * One segment file, holding the records [{@link #baseOffset()}, {@link #nextOffset()}).
 *
 * <p>Thread-safety: {@link #append} and {@link #close} are called by the journal under its write lock, so
 * there is one writer. {@link #read} and {@link #force} may run concurrently with an append on other threads:
 * {@code nextOffset} and {@code size} are volatile and advance only after the bytes are written, so a reader
 * that reads them sees whole frames up to them.
 */
final class Segment {
    private final Path path;
    private final long baseOffset;
    private final FileOps.SegmentFile file;
    private final SparseIndex index;
    private volatile long nextOffset;
    private volatile long size;
    private volatile long durableSize; // bytes known forced; readers never look past it

    /** What recovery found in one file: a usable segment (maybe truncated), or none if the header is bad. */
    record Recovered(Segment segment, String problem, long droppedBytes) {}

    private Segment(Path path, long baseOffset, FileOps.SegmentFile file, SparseIndex index, long nextOffset,
            long size) {
        this.path = path;
        this.baseOffset = baseOffset;
        this.file = file;
        this.index = index;
        this.nextOffset = nextOffset;
        this.size = size;
        this.durableSize = size;
    }

    static Path fileName(Path dir, long baseOffset) {
        return dir.resolve(String.format("%020d.log", baseOffset));
    }

    /** Creates an empty segment: header written, not yet forced (the covering force does that). */
    static Segment create(FileOps ops, Path dir, long baseOffset) throws IOException {
        Path path = fileName(dir, baseOffset);
        FileOps.SegmentFile file = ops.open(path);
        try {
            file.truncate(0);
            byte[] header = FrameCodec.segmentHeader(baseOffset);
            file.write(0, header, 0, header.length);
        } catch (IOException | RuntimeException e) {
            closeQuietly(file, e);
            throw e;
        }
        Segment segment = new Segment(path, baseOffset, file, new SparseIndex(baseOffset), baseOffset, header());
        segment.durableSize = 0;
        return segment;
    }

    /**
     * Opens an existing segment file and scans every frame. At the first torn or corrupt one the file is
     * truncated to the valid prefix. Either way the file is forced: frames that survived a process crash may
     * still be only in the page cache, and they are about to be treated as durable.
     */
    static Recovered recover(FileOps ops, Path path, long baseOffset) throws IOException {
        FileOps.SegmentFile file = ops.open(path);
        try {
            long fileSize = file.size();
            String headerProblem = headerProblem(file, fileSize, baseOffset);
            if (headerProblem != null) {
                file.close();
                return new Recovered(null, headerProblem, fileSize);
            }
            SparseIndex index = new SparseIndex(baseOffset);
            FrameReader reader = new FrameReader(file, path, header(), fileSize);
            long next = baseOffset;
            long validEnd = reader.position();
            String problem = null;
            while (reader.remaining() > 0) {
                try {
                    reader.payload(reader.header(next));
                } catch (CorruptFrameException e) {
                    problem = e.getMessage();
                    break;
                }
                index.frameAt(next, validEnd);
                next++;
                validEnd = reader.position();
            }
            if (validEnd < fileSize) {
                file.truncate(validEnd);
            }
            file.force();
            return new Recovered(new Segment(path, baseOffset, file, index, next, validEnd), problem,
                    fileSize - validEnd);
        } catch (IOException | RuntimeException e) {
            closeQuietly(file, e);
            throw e;
        }
    }

    private static String headerProblem(FileOps.SegmentFile file, long fileSize, long baseOffset)
            throws IOException {
        if (fileSize < header()) {
            return "torn segment header (" + fileSize + " of " + header() + " bytes)";
        }
        byte[] header = new byte[header()];
        file.read(0, header, 0, header.length);
        return FrameCodec.segmentHeaderProblem(header, baseOffset);
    }

    /**
     * Writes the frames of {@code payloads}, the first at offset {@link #nextOffset()}, in one write. Not
     * durable until {@link #force}. On failure the segment's state is unknown; the journal then fails.
     */
    void append(List<byte[]> payloads) throws IOException {
        long offset = nextOffset;
        byte[] frames = FrameCodec.encodeFrames(offset, payloads);
        long position = size;
        file.write(position, frames, 0, frames.length);
        for (byte[] p : payloads) {
            index.frameAt(offset++, position);
            position += FrameCodec.frameBytes(p.length);
        }
        size = position;
        nextOffset = offset;
    }

    /**
     * Adds to {@code out} the records from {@code from} up to (not including) {@code end}, at most
     * {@code maxRecords} in {@code out} in all, while their payloads fit in {@code budget} bytes (but always
     * one record if {@code out} is empty). Records below {@code end} must be durable: this reads only bytes
     * a force has covered ({@link #markDurable}).
     *
     * @return the payload bytes added
     */
    long read(long from, long end, int maxRecords, long budget, List<JournalRecord> out) throws IOException {
        SparseIndex.Entry start = index.floor(from);
        FrameReader reader = new FrameReader(file, path, start.position(), durableSize);
        long used = 0;
        for (long offset = start.offset(); offset < end && out.size() < maxRecords; offset++) {
            FrameCodec.Header h = reader.header(offset);
            if (offset < from) {
                reader.skip(h);
                continue;
            }
            if (!out.isEmpty() && used + h.length() > budget) {
                break;
            }
            out.add(new JournalRecord(offset, reader.payload(h)));
            used += h.length();
        }
        return used;
    }

    void force() throws IOException {
        file.force();
    }

    /** Records that a force has covered the first {@code bytes} bytes; called by the force leader. */
    void markDurable(long bytes) {
        if (bytes > durableSize) {
            durableSize = bytes;
        }
    }

    void close() throws IOException {
        file.close();
    }

    Path path() {
        return path;
    }

    long baseOffset() {
        return baseOffset;
    }

    long nextOffset() {
        return nextOffset;
    }

    boolean isEmpty() {
        return nextOffset == baseOffset;
    }

    /** Bytes in the file: header and frames. */
    long size() {
        return size;
    }

    private static int header() {
        return FrameCodec.SEGMENT_HEADER_BYTES;
    }

    private static void closeQuietly(FileOps.SegmentFile file, Exception failure) {
        try {
            file.close();
        } catch (IOException e) {
            failure.addSuppressed(e);
        }
    }

    @Override
    public String toString() {
        return path.getFileName() + "[" + baseOffset + ".." + nextOffset + ")";
    }
}
