package io.sluice.journal;

import static io.sluice.journal.Journals.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link Journal#appendAsync}: the same commit point as {@code append}, with no thread waiting for it. */
@Timeout(60)
class AsyncAppendTest {
    @TempDir
    Path dir;

    private final TestFileOps ops = new TestFileOps();

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The next force says it has begun ({@code forcing}), waits for {@code release}, then runs {@code after}. */
    private record HeldForce(CountDownLatch forcing, CountDownLatch release) {
        static HeldForce install(TestFileOps ops, TestFileOps.Hook after) {
            HeldForce h = new HeldForce(new CountDownLatch(1), new CountDownLatch(1));
            ops.beforeForce = () -> {
                h.forcing().countDown();
                FailureTest.await(h.release());
                after.run();
            };
            return h;
        }

        void awaitForcing() throws IOException {
            FailureTest.await(forcing);
        }
    }

    @Test
    void theFutureCompletesOnlyAfterTheForceThatCoversIt() throws Exception {
        try (Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops)) {
            HeldForce held = HeldForce.install(ops, () -> {});
            CompletableFuture<Long> first = journal.appendAsync(text("a"));
            held.awaitForcing(); // the syncer is inside the force that covers "a"
            assertThat(first).isNotDone();
            assertThat(journal.durableOffset()).isZero();
            assertThat(journal.read(0, 10, 1 << 20)).isEmpty(); // not visible to readers either
            held.release().countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).isZero();
            assertThat(journal.durableOffset()).isGreaterThanOrEqualTo(1);
            ops.beforeForce = () -> {};
            assertThat(journal.appendAsync(text("b")).get(10, TimeUnit.SECONDS)).isEqualTo(1);
        }
        try (Journal reopened = SegmentedJournal.open(dir, JournalOptions.defaults(), ops)) {
            assertThat(readAll(reopened, 10)).extracting(Journals::text).containsExactly("a", "b");
        }
    }

    @Test
    void oneAtATimeAcrossSegmentRollsEveryOffsetHoldsItsRecord() throws Exception {
        // each record written alone by the force that covers it, so some must open a new segment first
        int n = 200;
        try (Journal journal = SegmentedJournal.open(dir, Journals.segmentsOf(1024), ops)) {
            for (int i = 0; i < n; i++) {
                assertThat(journal.appendAsync(text("record-" + i)).get(10, TimeUnit.SECONDS)).isEqualTo(i);
                assertThat(journal.read(i, 1, 1 << 20)).extracting(Journals::text).containsExactly("record-" + i);
            }
            assertThat(journal.nextOffset()).isEqualTo(n);
        }
        try (Journal reopened = SegmentedJournal.open(dir, Journals.segmentsOf(1024), SystemFileOps.INSTANCE)) {
            List<JournalRecord> all = readAll(reopened, 7);
            assertThat(all).hasSize(n);
            for (int i = 0; i < n; i++) {
                assertThat(all.get(i).offset()).isEqualTo(i);
                assertThat(Journals.text(all.get(i))).isEqualTo("record-" + i);
            }
        }
    }

    @Test
    void asyncAndBlockingAppendersShareForcesAndEveryRecordIsThereOnceInOrder() throws Exception {
        // simulated disk latency (not synchronisation): while one force runs, the next group gathers
        ops.beforeForce = () -> LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        int asyncAppends = 4_000;
        int blockingThreads = 4;
        int blockingAppends = 100;
        ExecutorService pool = Executors.newFixedThreadPool(blockingThreads);
        try (Journal journal = SegmentedJournal.open(dir, Journals.segmentsOf(16 * 1024), ops)) {
            int forcesAtOpen = ops.forces.get();
            List<Future<?>> blocking = new ArrayList<>();
            for (int t = 0; t < blockingThreads; t++) {
                int thread = t;
                blocking.add(pool.submit(() -> {
                    for (int i = 0; i < blockingAppends; i++) {
                        journal.append(text("blocking-" + thread + "-" + i));
                    }
                    return null;
                }));
            }
            List<CompletableFuture<Long>> futures = new ArrayList<>();
            for (int i = 0; i < asyncAppends; i++) {
                futures.add(journal.appendAsync(text("async-" + i)));
            }
            for (Future<?> f : blocking) {
                f.get(30, TimeUnit.SECONDS);
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            int total = asyncAppends + blockingThreads * blockingAppends;
            assertThat(journal.durableOffset()).isEqualTo(total);
            assertThat(ops.forces.get() - forcesAtOpen).isLessThan(total / 10); // grouped, not one per record
            List<JournalRecord> all = readAll(journal, 500);
            assertThat(all).hasSize(total);
            long previous = -1;
            for (int i = 0; i < asyncAppends; i++) { // offsets follow the order of the appendAsync calls
                long offset = futures.get(i).join();
                assertThat(offset).isGreaterThan(previous);
                assertThat(Journals.text(all.get((int) offset))).isEqualTo("async-" + i);
                previous = offset;
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aFailedForceFailsEveryFutureItCoveredAndEveryLaterAppend() throws Exception {
        try (Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops)) {
            HeldForce held = HeldForce.install(ops, () -> {
                throw new IOException("disk on fire");
            });
            CompletableFuture<Long> a = journal.appendAsync(text("a"));
            held.awaitForcing();
            CompletableFuture<Long> b = journal.appendAsync(text("b")); // written while the failing force runs
            held.release().countDown();
            for (CompletableFuture<Long> f : List.of(a, b)) {
                assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                        .cause().isInstanceOf(IOException.class).hasMessageContaining("not acknowledged")
                        .hasRootCauseMessage("disk on fire");
            }
            int forces = ops.forces.get();
            CompletableFuture<Long> later = journal.appendAsync(text("c"));
            assertThatThrownBy(() -> later.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(IOException.class)
                    .hasMessageContaining("refuses appends");
            assertThat(ops.forces.get()).isEqualTo(forces); // no force after a failed one: it would prove nothing
        }
    }

    @Test
    void aFailedWriteFailsTheQueuedFuturesAndStopsTheJournal() throws Exception {
        try (Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops)) {
            assertThat(journal.appendAsync(text("a")).get(10, TimeUnit.SECONDS)).isZero();
            int forces = ops.forces.get();
            ops.beforeWrite = () -> {
                throw new IOException("no space left on device");
            };
            CompletableFuture<Long> b = journal.appendAsync(text("b")); // written by the syncer, which fails
            assertThatThrownBy(() -> b.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(IOException.class)
                    .hasMessageContaining("not acknowledged").hasRootCauseMessage("no space left on device");
            ops.beforeWrite = () -> {};
            assertThatThrownBy(() -> journal.append(text("c"))).isInstanceOf(IOException.class)
                    .hasMessageContaining("refuses appends");
            assertThat(ops.forces.get()).isEqualTo(forces); // nothing forced after the failed write
            assertThat(journal.durableOffset()).isEqualTo(1);
        }
        try (Journal reopened = SegmentedJournal.open(dir, JournalOptions.defaults(), SystemFileOps.INSTANCE)) {
            assertThat(readAll(reopened, 10)).extracting(Journals::text).containsExactly("a");
        }
    }

    @Test
    void closeMakesWhatWasWrittenDurableAndCompletesItsFutures() throws Exception {
        Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops);
        HeldForce held = HeldForce.install(ops, () -> {});
        CompletableFuture<Long> a = journal.appendAsync(text("a"));
        held.awaitForcing();
        CompletableFuture<Long> b = journal.appendAsync(text("b")); // not covered by the force in flight
        Thread closer = Thread.ofPlatform().name("test-closer").start(() -> {
            try {
                journal.close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        held.release().countDown();
        closer.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(closer.isAlive()).isFalse();
        assertThat(a.get(10, TimeUnit.SECONDS)).isZero();
        assertThat(b.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        assertThatThrownBy(() -> journal.appendAsync(text("c")).get(10, TimeUnit.SECONDS))
                .cause().hasMessageContaining("closed");
        try (Journal reopened = SegmentedJournal.open(dir, JournalOptions.defaults(), SystemFileOps.INSTANCE)) {
            assertThat(readAll(reopened, 10)).extracting(Journals::text).containsExactly("a", "b");
        }
    }

    @Test
    void aRecordOverTheLimitIsRefusedAtOnce() throws Exception {
        try (Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults().withMaxRecordBytes(4), ops)) {
            assertThatThrownBy(() -> journal.appendAsync(text("too long"))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("exceeds maxRecordBytes");
            assertThat(journal.appendAsync(text("ok")).get(10, TimeUnit.SECONDS)).isZero();
        }
    }
}
