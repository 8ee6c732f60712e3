package io.sluice.journal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The journal: segment files in one directory, appended under a lock, made durable by shared fsyncs.
 *
 * <h2>Design</h2>
 * <b>Writing.</b> The write lock orders appends: it assigns offsets, rolls segments and copies frames into
 * the page cache, which takes microseconds. It is never held across a force. Durability is then
 * {@link GroupCommit}'s job: the appender waits there until a force covering its records has returned,
 * leading one itself if none is running, so concurrent appenders share fsyncs. {@link #appendAsync} only takes
 * an offset and keeps the record in memory ({@code unwritten}), with a future in {@link GroupCommit}: the next
 * force writes every such record first, in one write, then forces (the group commit's syncer thread leads one
 * if nobody else does), so an async append costs its caller no system call and holds the lock for no I/O. A
 * blocking append writes them before its own, so the file stays in offset order. A force covers every segment
 * from the one holding the first non-durable record to the active one, so a roll needs no fsync of its own,
 * only one of the directory, so that the new file's name is durable before any record in it is acknowledged.
 *
 * <p><b>Commit point.</b> A record is acknowledged (its {@code append} returns, a reader may see it) only after
 * the force covering it has returned and {@code durableOffset} has moved past it (in {@link GroupCommit}).
 *
 * <p><b>Failure.</b> If a write or a force throws, the journal is failed for good: the file may hold a partial
 * frame and the page cache state is unknown. Appends are refused, waiters not yet covered get the failure,
 * and reopening runs recovery ({@link JournalLoader}), which keeps only frames that check out.
 *
 * <p><b>Size.</b> Over 400 lines because appends, rolls, reads, retention and close all keep the segment map and
 * the offsets' invariants together (under the write lock, or by reading {@code durableOffset} first); the force
 * itself ({@link GroupCommit}), a segment's file ({@link Segment}) and recovery ({@link JournalLoader}) are apart.
 *
 * <p><b>Reads and retention.</b> Segments live in a concurrent sorted map, so readers find them without
 * locks; a read first notes {@code durableOffset}, so it never returns a record an appender has not been told
 * about. Retention removes only segments entirely below {@code durableOffset}, one file at a time with a
 * directory fsync after each, so a crash leaves a deleted prefix and never a gap (which recovery would take
 * for the end of the journal).
 *
 * <p>Thread-safe, as the {@link Journal} contract says.
 */
final class SegmentedJournal implements Journal {
    private static final Logger log = LoggerFactory.getLogger(SegmentedJournal.class);
    /** How long close waits for a force in flight before closing the files (which then wait for it in the JDK). */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);

    private final Path dir;
    private final JournalOptions options;
    private final FileOps ops;
    private final DirectoryLock directoryLock;
    private final String id;
    private final ConcurrentSkipListMap<Long, Segment> segments = new ConcurrentSkipListMap<>();
    private final GroupCommit commit;

    private final ReentrantLock writeLock = new ReentrantLock();
    private Segment active; // guarded by writeLock
    /** {@link #appendAsync}'s records, offsets taken, not yet written: the next force writes them first. */
    private final List<byte[]> unwritten = new ArrayList<>(); // guarded by writeLock
    private volatile long nextOffset; // written under writeLock; counts the unwritten records
    private volatile long retainedBytes; // written under writeLock
    private volatile boolean closed; // written under writeLock

    private SegmentedJournal(Path dir, JournalOptions options, FileOps ops, DirectoryLock lock, String id,
            List<Segment> loaded) {
        this.dir = dir;
        this.id = id;
        this.options = options;
        this.ops = ops;
        this.directoryLock = lock;
        long bytes = 0;
        for (Segment s : loaded) {
            segments.put(s.baseOffset(), s);
            bytes += s.fileLength();
        }
        this.active = loaded.getLast();
        this.nextOffset = active.nextOffset();
        this.retainedBytes = bytes;
        // recovery forced every retained segment, so everything is durable
        this.commit = new GroupCommit("journal " + dir, nextOffset, this::forceWritten,
                Thread.ofPlatform().name("sluice-journal-sync").daemon(true).factory());
    }

    /** Opens the journal in {@code dir}; tests pass fault-injecting {@code ops}. */
    static SegmentedJournal open(Path dir, JournalOptions options, FileOps ops) throws IOException {
        Objects.requireNonNull(options, "options");
        Files.createDirectories(dir);
        DirectoryLock lock = DirectoryLock.acquire(dir);
        try {
            SegmentedJournal journal = new SegmentedJournal(dir, options, ops, lock, JournalId.readOrCreate(dir, ops),
                    JournalLoader.load(dir, ops));
            log.debug("Journal {} open: offsets [{}, {}), {} segments, {} bytes", dir, journal.firstOffset(),
                    journal.nextOffset, journal.segments.size(), journal.retainedBytes);
            return journal;
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    @Override
    public long append(byte[] payload) throws IOException {
        return appendAll(List.of(payload));
    }

    @Override
    public long appendAll(List<byte[]> payloads) throws IOException {
        if (payloads.isEmpty()) {
            throw new IllegalArgumentException("nothing to append: the list is empty");
        }
        payloads.forEach(this::checkSize);
        long first = write(payloads);
        commit.awaitCommit(first + payloads.size());
        return first;
    }

    @Override
    public CompletableFuture<Long> appendAsync(byte[] payload) {
        checkSize(payload);
        CompletableFuture<Long> durable = new CompletableFuture<>();
        writeLock.lock(); // held across the enqueue, so the waiters queue up in offset order
        try {
            checkWritable();
            long first = nextOffset;
            unwritten.add(payload);
            nextOffset = first + 1;
            commit.enqueue(first, first + 1, durable);
        } catch (IOException e) {
            durable.completeExceptionally(e);
        } finally {
            writeLock.unlock();
        }
        return durable;
    }

    private void checkSize(byte[] payload) {
        if (payload.length > options.maxRecordBytes()) {
            throw new IllegalArgumentException("record of " + payload.length + " bytes exceeds maxRecordBytes "
                    + options.maxRecordBytes());
        }
    }

    /** Writes {@link #unwritten} to the page cache, in one write per segment. */
    private void writeUnwritten() throws IOException { // under writeLock
        if (unwritten.isEmpty()) {
            return;
        }
        try {
            writeFrames(unwritten);
        } catch (IOException | RuntimeException e) {
            commit.fail(e instanceof IOException io ? io : new IOException(e));
            throw e;
        } finally {
            unwritten.clear(); // written, or the journal has failed and their futures with it
        }
    }

    private void checkWritable() throws IOException { // under writeLock
        checkOpen();
        IOException failure = commit.failure();
        if (failure != null) {
            throw new IOException("journal " + dir + " has failed and refuses appends until reopened", failure);
        }
    }

    /** Writes the frames to the page cache and returns the first offset. Not durable yet. */
    private long write(List<byte[]> payloads) throws IOException {
        writeLock.lock();
        try {
            checkWritable();
            writeUnwritten(); // theirs come first: their offsets are taken
            long first = nextOffset;
            try {
                writeFrames(payloads);
            } catch (IOException | RuntimeException e) {
                // the file may now hold a partial frame, and the page cache state is unknown
                commit.fail(e instanceof IOException io ? io : new IOException(e));
                throw e;
            }
            return first;
        } finally {
            writeLock.unlock();
        }
    }

    private void writeFrames(List<byte[]> payloads) throws IOException { // under writeLock
        int i = 0;
        while (i < payloads.size()) {
            if (!active.isEmpty() && !fits(payloads.get(i), active.size())) {
                roll();
            }
            int n = fittingCount(payloads, i);
            long before = active.fileLength();
            active.append(payloads.subList(i, i + n), options.maxSegmentBytes());
            retainedBytes += active.fileLength() - before;
            nextOffset = Math.max(nextOffset, active.nextOffset()); // never back: it already counts unwritten records
            i += n;
        }
    }

    private boolean fits(byte[] payload, long size) {
        return size + FrameCodec.frameBytes(payload.length) <= options.maxSegmentBytes();
    }

    /** How many payloads from {@code from} on go into the active segment: as many as fit, at least one. */
    private int fittingCount(List<byte[]> payloads, int from) {
        long size = active.size() + FrameCodec.frameBytes(payloads.get(from).length);
        int n = 1;
        while (from + n < payloads.size() && fits(payloads.get(from + n), size)) {
            size += FrameCodec.frameBytes(payloads.get(from + n).length);
            n++;
        }
        return n;
    }

    private void roll() throws IOException { // under writeLock
        // at the end of what is written: nextOffset also counts the unwritten records, which go after it
        Segment next = Segment.create(ops, dir, active.nextOffset());
        segments.put(next.baseOffset(), next);
        active = next;
        retainedBytes += next.fileLength();
        // The new file's name must be durable before any record in it is acknowledged.
        ops.syncDirectory(dir);
    }

    /**
     * Called by the group-commit leader, outside every lock but the brief write-lock snapshot: forces every
     * segment from the one holding the first non-durable record on. Retention never deletes those.
     */
    private long forceWritten(long durable) throws IOException {
        long target;
        List<Segment> unforced;
        long[] sizes;
        writeLock.lock();
        try {
            writeUnwritten();
            Long from = segments.floorKey(durable);
            if (from == null) { // only once close has released the files
                throw new IOException("journal " + dir + " closed before the records were forced");
            }
            target = nextOffset;
            unforced = List.copyOf(segments.tailMap(from).values());
            sizes = unforced.stream().mapToLong(Segment::size).toArray();
        } finally {
            writeLock.unlock();
        }
        for (Segment s : unforced) {
            s.force();
        }
        for (int i = 0; i < sizes.length; i++) {
            unforced.get(i).markDurable(sizes[i]);
        }
        return target;
    }

    @Override
    public List<JournalRecord> read(long fromOffset, int maxRecords, long maxBytes) throws IOException {
        if (maxRecords < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("maxRecords and maxBytes must be >= 1, got " + maxRecords + " and "
                    + maxBytes);
        }
        long end = commit.durableOffset(); // first: never read past what appenders have been told is durable
        checkOpen();
        checkRange(fromOffset);
        List<JournalRecord> out = new ArrayList<>();
        long next = fromOffset;
        long budget = maxBytes;
        try {
            while (next < end && out.size() < maxRecords) {
                Map.Entry<Long, Segment> e = segments.floorEntry(next);
                if (e == null) {
                    checkOpen();
                    throw outOfRange(next);
                }
                Segment s = e.getValue();
                int before = out.size();
                budget -= s.read(next, Math.min(end, s.nextOffset()), maxRecords, budget, out);
                if (out.size() == before) {
                    break; // the byte budget is spent
                }
                next = fromOffset + out.size();
            }
        } catch (IOException e) {
            checkOpen();
            checkRange(next); // a concurrent deleteBefore or close closed the file under us
            throw e;
        }
        return out;
    }

    private void checkOpen() throws IOException {
        if (closed) {
            throw new IOException("journal " + dir + " is closed");
        }
    }

    private void checkRange(long offset) {
        if (offset < firstOffset() || offset > nextOffset) {
            throw outOfRange(offset);
        }
    }

    private OffsetOutOfRangeException outOfRange(long offset) {
        return new OffsetOutOfRangeException(offset, firstOffset(), nextOffset);
    }

    @Override
    public boolean awaitDurable(long offset, Duration timeout) throws IOException, InterruptedException {
        return commit.awaitDurable(offset, timeout);
    }

    @Override
    public int deleteBefore(long offset) throws IOException {
        writeLock.lock();
        try {
            checkOpen();
            long limit = Math.min(offset, commit.durableOffset());
            int deleted = 0;
            for (Segment s : segments.values()) {
                if (s == active || s.nextOffset() > limit) {
                    break;
                }
                segments.remove(s.baseOffset());
                retainedBytes -= s.fileLength();
                s.close();
                ops.delete(s.path());
                ops.syncDirectory(dir); // one at a time: a crash leaves a deleted prefix, never a gap
                deleted++;
                log.debug("Journal retention deleted {} (records [{}, {}))", s.path().getFileName(),
                        s.baseOffset(), s.nextOffset());
            }
            return deleted;
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public long firstOffset() {
        Map.Entry<Long, Segment> first = segments.firstEntry();
        return first == null ? nextOffset : first.getKey(); // null only after close
    }

    @Override
    public long nextOffset() {
        return nextOffset;
    }

    @Override
    public long durableOffset() {
        return commit.durableOffset();
    }

    @Override
    public long sizeInBytes() {
        return retainedBytes;
    }

    @Override
    public void close() throws IOException {
        writeLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true; // no more writes; the records written so far are final
        } finally {
            writeLock.unlock();
        }
        IOException error = null;
        if (commit.failure() == null) {
            try {
                commit.awaitCommit(nextOffset); // appenders that gave up waiting (interrupted) left some unforced
            } catch (IOException e) {
                error = e;
            }
        }
        commit.close(CLOSE_WAIT);
        if (error == null && commit.failure() == null) {
            writeLock.lock();
            try {
                active.trimAndForce(); // a clean close leaves no preallocated zeros behind
            } catch (IOException e) {
                error = e;
            } finally {
                writeLock.unlock();
            }
        }
        for (Segment s : segments.values()) {
            try {
                s.close();
            } catch (IOException e) {
                error = addTo(error, e);
            }
        }
        segments.clear();
        try {
            directoryLock.close();
        } catch (IOException e) {
            error = addTo(error, e);
        }
        if (error != null) {
            throw error;
        }
    }

    private static IOException addTo(IOException first, IOException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    @Override
    public String toString() {
        return "Journal[" + dir + ", offsets [" + firstOffset() + ", " + nextOffset + "), durable to "
                + commit.durableOffset() + "]";
    }
}
