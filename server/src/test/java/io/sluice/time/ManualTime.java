package io.sluice.time;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/** A hand-driven clock for tests: {@link #advance} moves it; {@link #sleep} advances it and records the pause. */
public final class ManualTime implements Time {
    private static final Instant ORIGIN = Instant.parse("2026-01-01T00:00:00Z");
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final List<Duration> sleeps = new CopyOnWriteArrayList<>();

    @Override
    public long nanos() {
        return nanos.get();
    }

    @Override
    public Instant now() {
        return ORIGIN.plusNanos(nanos.get());
    }

    @Override
    public void sleep(Duration d) {
        sleeps.add(d);
        advance(d);
    }

    public void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }

    /** Every pause asked of {@link #sleep}, in order. */
    public List<Duration> sleeps() {
        return List.copyOf(sleeps);
    }
}
