package io.sluice.journal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Real file I/O with hooks, as square/tape's {@code BrokenRandomAccessFile}: counts forces, and lets a test
 * make a force or a write throw, block, or take time. When a force fails it can also drop what was written
 * since the last good force, as a kernel that lost dirty pages would: those bytes read as zeros again (as the
 * preallocated blocks under them were on disk), and the file is cut back to its length at that force.
 */
final class TestFileOps implements FileOps {
    @FunctionalInterface
    interface Hook {
        void run() throws IOException;
    }

    final AtomicInteger forces = new AtomicInteger();
    volatile Hook beforeForce = () -> {};
    volatile Hook beforeWrite = () -> {};
    volatile boolean loseUnforcedOnFailure;
    private final FileOps real = SystemFileOps.INSTANCE;

    @Override
    public SegmentFile open(Path path) throws IOException {
        return new HookedFile(real.open(path));
    }

    @Override
    public void delete(Path path) throws IOException {
        real.delete(path);
    }

    @Override
    public void syncDirectory(Path dir) throws IOException {
        real.syncDirectory(dir);
    }

    private final class HookedFile implements SegmentFile {
        private final SegmentFile file;
        private volatile long forcedSize;
        private final List<long[]> unforcedWrites = new CopyOnWriteArrayList<>();

        HookedFile(SegmentFile file) throws IOException {
            this.file = file;
            this.forcedSize = file.size();
        }

        @Override
        public void write(long position, byte[] src, int off, int len) throws IOException {
            beforeWrite.run();
            file.write(position, src, off, len);
            unforcedWrites.add(new long[] {position, len});
        }

        @Override
        public void read(long position, byte[] dst, int off, int len) throws IOException {
            file.read(position, dst, off, len);
        }

        @Override
        public long size() throws IOException {
            return file.size();
        }

        @Override
        public void truncate(long size) throws IOException {
            file.truncate(size);
        }

        @Override
        public void force() throws IOException {
            forces.incrementAndGet();
            long size = file.size(); // everything written before this point is covered by the force below
            List<long[]> covered = List.copyOf(unforcedWrites);
            try {
                beforeForce.run();
            } catch (IOException e) {
                if (loseUnforcedOnFailure) {
                    for (long[] w : covered) {
                        file.write(w[0], new byte[(int) w[1]], 0, (int) w[1]);
                    }
                    file.truncate(forcedSize);
                }
                throw e;
            }
            file.force();
            unforcedWrites.removeAll(covered);
            forcedSize = size;
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }
}
