package io.sluice.journal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * One segment file, holding the records [{@link #baseOffset()}, {@link #nextOffset()}).
 *
 * <p><b>Preallocation.</b> The file runs ahead of its frames: when an append reaches the end of the file, it
 * also writes zeros up to {@link #PREALLOCATE_BYTES} past its frames (never past the journal's segment size),
 * so most forces find the file's size unchanged and a {@code fdatasync} writes only the data, not the inode (on
 * this project's ext4, a device round trip a force). Recovery reads a zero tail after the last valid frame as
 * the clean end of the segment, not as damage ({@link #recover}). A rolled segment keeps its zeros (its file is
 * then at most the segment size): cutting it would free blocks that, on ext4 without a journal, a later file
 * can be given while this file's inode, unforced, still maps them, so that after a power loss its tail would
 * hold another file's bytes and read as damage. The active segment is cut back, and forced, on a clean close
 * ({@link #trimAndForce}); so a crash leaves zeros after the records of any segment, a clean stop only after
 * rolled ones.
 *
 * <p>Thread-safety: {@link #append}, {@link #trimAndForce} and {@link #close} are called by the journal under its
 * write lock, so there is one writer. {@link #read} and {@link #force} may run concurrently with an append on
 * other threads: {@code nextOffset} and {@code size} are volatile and advance only after the bytes are written,
 * so a reader that reads them sees whole frames up to them; a trim cuts only bytes past {@code size}.
 * {@link #fileLength} is the writer's: read it under the journal's write lock.
 */
final class Segment {
    /** How far past its frames an append that reaches the end of the file extends it with zeros. */
    static final int PREALLOCATE_BYTES = 1 << 20;
    private static final byte[] ZEROS = new byte[64 * 1024];

    private final Path path;
    private final long baseOffset;
    private final FileOps.SegmentFile file;
    private final SparseIndex index;
    private volatile long nextOffset;
    private volatile long size;
    private volatile long durableSize; // bytes known forced; readers never look past it
    private long fileLength; // the file's length, frames and zeros after them; by the writer only

    /**
     * What recovery found in one file: a usable segment (maybe truncated), or none if the header is bad;
     * {@code droppedBytes} were cut from its end (preallocated zeros if {@code problem} is null).
     */
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
        this.fileLength = size;
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
     * Opens an existing segment file and scans every frame. At the first frame that does not check out the
     * scan stops: if every byte from there to the end of the file is zero, that is the segment's clean end (a
     * preallocated tail a crash left, see the class note); otherwise it is a torn or corrupt frame, and a
     * {@code problem}. Either way the file is cut back to its valid frames, and forced: frames that survived a
     * process crash may still be only in the page cache, and they are about to be treated as durable.
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
            if (problem != null && allZero(file, validEnd, fileSize)) {
                problem = null; // a preallocated tail: the end of the records, not damage
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

    private static boolean allZero(FileOps.SegmentFile file, long from, long to) throws IOException {
        byte[] buffer = new byte[(int) Math.min(ZEROS.length, to - from)];
        for (long at = from; at < to; at += buffer.length) {
            int n = (int) Math.min(buffer.length, to - at);
            file.read(at, buffer, 0, n);
            for (int i = 0; i < n; i++) {
                if (buffer[i] != 0) {
                    return false;
                }
            }
        }
        return true;
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
     * Writes the frames of {@code payloads}, the first at offset {@link #nextOffset()}, in one write; if they
     * reach past the end of the file, then zeros after them, up to {@link #PREALLOCATE_BYTES} more but not past
     * {@code maxBytes}. Not durable until {@link #force}. On failure the segment's state is unknown; the journal
     * then fails.
     */
    void append(List<byte[]> payloads, long maxBytes) throws IOException {
        long offset = nextOffset;
        byte[] frames = FrameCodec.encodeFrames(offset, payloads);
        long position = size;
        long end = position + frames.length;
        file.write(position, frames, 0, frames.length);
        if (end > fileLength) {
            long target = Math.max(end, Math.min(maxBytes, end + PREALLOCATE_BYTES));
            for (long at = end; at < target; at += ZEROS.length) {
                file.write(at, ZEROS, 0, (int) Math.min(ZEROS.length, target - at));
            }
            fileLength = target;
        }
        for (byte[] p : payloads) {
            index.frameAt(offset++, position);
            position += FrameCodec.frameBytes(p.length);
        }
        size = position;
        nextOffset = offset;
    }

    /**
     * Cuts the file back to its frames, dropping the preallocated zeros after them, and forces the new size; for
     * the active segment when the journal closes, after its last force.
     */
    void trimAndForce() throws IOException {
        if (fileLength > size) {
            file.truncate(size);
            fileLength = size;
            file.force();
        }
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

    /** The file's length: {@link #size()} and the zeros preallocated after the frames. */
    long fileLength() {
        return fileLength;
    }

    /** Bytes of the segment's header and frames (the file may be longer: zeros preallocated after them). */
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
