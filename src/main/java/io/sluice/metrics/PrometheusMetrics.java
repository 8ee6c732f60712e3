package io.sluice.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** {@link Metrics} in a Micrometer Prometheus registry, scraped at {@code GET /metrics}. Thread-safe. */
public final class PrometheusMetrics implements Metrics, AutoCloseable {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final DistributionSummary batchRows;
    private final Timer commit;
    private final Counter batches;
    private final Counter bisections;
    private final JvmGcMetrics gc = new JvmGcMetrics();

    public PrometheusMetrics() {
        batchRows = DistributionSummary.builder("sluice.batch.rows").description("rows per committed batch")
                .publishPercentiles(0.5, 0.99).register(registry);
        commit = Timer.builder("sluice.commit").description("time to apply and commit one batch")
                .publishPercentiles(0.5, 0.99).distributionStatisticExpiry(Duration.ofMinutes(1)).register(registry);
        batches = Counter.builder("sluice.batches").description("batches committed").register(registry);
        bisections = Counter.builder("sluice.bisections").description("failing batches split to isolate a bad write")
                .register(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        gc.bindTo(registry);
    }

    /** Registers a gauge per applier partition. */
    public void gauge(String name, String description, int partition, Supplier<Number> value) {
        Gauge.builder(name, value).description(description).tag("partition", Integer.toString(partition)).register(registry);
    }

    /** Registers a gauge read on scrape, e.g. pending rows. */
    public void gauge(String name, String description, Supplier<Number> value) {
        Gauge.builder(name, value).description(description).register(registry);
    }

    @Override
    public void request(String mode, int status, int rows) {
        registry.counter("sluice.requests", "mode", mode, "status", Integer.toString(status)).increment();
        if (status < 300) {
            registry.counter("sluice.rows", "mode", mode).increment(rows);
        }
    }

    @Override
    public void batchCommitted(int rows, int requests, long nanos) {
        batches.increment();
        batchRows.record(rows);
        commit.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void transientRetry(String code) {
        registry.counter("sluice.transient.retries", "code", code).increment();
    }

    @Override
    public void bisection() {
        bisections.increment();
    }

    @Override
    public void writeFailed(String code) {
        registry.counter("sluice.write.failures", "code", code).increment();
    }

    /** The Prometheus text exposition. */
    public String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        gc.close();
        registry.close();
    }
}
