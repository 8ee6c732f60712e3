package io.sluice.time;

import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/**
 * Sluice's one clock, injected wherever time matters (after Kafka's {@code Time}): monotonic nanoseconds for
 * deadlines and durations, the wall clock for timestamps a person reads, and sleeping. Production code uses
 * {@link #SYSTEM}; tests drive a manual one, whose sleeps advance its clock and are recorded.
 *
 * <p>Waiting on a condition with a timeout ({@code Condition.awaitNanos}) is not sleeping: it ends early when
 * signalled and is bounded by deadlines read from this clock, so a manual clock still decides readiness.
 *
 * <p>Implementations are thread-safe.
 */
public interface Time {
    /** The JVM's clocks: {@link System#nanoTime}, {@link Instant#now}, {@link Thread#sleep}. */
    Time SYSTEM = new Time() {
        @Override
        public long nanos() {
            return System.nanoTime();
        }

        @Override
        public Instant now() {
            return Instant.now();
        }

        @Override
        public void sleep(Duration d) throws InterruptedException {
            if (d.isPositive()) {
                Thread.sleep(d);
            }
        }
    };

    /** Monotonic time in nanoseconds, for deadlines and durations only (its origin is arbitrary). */
    long nanos();

    /** The wall clock, for timestamps. */
    Instant now();

    /** Waits for {@code d}; a manual clock advances by it instead. */
    void sleep(Duration d) throws InterruptedException;

    /**
     * This clock, with sleeps that end early once {@code stop} says so: they sleep in steps of at most
     * {@code step}, and throw {@link InterruptedException} when {@code stop} is true before or between steps.
     * For threads that must not be interrupted (an interrupt inside Neo4j's file I/O closes its channels) but
     * must stop promptly.
     */
    default Time stoppedBy(BooleanSupplier stop, Duration step) {
        Time self = this;
        return new Time() {
            @Override
            public long nanos() {
                return self.nanos();
            }

            @Override
            public Instant now() {
                return self.now();
            }

            @Override
            public void sleep(Duration d) throws InterruptedException {
                long until = self.nanos() + d.toNanos();
                for (long left = d.toNanos(); ; left = until - self.nanos()) {
                    if (stop.getAsBoolean()) {
                        throw new InterruptedException("stopping");
                    }
                    if (left <= 0) {
                        return;
                    }
                    self.sleep(Duration.ofNanos(Math.min(left, step.toNanos())));
                }
            }
        };
    }
}
