package io.sluice.journal;

import static io.sluice.journal.Journals.payload;
import static io.sluice.journal.Journals.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Failing fsyncs and writes: nothing unforced is acknowledged, the journal stops, a reopen recovers. */
class FailureTest {
    @TempDir
    Path dir;

    private final TestFileOps ops = new TestFileOps();

    @Test
    void aFailedForceFailsTheAppendAndStopsTheJournal() throws Exception {
        ops.loseUnforcedOnFailure = true;
        Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops);
        for (int i = 0; i < 3; i++) {
            journal.append(payload(i));
        }
        ops.beforeForce = () -> {
            throw new IOException("injected fsync failure");
        };
        assertThatThrownBy(() -> journal.append(payload(3))).isInstanceOf(IOException.class)
                .hasMessageContaining("not acknowledged").hasRootCauseMessage("injected fsync failure");
        assertThat(journal.durableOffset()).isEqualTo(3);
        assertThat(readAll(journal)).extracting(JournalRecord::offset).containsExactly(0L, 1L, 2L);
        assertThatThrownBy(() -> journal.awaitDurable(3, Duration.ofSeconds(5))).isInstanceOf(IOException.class)
                .hasMessageContaining("failed");

        ops.beforeForce = () -> {}; // the disk recovers; the journal must not trust it until reopened
        assertThatThrownBy(() -> journal.append(payload(4))).isInstanceOf(IOException.class)
                .hasMessageContaining("refuses appends until reopened");
        journal.close();

        try (Journal reopened = SegmentedJournal.open(dir, JournalOptions.defaults(), ops)) {
            assertThat(readAll(reopened)).extracting(Journals::text)
                    .containsExactly(text(0), text(1), text(2));
            assertThat(reopened.append(payload(30))).isEqualTo(3);
        }
        try (Journal reopened = SegmentedJournal.open(dir, JournalOptions.defaults(), ops)) {
            assertThat(readAll(reopened)).extracting(Journals::text)
                    .containsExactly(text(0), text(1), text(2), text(30));
        }
    }

    @Test
    void everyWaiterCoveredByAFailedForceGetsAnError() throws Exception {
        CountDownLatch leaderForcing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ops.beforeForce = () -> {
            leaderForcing.countDown();
            await(release);
            throw new IOException("injected fsync failure");
        };
        ExecutorService pool = Executors.newFixedThreadPool(5);
        try (Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops)) {
            List<Future<Long>> appends = new ArrayList<>();
            appends.add(pool.submit(() -> journal.append(payload(0))));
            await(leaderForcing);
            for (int i = 1; i < 5; i++) {
                int n = i;
                appends.add(pool.submit(() -> journal.append(payload(n))));
            }
            awaitNextOffset(journal, 5); // all five written; four wait behind the forcing leader
            release.countDown();
            for (Future<Long> f : appends) {
                assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(IOException.class);
            }
            assertThat(journal.durableOffset()).isZero();
            assertThat(journal.read(0, 10, Long.MAX_VALUE)).isEmpty();
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aFailedWriteStopsTheJournal() throws IOException {
        Journal journal = SegmentedJournal.open(dir, JournalOptions.defaults(), ops);
        journal.append(payload(0));
        ops.beforeWrite = () -> {
            throw new IOException("injected ENOSPC");
        };
        assertThatThrownBy(() -> journal.append(payload(1))).hasMessage("injected ENOSPC");
        ops.beforeWrite = () -> {};
        assertThatThrownBy(() -> journal.append(payload(2))).hasMessageContaining("refuses appends");
        journal.close();
        try (Journal reopened = SegmentedJournal.open(dir, JournalOptions.defaults(), ops)) {
            assertThat(readAll(reopened)).extracting(Journals::text).containsExactly(text(0));
            assertThat(reopened.append(payload(1))).isEqualTo(1);
        }
    }

    @Test
    void aFailedDirectorySyncOnRollFailsTheAppend() throws IOException {
        FileOps failingDirSync = new FileOps() {
            @Override
            public SegmentFile open(Path path) throws IOException {
                return ops.open(path);
            }

            @Override
            public void delete(Path path) throws IOException {
                ops.delete(path);
            }

            @Override
            public void syncDirectory(Path d) throws IOException {
                throw new IOException("injected directory fsync failure");
            }
        };
        Journals.open(dir, JournalOptions.defaults()).close(); // create the first segment normally
        try (Journal journal = SegmentedJournal.open(dir, Journals.segmentsOf(64), failingDirSync)) {
            assertThat(journal.append(payload(0, 0))).isZero();
            assertThatThrownBy(() -> journal.append(payload(1, 0))).hasMessageContaining("directory fsync");
            assertThat(journal.durableOffset()).isEqualTo(1);
        }
    }

    private static String text(int i) {
        return new String(payload(i), java.nio.charset.StandardCharsets.UTF_8);
    }

    static void await(CountDownLatch latch) throws IOException {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new IOException("test latch timed out");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    /** Spins (no sleeping) until the journal has handed out {@code offset}, for at most 10 s. */
    static void awaitNextOffset(Journal journal, long offset) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (journal.nextOffset() < offset) {
            assertThat(System.nanoTime()).as("waiting for nextOffset %d", offset).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
