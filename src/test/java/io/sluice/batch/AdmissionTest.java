package io.sluice.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.batch.Admission.Result;
import io.sluice.time.Time;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AdmissionTest {
    @Test
    void admitsUpToTheRowBoundThenRefusesAfterTheTimeout() throws Exception {
        Admission a = new Admission(10, 1 << 20, Time.SYSTEM);
        assertThat(a.acquire(6, 100, Duration.ZERO)).isEqualTo(Result.ADMITTED);
        assertThat(a.acquire(4, 100, Duration.ZERO)).isEqualTo(Result.ADMITTED);
        long t0 = System.nanoTime();
        assertThat(a.acquire(1, 1, Duration.ofMillis(50))).isEqualTo(Result.FULL);
        assertThat(System.nanoTime() - t0).as("waited the admission timeout").isGreaterThanOrEqualTo(50_000_000L);
        assertThat(a.pendingRows()).isEqualTo(10);
    }

    @Test
    void theByteBoundCountsToo() throws Exception {
        Admission a = new Admission(1000, 1000, Time.SYSTEM);
        assertThat(a.acquire(1, 900, Duration.ZERO)).isEqualTo(Result.ADMITTED);
        assertThat(a.acquire(1, 200, Duration.ZERO)).isEqualTo(Result.FULL);
        assertThat(a.acquire(1, 100, Duration.ZERO)).isEqualTo(Result.ADMITTED);
    }

    @Test
    void aWaitingWriterIsAdmittedWhenRoomIsReleased() throws Exception {
        Admission a = new Admission(1, 1 << 20, Time.SYSTEM);
        assertThat(a.acquire(1, 1, Duration.ZERO)).isEqualTo(Result.ADMITTED);
        CompletableFuture<Result> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return a.acquire(1, 1, Duration.ofMinutes(1));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(waiter).isNotDone();
        a.release(1, 1);
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isEqualTo(Result.ADMITTED);
    }

    @Test
    void aRequestLargerThanTheBoundIsAdmittedAloneNotStarved() throws Exception {
        Admission a = new Admission(10, 1 << 20, Time.SYSTEM);
        assertThat(a.acquire(50, 1, Duration.ZERO)).isEqualTo(Result.ADMITTED);
        assertThat(a.acquire(1, 1, Duration.ZERO)).isEqualTo(Result.FULL);
    }

    @Test
    void closingRefusesWaitersAndNewcomers() throws Exception {
        Admission a = new Admission(1, 1 << 20, Time.SYSTEM);
        a.acquire(1, 1, Duration.ZERO);
        CompletableFuture<Result> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return a.acquire(1, 1, Duration.ofMinutes(1));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        a.close();
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isEqualTo(Result.CLOSED);
        assertThat(a.acquire(1, 1, Duration.ZERO)).isEqualTo(Result.CLOSED);
    }
}
