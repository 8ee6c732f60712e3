package io.sluice.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.time.ManualTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class HistoryTest {
    static final String SCRAPE = """
            # HELP sluice_requests_total
            # TYPE sluice_requests_total counter
            sluice_requests_total{mode="sync",status="200"} 12.0
            sluice_request_seconds_bucket{mode="sync",le="0.001"} 3
            sluice_request_seconds_count{mode="sync"} 12
            sluice_request_latency_seconds{mode="sync",quantile="0.99"} 0.0125
            sluice_pending_rows 4.0
            jvm_threads_live_threads 40.0
            process_cpu_usage 0.25
            """;

    @Test
    void keepsSluiceSeriesAndCpuButNotBucketsOrOtherJvmSeries() {
        assertThat(History.parse(SCRAPE)).containsOnly(
                Map.entry("sluice_requests_total{mode=\"sync\",status=\"200\"}", 12.0),
                Map.entry("sluice_request_seconds_count{mode=\"sync\"}", 12.0),
                Map.entry("sluice_request_latency_seconds{mode=\"sync\",quantile=\"0.99\"}", 0.0125),
                Map.entry("sluice_pending_rows", 4.0),
                Map.entry("process_cpu_usage", 0.25));
        assertThat(History.parse("sluice_x NaN\nsluice_y +Inf\nsluice_z not-a-number\n\n"))
                .containsEntry("sluice_y", Double.POSITIVE_INFINITY).containsKey("sluice_x")
                .doesNotContainKey("sluice_z");
    }

    @Test
    @SuppressWarnings("unchecked")
    void keepsTheLastSamplesAlignedWithNullsWhereASeriesWasMissing() {
        ManualTime time = new ManualTime();
        AtomicReference<String> text = new AtomicReference<>("sluice_a 1\n");
        History h = new History(text::get, time, Duration.ofSeconds(1), 3);
        h.sample();
        long first = time.now().toEpochMilli();
        time.advance(Duration.ofSeconds(1));
        text.set("sluice_a 2\nsluice_b 7\n");
        h.sample();
        time.advance(Duration.ofSeconds(1));
        text.set("sluice_a 3\nsluice_b 8\n");
        h.sample();
        Map<String, Object> all = h.since(0);
        assertThat(all.get("interval_ms")).isEqualTo(1000L);
        assertThat((List<Long>) all.get("t")).containsExactly(first, first + 1000, first + 2000);
        Map<String, List<Double>> series = (Map<String, List<Double>>) all.get("series");
        assertThat(series.get("sluice_a")).containsExactly(1.0, 2.0, 3.0);
        assertThat(series.get("sluice_b")).containsExactly(null, 7.0, 8.0);

        time.advance(Duration.ofSeconds(1));
        text.set("sluice_a 4\n");
        h.sample(); // capacity 3: the first sample goes
        assertThat((List<Long>) h.since(0).get("t")).containsExactly(first + 1000, first + 2000, first + 3000);
        Map<String, Object> later = h.since(first + 2000);
        assertThat((List<Long>) later.get("t")).containsExactly(first + 3000);
        assertThat((Map<String, List<Double>>) later.get("series")).containsOnlyKeys("sluice_a");
    }

    @Test
    void aScrapeThatFailsSkipsTheSampleAndTheThreadStopsOnClose() throws Exception {
        ManualTime time = new ManualTime();
        History h = new History(() -> {
            throw new IllegalStateException("a gauge failed");
        }, time, Duration.ofSeconds(1), 10);
        h.sample();
        assertThat((List<?>) h.since(0).get("t")).isEmpty();
        assertThatThrownBy(() -> new History(() -> "", time, Duration.ZERO, 1))
                .isInstanceOf(IllegalArgumentException.class);

        History running = new History(() -> "sluice_a 1\n", io.sluice.time.Time.SYSTEM, Duration.ofMillis(10), 5).start();
        io.sluice.support.Await.until("samples taken", Duration.ofSeconds(10),
                () -> ((List<?>) running.since(0).get("t")).size() >= 2);
        assertThat(running.running()).isTrue();
        running.close();
        assertThat(running.running()).as("stopped within close()").isFalse();
    }
}
