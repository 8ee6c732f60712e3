package io.sluice.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.TemplateConfig;
import io.sluice.support.Await;
import io.sluice.support.OnThread;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import io.sluice.time.ManualTime;
import io.sluice.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BatcherTest {
    static final Template T = Template.compile("t", new TemplateConfig("CREATE ({id: row.id})", List.of("id"), null));
    final ManualTime time = new ManualTime();

    static Pending request(int firstId, int rows, long at) {
        List<Map<String, Object>> rowList = IntStream.range(firstId, firstId + rows)
                .mapToObj(i -> Map.<String, Object>of("id", (long) i)).toList();
        return new Pending(new WriteRequest.TemplateRequest(T, rowList, 10), at);
    }

    static List<Long> ids(List<Pending> batch) {
        List<Long> ids = new ArrayList<>();
        for (Pending p : batch) {
            for (var row : ((WriteRequest.TemplateRequest) p.request()).rowList()) {
                ids.add((Long) row.get("id"));
            }
        }
        return ids;
    }

    @Test
    void aLoneWriteWaitsForMaxWaitThenGoesAlone() {
        Batcher b = new Batcher(100, Duration.ofMillis(5), time);
        b.enqueue(request(0, 1, time.nanos()));
        assertThat(b.poll()).isEmpty();
        time.advance(Duration.ofMillis(4));
        assertThat(b.poll()).isEmpty();
        time.advance(Duration.ofMillis(1));
        assertThat(ids(b.poll())).containsExactly(0L);
        assertThat(b.queuedRows()).isZero();
    }

    @Test
    void writesArrivingWithinTheWaitCoalesceInArrivalOrder() {
        Batcher b = new Batcher(100, Duration.ofMillis(5), time);
        for (int i = 0; i < 10; i++) {
            b.enqueue(request(i, 1, time.nanos()));
            time.advance(Duration.ofNanos(100_000));
        }
        time.advance(Duration.ofMillis(5));
        assertThat(ids(b.poll())).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    }

    @Test
    void theRowLimitClosesABatchWithoutWaiting() {
        Batcher b = new Batcher(10, Duration.ofSeconds(1), time);
        for (int i = 0; i < 25; i++) {
            b.enqueue(request(i, 1, time.nanos()));
        }
        assertThat(ids(b.poll())).hasSize(10).startsWith(0L).endsWith(9L);
        assertThat(ids(b.poll())).hasSize(10).startsWith(10L).endsWith(19L);
        assertThat(b.poll()).as("5 rows left: below the limit, younger than max wait").isEmpty();
        time.advance(Duration.ofSeconds(1));
        assertThat(ids(b.poll())).containsExactly(20L, 21L, 22L, 23L, 24L);
    }

    @Test
    void aRequestIsNeverSplitAndAnOversizedOneGoesAlone() {
        Batcher b = new Batcher(10, Duration.ZERO, time);
        b.enqueue(request(0, 6, time.nanos()));
        b.enqueue(request(100, 6, time.nanos()));
        b.enqueue(request(200, 30, time.nanos()));
        assertThat(ids(b.poll())).hasSize(6).startsWith(0L);
        assertThat(ids(b.poll())).hasSize(6).startsWith(100L);
        assertThat(ids(b.poll())).hasSize(30).startsWith(200L);
    }

    @Test
    void closingHandsOutWhatIsQueuedAndRefusesNewWrites() throws Exception {
        Batcher b = new Batcher(100, Duration.ofHours(1), time);
        b.enqueue(request(0, 3, time.nanos()));
        b.close();
        assertThat(b.enqueue(request(9, 1, time.nanos()))).isFalse();
        assertThat(ids(b.take(Duration.ofSeconds(5)))).containsExactly(0L, 1L, 2L);
        assertThat(b.isDrained()).isTrue();
        assertThat(b.take(Duration.ofSeconds(5))).isEmpty();
    }

    // The take tests park the applier on a thread of its own, wait until it is inside take (Batcher.waiters()),
    // then act; its own deadline (a minute) is far beyond what they wait for it, so only a wake-up returns it in time.
    static final Duration LONG_BLOCK = Duration.ofMinutes(1);
    static final Duration PROMPTLY = Duration.ofSeconds(10);

    @Test
    void takeWakesUpWhenTheRowLimitIsReached() throws Exception {
        Batcher b = new Batcher(5, Duration.ofHours(1), Time.SYSTEM);
        b.enqueue(request(0, 1, System.nanoTime()));
        try (OnThread<List<Pending>> applier = OnThread.start("test-applier", () -> b.take(LONG_BLOCK))) {
            Await.until("the applier waits inside take", PROMPTLY, () -> b.waiters() == 1);
            for (int i = 1; i < 5; i++) {
                b.enqueue(request(i, 1, System.nanoTime()));
            }
            assertThat(ids(applier.get(PROMPTLY))).containsExactly(0L, 1L, 2L, 3L, 4L);
        }
    }

    @Test
    void takeWakesUpForTheFirstWriteAndHandsItOutAfterMaxWait() throws Exception {
        Batcher b = new Batcher(100, Duration.ofMillis(50), Time.SYSTEM);
        try (OnThread<List<Pending>> applier = OnThread.start("test-applier", () -> b.take(LONG_BLOCK))) {
            Await.until("the applier waits inside take", PROMPTLY, () -> b.waiters() == 1);
            long enqueued = System.nanoTime();
            b.enqueue(request(7, 1, enqueued));
            assertThat(ids(applier.get(PROMPTLY))).containsExactly(7L);
            assertThat(System.nanoTime() - enqueued).as("a lone write waits max_wait").isGreaterThanOrEqualTo(50_000_000L);
        }
    }

    @Test
    void closeWakesAWaitingApplierWithNothingLeft() throws Exception {
        Batcher b = new Batcher(5, Duration.ofHours(1), Time.SYSTEM);
        try (OnThread<List<Pending>> applier = OnThread.start("test-applier", () -> b.take(LONG_BLOCK))) {
            Await.until("the applier waits inside take", PROMPTLY, () -> b.waiters() == 1);
            b.close();
            assertThat(applier.get(PROMPTLY)).isEmpty();
        }
        assertThat(b.isDrained()).isTrue();
    }

    @Test
    void takeTimesOutEmptyWhenNothingArrives() throws Exception {
        Batcher b = new Batcher(5, Duration.ofMillis(1), Time.SYSTEM);
        long t0 = System.nanoTime();
        assertThat(b.take(Duration.ofMillis(20))).isEmpty();
        assertThat(System.nanoTime() - t0).as("waited its whole block").isGreaterThanOrEqualTo(20_000_000L);
        assertThat(b.isDrained()).isFalse();
    }
}
