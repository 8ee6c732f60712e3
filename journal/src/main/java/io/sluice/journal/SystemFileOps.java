package io.sluice.journal;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.reflect.Method;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Real file I/O on {@link RandomAccessFile}.
 *
 * <p>Why not {@link FileChannel}: a {@code FileChannel} is an {@code InterruptibleChannel}, so interrupting any
 * thread that is reading, writing or forcing it closes the channel for every thread. One interrupted HTTP
 * handler or applier would then fail the whole journal. {@code RandomAccessFile} I/O and
 * {@code FileDescriptor.sync()} ignore interrupts. The price is {@code seek}+{@code read} pairs, serialized
 * per file by a lock (held only for the copy into or out of the page cache, never across an fsync).
 *
 * <p><b>Forcing.</b> A force is an {@code fdatasync} where the JDK lets this class have one that ignores
 * interrupts: the file's own {@code FileChannel}, made uninterruptible through the JDK's internal
 * {@code FileChannelImpl.setUninterruptible()} (what the JDK does for its own files; open to this code by the
 * launcher's and the build's {@code --add-opens java.base/sun.nio.ch}). An {@code fdatasync} skips the inode
 * when only its times changed, which with preallocated segments (see {@link Segment}) is most forces. Without
 * that access it falls back to {@code fsync} ({@code FileDescriptor.sync()}), the same guarantee at the cost
 * of the inode's write: {@link #fdatasync()} says which is in use. Two differences of the channel: a force the
 * file is closed under returns from the JDK without syncing, so this checks the channel is still open after it
 * and throws if not; and closing the file waits for a force in flight to return.
 *
 * <p>Thread-safe.
 */
final class SystemFileOps implements FileOps {
    static final SystemFileOps INSTANCE = new SystemFileOps();
    private static final Logger log = LoggerFactory.getLogger(SystemFileOps.class);
    /** {@code FileChannelImpl.setUninterruptible()}, or null where the JDK does not open it to us. */
    private static final Method SET_UNINTERRUPTIBLE = findSetUninterruptible();

    private SystemFileOps() {}

    @Override
    public SegmentFile open(Path path) throws IOException {
        RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw");
        return new RafSegmentFile(file, uninterruptibleChannel(file));
    }

    /** Whether forces are {@code fdatasync}s (else {@code fsync}s); see the class note. */
    static boolean fdatasync() {
        return SET_UNINTERRUPTIBLE != null;
    }

    private static Method findSetUninterruptible() {
        try {
            Method m = Class.forName("sun.nio.ch.FileChannelImpl").getMethod("setUninterruptible");
            m.setAccessible(true);
            return m;
        } catch (ReflectiveOperationException | RuntimeException e) { // InaccessibleObjectException without --add-opens
            log.info("Journal forces use fsync, not fdatasync: {} (run with --add-opens java.base/sun.nio.ch="
                    + "ALL-UNNAMED, as ./sluice does)", e.toString());
            return null;
        }
    }

    /** The file's channel, uninterruptible; null (forces use fsync) if that is not possible here. */
    private static FileChannel uninterruptibleChannel(RandomAccessFile file) {
        if (SET_UNINTERRUPTIBLE == null) {
            return null;
        }
        FileChannel channel = file.getChannel();
        try {
            SET_UNINTERRUPTIBLE.invoke(channel);
            return channel;
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.warn("Journal forces of this file use fsync: its channel could not be made uninterruptible: {}",
                    e.toString());
            return null;
        }
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
        private final FileChannel channel; // uninterruptible, for fdatasync; null: fsync through the descriptor
        private final ReentrantLock lock = new ReentrantLock(); // guards the file pointer

        RafSegmentFile(RandomAccessFile file, FileChannel channel) {
            this.file = file;
            this.channel = channel;
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
            if (channel != null) {
                channel.force(false); // fdatasync: the data, and the size when it changed
                if (!channel.isOpen()) { // closed under the force, which then returns without syncing
                    throw new ClosedChannelException();
                }
            } else {
                file.getFD().sync();
            }
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }
}
