package io.sluice.batch;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A hand-driven clock for tests. */
public final class FakeTicker implements Ticker {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long read() {
        return nanos.get();
    }

    public void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }
}
