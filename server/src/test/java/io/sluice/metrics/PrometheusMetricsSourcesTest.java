package io.sluice.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The sources' series, as {@code sluice status}, the dashboard and the alerts read them: counters at zero per
 * configured topic and outcome, and a partition's lag gauges reading its current owner. A partition that moves
 * between this instance's consumers (a rebalance) registers its gauges again with the new owner's readers, and those
 * are the ones read; Micrometer alone would keep the first registration's, which reads NaN once the first owner lost
 * the partition.
 */
class PrometheusMetricsSourcesTest {

    @Test
    void countersAtZeroPerTopicAndOutcome() {
        try (PrometheusMetrics m = new PrometheusMetrics()) {
            m.knownSources(List.of("orders"));
            assertThat(m.scrape()).contains(
                    "sluice_source_records_total{outcome=\"applied\",topic=\"orders\"} 0.0",
                    "sluice_source_records_total{outcome=\"dead_lettered\",topic=\"orders\"} 0.0",
                    "sluice_source_records_total{outcome=\"skipped\",topic=\"orders\"} 0.0",
                    "sluice_source_records_total{outcome=\"held\",topic=\"orders\"} 0.0");
            m.sourceRecords("orders", "applied", 5);
            assertThat(m.scrape()).contains("sluice_source_records_total{outcome=\"applied\",topic=\"orders\"} 5.0");
        }
    }

    @Test
    void aPartitionsGaugesReadItsLatestOwner() {
        try (PrometheusMetrics m = new PrometheusMetrics()) {
            m.sourcePartition("orders", 0, () -> Double.NaN, () -> Double.NaN); // the first owner, which lost it
            m.sourcePartition("orders", 0, () -> 120, () -> 42.5); // the consumer that applies it now
            m.sourcePartition("orders", 1, () -> 3, () -> 1.5);
            assertThat(m.scrape()).contains(
                    "sluice_source_lag_records{partition=\"0\",topic=\"orders\"} 120.0",
                    "sluice_source_lag_seconds{partition=\"0\",topic=\"orders\"} 42.5",
                    "sluice_source_lag_records{partition=\"1\",topic=\"orders\"} 3.0",
                    "sluice_source_lag_seconds{partition=\"1\",topic=\"orders\"} 1.5");
        }
    }
}
