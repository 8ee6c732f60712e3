package io.sluice.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.TemplateConfig;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Records decoded ahead on a helper thread: the same results, in order, each failure at its own record, as decoding
 * in place; a helper that never runs, or is stuck in a chunk, never holds the applying thread beyond that chunk.
 */
@Timeout(30)
class DecodeAheadTest {
    static final Template ITEM = Template.compile("item", new TemplateConfig("CREATE (:Item {id: row.id})",
            List.of("id"), null));

    final ExecutorService helper = Executors.newSingleThreadExecutor(Thread.ofPlatform().name("test-decoder")
            .factory());

    @AfterEach
    void stop() {
        helper.shutdownNow();
    }

    /** Record i decodes to a row {id: i}; those in {@code bad} are undecodable; each decode says on which thread. */
    static final class Log implements RecordApplier.Records<Long> {
        final Map<Long, String> decodedOn = new ConcurrentHashMap<>();
        final AtomicInteger decodes = new AtomicInteger();
        final List<Long> bad;
        volatile CountDownLatch gate; // a decode of a record waits for it, when set
        volatile long gated = -1;

        Log(List<Long> bad) {
            this.bad = bad;
        }

        @Override
        public long offset(Long r) {
            return r;
        }

        @Override
        public long bytes(Long r) {
            return 8;
        }

        @Override
        public WriteRequest decode(Long r) throws RecordCodec.Undecodable {
            decodes.incrementAndGet();
            decodedOn.put(r, Thread.currentThread().getName());
            if (r == gated) {
                try {
                    assertThat(gate.await(20, TimeUnit.SECONDS)).isTrue();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (bad.contains(r)) {
                throw new RecordCodec.Undecodable("record " + r + " is bad");
            }
            return new WriteRequest.TemplateRequest(ITEM, List.of(Map.of("id", r)), 8);
        }
    }

    static List<Long> records(int n) {
        List<Long> out = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            out.add(i);
        }
        return out;
    }

    static Object idOf(WriteRequest w) {
        return ((WriteRequest.TemplateRequest) w).rowList().getFirst().get("id");
    }

    @Test
    void theResultsAreInOrderWithEachFailureAtItsRecordAndLaterRecordsReadOnTheHelper() throws Exception {
        Log log = new Log(List.of(70L, 300L));
        List<Long> batch = records(400);
        CountDownLatch lastRead = new CountDownLatch(1);
        try (DecodeAhead<Long, WriteRequest> ahead = new DecodeAhead<>(r -> {
            try {
                return log.decode(r);
            } finally {
                if (r == 399) {
                    lastRead.countDown();
                }
            }
        }, e -> false, batch, 10, helper)) {
            assertThat(idOf(ahead.take(10))).isEqualTo(10L); // the first chunk: whoever claimed it
            assertThat(lastRead.await(20, TimeUnit.SECONDS)).as("the helper reads the rest meanwhile").isTrue();
            for (int i = 11; i < 400; i++) {
                if (i == 70 || i == 300) {
                    int at = i;
                    assertThatThrownBy(() -> ahead.take(at)).isInstanceOf(RecordCodec.Undecodable.class)
                            .hasMessage("record " + at + " is bad");
                } else {
                    assertThat(idOf(ahead.take(i))).isEqualTo((long) i);
                }
            }
            assertThat(idOf(ahead.take(200))).as("taken again (a record that did not fit a batch)").isEqualTo(200L);
        }
        assertThat(log.decodedOn).doesNotContainKey(9L).containsKey(10L);
        assertThat(log.decodedOn.get(399L)).isEqualTo("test-decoder");
        assertThat(log.decodes).as("each record read once").hasValue(390);
    }

    @Test
    void aHelperThatNeverRunsLeavesTheApplyingThreadToReadEverything() throws Exception {
        Log log = new Log(List.of());
        try (DecodeAhead<Long, WriteRequest> ahead = new DecodeAhead<>(log::decode, e -> false, records(300), 0,
                task -> { })) {
            for (int i = 0; i < 300; i++) {
                assertThat(idOf(ahead.take(i))).isEqualTo((long) i);
            }
        }
        assertThat(log.decodedOn.values()).containsOnly(Thread.currentThread().getName());
    }

    @Test
    void aHelperStuckInAChunkHoldsOnlyThatChunk() throws Exception {
        Log log = new Log(List.of());
        log.gate = new CountDownLatch(1);
        log.gated = 0; // the helper's first record: it stays in the first chunk
        List<Long> batch = records(DecodeAhead.CHUNK * 4);
        try (DecodeAhead<Long, WriteRequest> ahead = new DecodeAhead<>(log::decode, e -> false, batch, 0, helper)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!log.decodedOn.containsKey(0L) && System.nanoTime() < deadline) {
                Thread.onSpinWait(); // until the helper is inside the first chunk
            }
            assertThat(log.decodedOn.get(0L)).isEqualTo("test-decoder");
            // the later chunks are not waited for: the applying thread claims and reads them itself
            int later = DecodeAhead.CHUNK * 2 + 5;
            assertThat(idOf(ahead.take(later))).isEqualTo((long) later);
            assertThat(log.decodedOn.get((long) later)).isEqualTo(Thread.currentThread().getName());
            log.gate.countDown();
            assertThat(idOf(ahead.take(0))).isEqualTo(0L);
        }
    }
}
