package io.sluice.journal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a journal directory ({@code journal.lock}), so that two journals (in this process or
 * another) never append to the same files; also taken by {@code sluice kafka} on its data directory, under a
 * name of its own. The channel is touched only here and in {@link #close}, so an interrupt elsewhere cannot close
 * it and silently drop the lock.
 *
 * <p>Thread-safe (immutable after acquisition).
 */
public final class DirectoryLock implements Closeable {
    static final String FILE_NAME = "journal.lock";

    private final FileChannel channel;

    private DirectoryLock(FileChannel channel) {
        this.channel = channel;
    }

    static DirectoryLock acquire(Path dir) throws IOException {
        return acquire(dir, FILE_NAME, "journal");
    }

    /**
     * Locks {@code dir} through the file {@code fileName} in it (created if missing), or fails at once; {@code what}
     * names the directory's owner in the error ("journal DIR is open in another process").
     */
    public static DirectoryLock acquire(Path dir, String fileName, String what) throws IOException {
        FileChannel channel = FileChannel.open(dir.resolve(fileName), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        try {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                throw new IOException(what + " " + dir + " is open in another process");
            }
            return new DirectoryLock(channel);
        } catch (OverlappingFileLockException e) {
            channel.close();
            throw new IOException(what + " " + dir + " is already open in this process", e);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
