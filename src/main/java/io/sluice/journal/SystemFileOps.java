package io.sluice.journal;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Real file I/O on {@link RandomAccessFile}.
 *
 * <p>Why not {@link FileChannel}: a {@code FileChannel} is an {@code InterruptibleChannel}, so interrupting any
 * thread that is reading, writing or forcing it closes the channel for every thread. One interrupted HTTP
 * handler or applier would then fail the whole journal. {@code RandomAccessFile} I/O and
 * {@code FileDescriptor.sync()} ignore interrupts. The price is {@code seek}+{@code read} pairs, serialized
 * per file by a lock (held only for the copy into or out of the page cache, never across an fsync).
 *
 * <p>Thread-safe.
 */
final class SystemFileOps implements FileOps {
    static final SystemFileOps INSTANCE = new SystemFileOps();

    private SystemFileOps() {}

    @Override
    public SegmentFile open(Path path) throws IOException {
        return new RafSegmentFile(new RandomAccessFile(path.toFile(), "rw"));
    }

    @Override
    public void delete(Path path) throws IOException {
        Files.deleteIfExists(path);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        // A directory can only be fsynced through a FileChannel; clear the interrupt flag around it so an
        // interrupted caller does not turn into a ClosedByInterruptException, and restore it afterwards.
        boolean interrupted = Thread.interrupted();
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static final class RafSegmentFile implements SegmentFile {
        private final RandomAccessFile file;
        private final ReentrantLock lock = new ReentrantLock(); // guards the file pointer

        RafSegmentFile(RandomAccessFile file) {
            this.file = file;
        }

        @Override
        public void write(long position, byte[] src, int off, int len) throws IOException {
            lock.lock();
            try {
                file.seek(position);
                file.write(src, off, len);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void read(long position, byte[] dst, int off, int len) throws IOException {
            lock.lock();
            try {
                file.seek(position);
                file.readFully(dst, off, len);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public long size() throws IOException {
            return file.length();
        }

        @Override
        public void truncate(long size) throws IOException {
            lock.lock();
            try {
                file.setLength(size);
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void force() throws IOException {
            file.getFD().sync();
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }
}
