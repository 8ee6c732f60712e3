package io.sluice.journal;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A durable, segmented, append-only journal of opaque records, numbered 0, 1, 2, ... like Kafka's offsets.
 *
 * <p>The promise: {@link #append} returns an offset only after the record and everything before it has been
 * fsynced. After a crash (kill -9, power loss) every record whose append returned is read back intact; records
 * whose append did not return may or may not be there; torn or corrupt data is never returned. Concurrent
 * appenders share fsyncs (group commit), so throughput grows with concurrency while each append still waits
 * for its own durability.
 *
 * <p>If an fsync or a write fails, the journal stops accepting appends (the page cache state is then unknown)
 * and every appender not yet acknowledged gets an {@link IOException}. Records already durable can still be
 * read. Reopening runs recovery and appends continue.
 *
 * <p>Opened by {@link JournalDirectory#open}. Thread-safe: every method may be called from any thread. Appends are ordered by an internal lock;
 * reads never block appends for longer than a copy out of the page cache.
 */
public interface Journal extends AutoCloseable {

    /**
     * This journal directory's identity: made when the directory is first opened, the same at every later open
     * ({@link JournalId}).
     */
    String id();

    /**
     * Appends one record and returns its offset once it is durable.
     *
     * @throws IllegalArgumentException if the payload is larger than {@link JournalOptions#maxRecordBytes()}
     * @throws IOException if the journal is closed or failed, or the fsync failed: the record is not
     *     acknowledged (it may still turn up after a reopen, as any unacknowledged write may)
     */
    long append(byte[] payload) throws IOException;

    /**
     * Appends one record without waiting for it: the future completes with its offset once it is durable (the
     * same commit point as {@link #append}), or exceptionally with the {@link IOException} {@code append} would
     * have thrown. It completes on the thread whose fsync covered the record (the journal's own syncer, or a
     * blocking appender), or that found the journal failed, which may hold the journal's lock: what is chained
     * to it must be short and must not call the journal.
     *
     * @throws IllegalArgumentException if the payload is larger than {@link JournalOptions#maxRecordBytes()}
     */
    CompletableFuture<Long> appendAsync(byte[] payload);

    /**
     * Appends records with consecutive offsets and returns the first, once all are durable. Same failure
     * contract as {@link #append}, for the batch as a whole.
     */
    long appendAll(List<byte[]> payloads) throws IOException;

    /**
     * Reads records from {@code fromOffset} on, in order, never past {@link #durableOffset()}: at most
     * {@code maxRecords}, and stopping before the payloads would exceed {@code maxBytes} (but always at least
     * one record if one is durable at {@code fromOffset}). Empty if nothing is durable there yet.
     *
     * @throws OffsetOutOfRangeException if {@code fromOffset} is below {@link #firstOffset()} or above
     *     {@link #nextOffset()}
     * @throws IOException on an I/O error, if the journal is closed, or if a frame fails its CRC (the disk has
     *     corrupted data since it was written: the bad bytes are never returned)
     */
    List<JournalRecord> read(long fromOffset, int maxRecords, long maxBytes) throws IOException;

    /**
     * Waits until the record at {@code offset} is durable, so that an applier can follow the journal without
     * polling. It does not force anything itself: records become durable when their appenders (or
     * {@link #close}) force them.
     *
     * @return true once {@code durableOffset() > offset}, false if the timeout passed first
     * @throws IOException if the journal is closed or has failed before the record became durable
     */
    boolean awaitDurable(long offset, Duration timeout) throws IOException, InterruptedException;

    /**
     * Deletes whole segments all of whose records are below {@code offset} and durable; never the active
     * segment. Readers must not still need those records.
     *
     * @return the number of segments deleted
     */
    int deleteBefore(long offset) throws IOException;

    /** The offset of the first retained record (equal to {@link #nextOffset()} if there are none). */
    long firstOffset();

    /** The offset the next append will get. */
    long nextOffset();

    /** Every record below this offset is durable; reads never go past it. */
    long durableOffset();

    /**
     * Bytes in the retained segment files: headers, framing, and the zeros preallocated ahead of the records
     * (see {@code Segment}).
     */
    long sizeInBytes();

    /**
     * Makes every written record durable (unless the journal has failed), wakes {@link #awaitDurable} waiters,
     * and closes the files. Idempotent.
     */
    @Override
    void close() throws IOException;
}
