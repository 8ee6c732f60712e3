package io.sluice.journal;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The journal's file I/O, behind an interface so tests can count fsyncs and inject faults (as square/tape's
 * tests swap in a {@code BrokenRandomAccessFile}). {@link SystemFileOps#INSTANCE} is the real thing.
 *
 * <p>Implementations must be thread-safe; see {@link SegmentFile} for what runs concurrently.
 */
interface FileOps {

    /** Opens a segment file for reading and writing, creating it (empty) if it does not exist. */
    SegmentFile open(Path path) throws IOException;

    /** Deletes a file if it exists. */
    void delete(Path path) throws IOException;

    /** Makes the directory's entries (created and deleted files) durable. */
    void syncDirectory(Path dir) throws IOException;

    /**
     * One open segment file, addressed by absolute position.
     *
     * <p>Thread-safe: {@link #read} may run concurrently with {@link #write} and {@link #force} on other
     * threads; the journal never issues two writes or truncations at once.
     */
    interface SegmentFile extends Closeable {
        void write(long position, byte[] src, int off, int len) throws IOException;

        /** Reads exactly {@code len} bytes, or throws {@link EOFException}. */
        void read(long position, byte[] dst, int off, int len) throws IOException;

        long size() throws IOException;

        void truncate(long size) throws IOException;

        /** Makes every byte written so far, and the file's size, durable. */
        void force() throws IOException;
    }
}
