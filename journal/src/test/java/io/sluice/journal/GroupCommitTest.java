package io.sluice.journal;

import static io.sluice.journal.Journals.payload;
import static io.sluice.journal.Journals.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.support.Await;
import io.sluice.support.OnThread;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroupCommitTest {
    private static final int THREADS = 32;
    private static final int APPENDS_PER_THREAD = 50;

    @TempDir
    Path dir;

    private final TestFileOps ops = new TestFileOps();

    @Test
    void concurrentAppendersShareForces() throws Exception {
        // Simulated disk latency (not synchronisation): while one force runs, the next group gathers.
        ops.beforeForce = () -> LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        CountDownLatch start = new CountDownLatch(1);
        Map<Long, String> written = new HashMap<>();
        try (Journal journal = SegmentedJournal.open(dir, Journals.segmentsOf(16 * 1024), ops)) {
            int forcesAtOpen = ops.forces.get();
            List<Future<Map<Long, String>>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    FailureTest.await(start);
                    Map<Long, String> mine = new HashMap<>();
                    for (int i = 0; i < APPENDS_PER_THREAD; i++) {
                        String text = "thread-" + thread + "-append-" + i;
                        mine.put(journal.append(text.getBytes(StandardCharsets.UTF_8)), text);
                    }
                    return mine;
                }));
            }
            start.countDown();
            for (Future<Map<Long, String>> f : results) {
                written.putAll(f.get(30, TimeUnit.SECONDS));
            }
            int total = THREADS * APPENDS_PER_THREAD;
            int forces = ops.forces.get() - forcesAtOpen;
            System.out.printf("%d appends, %d forces (%.1f appends per force)%n", total, forces,
                    (double) total / forces);
            assertThat(written).hasSize(total); // offsets unique
            assertThat(written.keySet()).allSatisfy(o -> assertThat(o).isBetween(0L, total - 1L)); // contiguous
            assertThat(forces).isLessThan(total / 4);
            assertThat(journal.durableOffset()).isEqualTo(total);
            for (JournalRecord r : readAll(journal, 100)) {
                assertThat(Journals.text(r)).isEqualTo(written.get(r.offset()));
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aTailingReaderSeesEveryRecordOnceAndInOrder() throws Exception {
        int writers = 4;
        int perWriter = 300;
        int total = writers * perWriter;
        ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
        try (Journal journal = SegmentedJournal.open(dir, Journals.segmentsOf(4096), ops)) {
            Future<List<JournalRecord>> reader = pool.submit(() -> {
                List<JournalRecord> seen = new ArrayList<>();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (seen.size() < total) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("the reader saw " + seen.size() + " of " + total + " in 30 s");
                    }
                    if (journal.awaitDurable(seen.size(), Duration.ofSeconds(10))) {
                        seen.addAll(journal.read(seen.size(), 50, 4096));
                    }
                }
                return seen;
            });
            List<Future<?>> appends = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                appends.add(pool.submit(() -> {
                    for (int i = 0; i < perWriter; i++) {
                        journal.append(("w" + writer + "-" + i).getBytes(StandardCharsets.UTF_8));
                    }
                    return null;
                }));
            }
            for (Future<?> f : appends) {
                f.get(30, TimeUnit.SECONDS);
            }
            List<JournalRecord> seen = reader.get(30, TimeUnit.SECONDS);
            assertThat(seen).extracting(JournalRecord::offset).containsExactlyElementsOf(
                    java.util.stream.LongStream.range(0, total).boxed().toList());
            assertThat(seen).containsExactlyElementsOf(readAll(journal));
            for (int w = 0; w < writers; w++) { // each writer's records in its own order
                String prefix = "w" + w + "-";
                assertThat(seen.stream().map(Journals::text).filter(t -> t.startsWith(prefix)))
                        .containsExactlyElementsOf(java.util.stream.IntStream.range(0, perWriter)
                                .mapToObj(i -> prefix + i).toList());
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void readersNeverSeeRecordsBeyondTheDurableWatermark() throws Exception {
        CountDownLatch forcing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops)) {
            assertThat(journal.append(payload(0))).isZero();
            ops.beforeForce = () -> {
                forcing.countDown();
                FailureTest.await(release);
            };
            Future<Long> append = pool.submit(() -> journal.append(payload(1)));
            FailureTest.await(forcing); // record 1 is written (in the page cache) but not forced

            assertThat(journal.nextOffset()).isEqualTo(2);
            assertThat(journal.durableOffset()).isEqualTo(1);
            assertThat(journal.read(0, 10, Long.MAX_VALUE)).extracting(JournalRecord::offset).containsExactly(0L);
            assertThat(journal.read(1, 10, Long.MAX_VALUE)).isEmpty();
            assertThat(journal.awaitDurable(1, Duration.ofMillis(20))).isFalse();
            assertThat(journal.awaitDurable(0, Duration.ZERO)).isTrue();
            Future<Boolean> waiter = pool.submit(() -> journal.awaitDurable(1, Duration.ofSeconds(10)));

            release.countDown();
            assertThat(append.get(10, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(journal.read(1, 10, Long.MAX_VALUE)).containsExactly(new JournalRecord(1, payload(1)));
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void closeWakesWaitersForRecordsThatWillNeverCome() throws Exception {
        Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops);
        try (OnThread<Boolean> waiter = OnThread.start("journal-waiter", () -> journal.awaitDurable(0, Duration.ofMinutes(1)))) {
            Await.until("the waiter is parked in awaitDurable", Duration.ofSeconds(10), waiter::isParkedOnACondition);
            journal.close(); // it must wake the waiter, which would otherwise wait a minute
            assertThatThrownBy(() -> waiter.get(Duration.ofSeconds(10))).isInstanceOf(IOException.class)
                    .hasMessageContaining("closed");
        }
    }

    @Test
    void anInterruptedAppenderIsNotAcknowledgedButCloseMakesItsRecordDurable() throws Exception {
        CountDownLatch forcing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops);
            ops.beforeForce = () -> {
                forcing.countDown();
                FailureTest.await(release);
            };
            Future<Long> leader = pool.submit(() -> journal.append(payload(0)));
            FailureTest.await(forcing);
            Future<Long> interrupted = pool.submit(() -> {
                Thread.currentThread().interrupt();
                return journal.append(payload(1));
            });
            assertThatThrownBy(() -> interrupted.get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(java.io.InterruptedIOException.class).hasMessageContaining("interrupted");
            assertThat(journal.nextOffset()).isEqualTo(2); // written, but its appender gave up waiting
            ops.beforeForce = () -> {};
            release.countDown();
            assertThat(leader.get(10, TimeUnit.SECONDS)).isZero();
            journal.close();
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        try (Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops)) {
            assertThat(readAll(journal)).extracting(JournalRecord::offset).containsExactly(0L, 1L);
        }
    }
}
