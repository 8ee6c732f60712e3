package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.Await;
import io.sluice.time.Time;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Warmer}'s start-up warm-up with a rehearsal of its own making (no database: the page cache is not read):
 * WARMING while it runs, and whatever the rehearsal does (returns, throws, throws an Error, is stopped), the warmer
 * ends WARMING, so /health never stays 503.
 */
@Timeout(60)
class WarmerTest {

    @Test
    void aRehearsalThatReturnsEndsWarmingAndIsDescribed() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (Warmer w = new Warmer(null, Time.SYSTEM, stop -> {
            release.await(30, TimeUnit.SECONDS);
            return Map.of("ended", "time limit");
        })) {
            assertThat(w.startOnStart(false)).isTrue();
            assertThat(w.warming()).isTrue();
            assertThat(w.startOnStart(false)).as("one warm-up at a time").isFalse();
            release.countDown();
            Await.until("the warm-up done", Duration.ofSeconds(30), () -> !w.warming());
            assertThat(w.describe()).containsEntry("state", "DONE")
                    .containsEntry("write_path", Map.of("ended", "time limit"));
        }
    }

    @Test
    void aRehearsalThatThrowsEndsWarmingAsFailed() throws Exception {
        try (Warmer w = new Warmer(null, Time.SYSTEM, stop -> {
            throw new IllegalStateException("the scratch database would not start");
        })) {
            w.startOnStart(false);
            Await.until("the warm-up over", Duration.ofSeconds(30), () -> !w.warming());
            assertThat(w.describe()).containsEntry("state", "FAILED");
            assertThat(w.describe().get("write_path").toString()).contains("the scratch database would not start");
        }
    }

    @Test
    void aRehearsalThatThrowsAnErrorStillEndsWarming() throws Exception {
        try (Warmer w = new Warmer(null, Time.SYSTEM, stop -> {
            throw new StackOverflowError("as an Error would");
        })) {
            w.startOnStart(false);
            Await.until("the warm-up over", Duration.ofSeconds(30), () -> !w.warming());
            assertThat(w.describe()).containsEntry("state", "FAILED");
        }
    }

    @Test
    void closingStopsARehearsalThatWaitsForStop() {
        CountDownLatch began = new CountDownLatch(1);
        Warmer w = new Warmer(null, Time.SYSTEM, stop -> {
            began.countDown();
            while (!stop.getAsBoolean()) {
                Thread.onSpinWait();
            }
            return Map.of("ended", "stopped");
        });
        w.startOnStart(false);
        Await.until("the rehearsal under way", Duration.ofSeconds(30), () -> began.getCount() == 0);
        long t0 = System.nanoTime();
        w.close();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        assertThat(w.warming()).isFalse();
    }

    @Test
    void withoutARehearsalOrPagesNothingStarts() {
        try (Warmer w = new Warmer(null, Time.SYSTEM)) {
            assertThat(w.startOnStart(false)).isFalse();
            assertThat(w.warming()).isFalse();
            assertThat(w.describe()).containsEntry("state", "NONE");
        }
    }
}
