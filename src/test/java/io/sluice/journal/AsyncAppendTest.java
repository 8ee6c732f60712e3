package io.sluice.journal;

import static io.sluice.journal.FailureTest.await;
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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Journal#appendAsync}: no future completes before the fsync that covers its record, one force serves
 * many appenders, forces are started on the given executor only when none runs, synchronous and asynchronous
 * appenders share forces, and failure and close fail what is not covered.
 */
@Timeout(60)
class AsyncAppendTest {
    @TempDir
    Path dir;

    private final TestFileOps ops = new TestFileOps();
    private final ExecutorService pool = Executors.newFixedThreadPool(4);
    private final AtomicInteger forcesStarted = new AtomicInteger();
    private final java.util.concurrent.Executor forcer = task -> {
        forcesStarted.incrementAndGet();
        pool.execute(task);
    };

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private static byte[] payload(int i) {
        return ("record-" + i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void appendersWaitingBehindOneForceAreCoveredByTheNextOneForce() throws Exception {
        CountDownLatch forcing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops)) {
            int forcesAtOpen = ops.forces.get();
            ops.beforeForce = () -> {
                forcing.countDown();
                await(release);
            };
            CompletableFuture<Long> first = journal.appendAsync(payload(0), forcer);
            await(forcing);
            List<CompletableFuture<Long>> behind = new ArrayList<>();
            for (int i = 1; i <= 20; i++) {
                behind.add(journal.appendAsync(payload(i), forcer));
            }
            assertThat(forcesStarted).as("one force running: none started for those behind it").hasValue(1);
            assertThat(first).as("not durable before its fsync returns").isNotDone();
            assertThat(behind).noneMatch(CompletableFuture::isDone);
            ops.beforeForce = () -> {};
            release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).isZero();
            for (int i = 0; i < behind.size(); i++) {
                assertThat(behind.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(i + 1L);
            }
            assertThat(ops.forces.get() - forcesAtOpen).as("the twenty behind share the second force").isEqualTo(2);
            assertThat(journal.durableOffset()).isEqualTo(21);
        }
    }

    @Test
    void synchronousAndAsynchronousAppendersShareForcesAndEveryRecordIsDurableOnce() throws Exception {
        ops.beforeForce = () -> java.util.concurrent.locks.LockSupport.parkNanos(200_000); // disk latency
        try (Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops)) {
            List<CompletableFuture<Long>> async = new ArrayList<>();
            Future<List<Long>> sync = pool.submit(() -> {
                List<Long> offsets = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    offsets.add(journal.append(payload(1000 + i)));
                }
                return offsets;
            });
            for (int i = 0; i < 200; i++) {
                async.add(journal.appendAsync(payload(i), forcer));
            }
            List<Long> all = new ArrayList<>(sync.get(30, TimeUnit.SECONDS));
            for (CompletableFuture<Long> f : async) {
                long offset = f.get(30, TimeUnit.SECONDS);
                assertThat(offset).isLessThan(journal.durableOffset());
                all.add(offset);
            }
            assertThat(all).doesNotHaveDuplicates().hasSize(400);
            assertThat(journal.read(0, 1000, Long.MAX_VALUE)).hasSize(400);
        }
    }

    @Test
    void aFailedForceFailsEveryUncoveredFutureAndLaterAppends() throws Exception {
        CountDownLatch forcing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops)) {
            ops.beforeForce = () -> {
                forcing.countDown();
                await(release);
                throw new IOException("injected fsync failure");
            };
            CompletableFuture<Long> first = journal.appendAsync(payload(0), forcer);
            await(forcing);
            CompletableFuture<Long> behind = journal.appendAsync(payload(1), forcer);
            release.countDown();
            for (CompletableFuture<Long> f : List.of(first, behind)) {
                assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(IOException.class).hasMessageContaining("not acknowledged");
            }
            assertThat(journal.durableOffset()).isZero();
            assertThat(journal.appendAsync(payload(2), forcer)).isCompletedExceptionally();
        }
    }

    @Test
    void closeFailsWhatItsForceDidNotCover() throws Exception {
        CountDownLatch forcing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops);
        ops.beforeForce = () -> {
            forcing.countDown();
            await(release);
        };
        CompletableFuture<Long> first = journal.appendAsync(payload(0), forcer);
        await(forcing);
        CompletableFuture<Long> behind = journal.appendAsync(payload(1), forcer);
        ops.beforeForce = () -> {};
        Future<?> closing = pool.submit(() -> {
            journal.close();
            return null;
        });
        release.countDown();
        closing.get(30, TimeUnit.SECONDS);
        assertThat(first.get(10, TimeUnit.SECONDS)).isZero();
        // close forces what was written, but an asynchronous appender still waiting is told it is closed, or, if
        // a force covered it first, acknowledged: never left hanging
        try {
            assertThat(behind.get(10, TimeUnit.SECONDS)).isEqualTo(1L);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(IOException.class).hasMessageContaining("not acknowledged");
        }
        try (Journal reopened = SegmentedJournal.open(dir, JournalOptions.defaults(), ops)) {
            assertThat(reopened.read(0, 10, Long.MAX_VALUE)).hasSize(2);
        }
    }
}
