package io.sluice.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.batch.Admission.Result;
import io.sluice.support.Await;
import io.sluice.support.OnThread;
import io.sluice.time.Time;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The tests of waking up put the waiter on a thread of their own and wait until it is parked inside
 * {@code acquire} ({@link Admission#waiters()}) before they act, and give it a timeout far longer than they wait
 * for it: so it can only come back in time if the release or close woke it.
 */
class AdmissionTest {
    static final Duration LONG_WAIT = Duration.ofMinutes(1);
    static final Duration PROMPTLY = Duration.ofSeconds(10);

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
    void tryAcquireNeverWaits() {
        Admission a = new Admission(10, 1 << 20, Time.SYSTEM);
        assertThat(a.tryAcquire(50, 100)).as("alone, a request over the bound is admitted").isEqualTo(Result.ADMITTED);
        assertThat(a.tryAcquire(1, 1)).isEqualTo(Result.FULL);
        a.release(50, 100);
        assertThat(a.tryAcquire(10, 1)).isEqualTo(Result.ADMITTED);
        assertThat(a.pendingRows()).isEqualTo(10);
        a.close();
        assertThat(a.tryAcquire(1, 1)).isEqualTo(Result.CLOSED);
    }

    @Test
    void theByteBoundCountsToo() throws Exception {
        Admission a = new Admission(1000, 1000, Time.SYSTEM);
        assertThat(a.acquire(1, 900, Duration.ZERO)).isEqualTo(Result.ADMITTED);
        assertThat(a.acquire(1, 200, Duration.ZERO)).isEqualTo(Result.FULL);
        assertThat(a.acquire(1, 100, Duration.ZERO)).isEqualTo(Result.ADMITTED);
        assertThat(a.pendingBytes()).isEqualTo(1000);
    }

    @Test
    void aWaitingWriterIsAdmittedWhenRoomIsReleased() throws Exception {
        Admission a = new Admission(1, 1 << 20, Time.SYSTEM);
        assertThat(a.acquire(1, 1, Duration.ZERO)).isEqualTo(Result.ADMITTED);
        try (OnThread<Result> waiter = OnThread.start("admission-waiter", () -> a.acquire(1, 1, LONG_WAIT))) {
            Await.until("the writer waits inside acquire", PROMPTLY, () -> a.waiters() == 1);
            a.release(1, 1);
            assertThat(waiter.get(PROMPTLY)).as("woken by the release, long before its own timeout")
                    .isEqualTo(Result.ADMITTED);
        }
        assertThat(a.pendingRows()).isEqualTo(1);
    }

    @Test
    void aReleaseWakesEveryWaiterThatNowFits() throws Exception {
        Admission a = new Admission(2, 1 << 20, Time.SYSTEM);
        assertThat(a.acquire(2, 2, Duration.ZERO)).isEqualTo(Result.ADMITTED);
        try (OnThread<Result> first = OnThread.start("admission-waiter-1", () -> a.acquire(1, 1, LONG_WAIT));
                OnThread<Result> second = OnThread.start("admission-waiter-2", () -> a.acquire(1, 1, LONG_WAIT))) {
            Await.until("both writers wait inside acquire", PROMPTLY, () -> a.waiters() == 2);
            a.release(2, 2);
            assertThat(first.get(PROMPTLY)).isEqualTo(Result.ADMITTED);
            assertThat(second.get(PROMPTLY)).isEqualTo(Result.ADMITTED);
        }
        assertThat(a.pendingRows()).isEqualTo(2);
    }

    @Test
    void aRequestLargerThanTheBoundIsAdmittedAloneNotStarved() throws Exception {
        Admission a = new Admission(10, 1 << 20, Time.SYSTEM);
        assertThat(a.acquire(5, 1, Duration.ZERO)).isEqualTo(Result.ADMITTED);
        assertThat(a.acquire(50, 1, Duration.ZERO)).as("not while anything else is pending").isEqualTo(Result.FULL);
        a.release(5, 1);
        assertThat(a.acquire(50, 1, Duration.ZERO)).as("alone").isEqualTo(Result.ADMITTED);
        assertThat(a.acquire(1, 1, Duration.ZERO)).isEqualTo(Result.FULL);
        assertThat(a.pendingRows()).isEqualTo(50);
    }

    @Test
    void closingRefusesWaitersAndNewcomers() throws Exception {
        Admission a = new Admission(1, 1 << 20, Time.SYSTEM);
        assertThat(a.acquire(1, 1, Duration.ZERO)).isEqualTo(Result.ADMITTED);
        try (OnThread<Result> waiter = OnThread.start("admission-waiter", () -> a.acquire(1, 1, LONG_WAIT))) {
            Await.until("the writer waits inside acquire", PROMPTLY, () -> a.waiters() == 1);
            a.close();
            assertThat(waiter.get(PROMPTLY)).as("woken by close, long before its own timeout").isEqualTo(Result.CLOSED);
        }
        assertThat(a.acquire(1, 1, Duration.ZERO)).isEqualTo(Result.CLOSED);
        a.release(1, 1);
        assertThat(a.pendingRows()).as("releases still count after close").isZero();
    }
}
