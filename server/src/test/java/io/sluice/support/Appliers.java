package io.sluice.support;

import io.sluice.apply.BatchRunner;
import io.sluice.apply.RetryPolicy;
import io.sluice.durable.RecordApplier;
import io.sluice.metrics.Metrics;
import io.sluice.sink.Sink;
import io.sluice.time.Jitter;

/** The apply loop's parts as tests build them: a plain batch runner over {@code sink}, fixed row limits. */
public final class Appliers {
    private Appliers() {}

    public static RecordApplier.Parts parts(Sink sink, RetryPolicy retry, int maxRows) {
        return new RecordApplier.Parts(clock -> new BatchRunner(sink, retry, clock, Jitter.RANDOM, Metrics.NONE), null,
                maxRows);
    }
}
