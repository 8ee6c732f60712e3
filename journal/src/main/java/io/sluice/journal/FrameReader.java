package io.sluice.journal;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Reads frames forward from a position in a segment file, through a buffer so that small records do not cost
 * a system call each. Every frame is checked: whole on disk, sane length, the expected offset, CRC.
 *
 * <p>Not thread-safe: one instance per scan, on one thread.
 */
final class FrameReader {
    private static final int BUFFER_BYTES = 64 * 1024;

    private final FileOps.SegmentFile file;
    private final Path path;
    private final long limit;
    private final byte[] buffer;
    private final byte[] headerBytes = new byte[FrameCodec.FRAME_HEADER_BYTES];
    private long filePosition; // file position of buffer[bufferLength]
    private int bufferPosition;
    private int bufferLength;

    /** Reads bytes in [position, limit) of {@code file}; {@code limit} must not exceed the bytes written. */
    FrameReader(FileOps.SegmentFile file, Path path, long position, long limit) {
        this.file = file;
        this.path = path;
        this.limit = limit;
        this.filePosition = position;
        this.buffer = new byte[(int) Math.max(0, Math.min(BUFFER_BYTES, limit - position))];
    }

    /** File position of the next unread byte: after {@link #skip} or {@link #payload}, the next frame. */
    long position() {
        return filePosition - (bufferLength - bufferPosition);
    }

    long remaining() {
        return limit - position();
    }

    /** Reads the next frame's header, checking that the whole frame is on disk and carries {@code expected}. */
    FrameCodec.Header header(long expectedOffset) throws IOException {
        long at = position();
        long remaining = remaining();
        if (remaining < FrameCodec.FRAME_HEADER_BYTES) {
            throw corrupt(at, "torn frame header (" + remaining + " of " + FrameCodec.FRAME_HEADER_BYTES + " bytes)");
        }
        readFully(headerBytes, 0, headerBytes.length);
        FrameCodec.Header h = FrameCodec.decodeHeader(headerBytes);
        if (h.length() > FrameCodec.MAX_PAYLOAD_BYTES) {
            throw corrupt(at, "impossible payload length " + h.length());
        }
        if (h.length() > remaining - FrameCodec.FRAME_HEADER_BYTES) {
            throw corrupt(at, "torn payload (length " + h.length() + ", "
                    + (remaining - FrameCodec.FRAME_HEADER_BYTES) + " bytes on disk)");
        }
        if (h.offset() != expectedOffset) {
            throw corrupt(at, "offset " + h.offset() + " where " + expectedOffset + " was expected");
        }
        return h;
    }

    /** Reads and CRC-checks the payload of the frame whose header was just read. */
    byte[] payload(FrameCodec.Header h) throws IOException {
        long at = position() - FrameCodec.FRAME_HEADER_BYTES;
        byte[] payload = new byte[(int) h.length()];
        readFully(payload, 0, payload.length);
        if (FrameCodec.crc(h.offset(), payload) != h.crc()) {
            throw corrupt(at, "CRC mismatch in the frame of offset " + h.offset());
        }
        return payload;
    }

    /** Skips the payload of the frame whose header was just read, unchecked. */
    void skip(FrameCodec.Header h) {
        long n = h.length();
        int inBuffer = bufferLength - bufferPosition;
        if (n <= inBuffer) {
            bufferPosition += (int) n;
        } else {
            bufferPosition = bufferLength;
            filePosition += n - inBuffer;
        }
    }

    private void readFully(byte[] dst, int off, int len) throws IOException {
        while (len > 0) {
            if (bufferPosition == bufferLength) {
                if (len >= buffer.length) { // large payload: straight into the destination
                    file.read(filePosition, dst, off, len);
                    filePosition += len;
                    return;
                }
                int n = (int) Math.min(buffer.length, limit - filePosition);
                if (n <= 0) {
                    throw new EOFException(path + ": read past byte " + limit);
                }
                file.read(filePosition, buffer, 0, n);
                filePosition += n;
                bufferPosition = 0;
                bufferLength = n;
            }
            int n = Math.min(len, bufferLength - bufferPosition);
            System.arraycopy(buffer, bufferPosition, dst, off, n);
            bufferPosition += n;
            off += n;
            len -= n;
        }
    }

    private CorruptFrameException corrupt(long at, String what) {
        return new CorruptFrameException(path.getFileName() + " at byte " + at + ": " + what);
    }
}
