package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.SluiceConfig;
import io.sluice.time.Time;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice bench-sources} on a tiny topic (a broker of its own, a producer process per topic, every phase on a
 * fresh embedded Neo4j: soak, {@code ./sluice soak}), end to end; and how the lag phase sums its samples up (in the suite).
 */
class SourcesBenchTest {
    @TempDir
    Path dir;

    @Test
    @org.junit.jupiter.api.Tag("soak") // a bench's smoke run (~30 s): the suite stays well under 15 minutes
    @Timeout(240) // a broker, four servers and two producer JVMs: ~60 s here
    void aTinyRunAppliesEveryRecordAsRawDoesAndReportsEveryPhase() throws Exception {
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        SourcesBench.Options o = new SourcesBench.Options(Scenario.named("visited"), 3_000, 2, null,
                Duration.ofSeconds(3), Rate.parse("80%"), Duration.ofSeconds(4), Duration.ZERO,
                SluiceConfig.defaults(), dir.resolve("work"), 42, "start", "sluice bench-sources (test)");
        SourcesReport report = new SourcesBench(o, Time.SYSTEM, new PrintStream(progress, true,
                StandardCharsets.UTF_8)).run();

        assertThat(report.phases()).extracting(SourcesReport.Phase::name).containsExactly("raw", "sources", "naive");
        SourcesReport.Phase raw = report.phases().get(0);
        SourcesReport.Phase sources = report.phases().get(1);
        SourcesReport.Phase naive = report.phases().get(2);
        assertThat(raw.records()).isEqualTo(3_000);
        assertThat(sources.records()).isEqualTo(3_000);
        assertThat(raw.complete()).isTrue();
        assertThat(sources.complete()).as("every position at its end, in the graph too").isTrue();
        assertThat(sources.graph()).as("the same rows leave the same graph").isEqualTo(raw.graph())
                .containsEntry("nodes", raw.graph().get("nodes"));
        assertThat(raw.graph().get("relationships")).isPositive();
        assertThat(sources.cpuSeconds()).isPositive();
        assertThat(sources.brokerCpuSeconds()).as("the bench's own broker, read beside").isPositive();
        assertThat(naive.records()).isPositive();
        if (naive.complete()) {
            assertThat(naive.graph()).isEqualTo(raw.graph());
        }
        assertThat(report.consumers()).isEqualTo(SourcesBench.defaultConsumers());
        assertThat(report.ratios()).containsKeys("sources/raw", "naive/raw", "sources/naive", "cpu sources/raw");
        assertThat(report.notes()).noneMatch(n -> n.startsWith("WRONG"));

        SourcesReport.Lag lag = report.lag();
        assertThat(lag).isNotNull();
        assertThat(lag.targetRate()).isCloseTo(0.8 * sources.perSecond(), within(0.01));
        assertThat(lag.produced()).isPositive();
        assertThat(lag.samples()).isNotEmpty();
        assertThat(lag.drainSeconds()).as("everything produced was applied").isGreaterThanOrEqualTo(0);
        assertThat(lag.applied()).isEqualTo(lag.produced());

        assertThat(report.table()).contains("raw", "sources", "naive", "lag at 80%", "sources/raw", "bounded");
        Path out = dir.resolve("out.json");
        report.writeJson(out);
        JsonNode json = new ObjectMapper().readTree(out.toFile());
        assertThat(json.get("command").asText()).isEqualTo("sluice bench-sources (test)");
        assertThat(json.get("phases")).hasSize(3);
        assertThat(json.get("lag").get("samples")).isNotEmpty();
        assertThat(progress.toString(StandardCharsets.UTF_8)).contains("kafka ready",
                "MERGE (u:User {id: event.user}) MERGE (s:Site {url: event.url}) MERGE (u)-[:VISITED]->(s)",
                "filled: 3,000 records");
        try (var left = Files.list(dir.resolve("work"))) {
            assertThat(left).as("temporary databases and the broker's data are deleted").isEmpty();
        }
    }

    @Test
    void aBacklogGrowingOverTheLastHalfIsNotBounded() {
        List<SourcesReport.Sample> flat = new ArrayList<>();
        List<SourcesReport.Sample> growing = new ArrayList<>();
        for (int t = 1; t <= 60; t++) {
            long noise = (t % 3) * 500L;
            flat.add(new SourcesReport.Sample(t, noise, 0.1, 2_000 + noise));
            growing.add(new SourcesReport.Sample(t, null, null, 2_000 + noise + Math.max(0, t - 30) * 300L));
        }
        SourcesReport.Lag ok = SourcesReport.Lag.of("80%", 1_000, 60_000, 60, flat, 0.5, 1, 60_000, 100, 0);
        assertThat(ok.bounded()).isTrue();
        assertThat(ok.growth()).isCloseTo(0, within(1_000.0));
        assertThat(ok.maxEndRecords()).isEqualTo(3_000);
        assertThat(ok.p99Records()).isEqualTo(1_000);
        SourcesReport.Lag behind = SourcesReport.Lag.of("80%", 1_000, 60_000, 60, growing, -1, 1, 50_000, 100, 0);
        assertThat(behind.bounded()).as("+300 records/s over 30 s is more than 1 s of 1,000/s").isFalse();
        assertThat(behind.maxRecords()).as("no sluice figure in any sample").isNaN();
        assertThat(SourcesReport.Lag.of("80%", 1_000, 0, 0, List.of(), -1, 0, 0, 0, 0).bounded()).isNull();
        assertThat(SourcesReport.Lag.p99(new double[] {5, 1, 3})).isEqualTo(5);
    }

    @Test
    void recordsAreKeyedByTheScenariosKey() {
        assertThat(ProducerMain.key(Scenario.named("visited"), Map.of("user", 7L, "url", "https://site/1")))
                .isEqualTo("7".getBytes(StandardCharsets.UTF_8));
        assertThat(ProducerMain.key(Scenario.named("create-node"), Map.of("id", 1L))).isNull();
    }
}
