package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.time.Time;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The merge bench on a tiny dataset: every mode runs, finishes, and the ratios and the table come out. */
class ImportBenchTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(90)
    @SuppressWarnings("unchecked")
    void tinyMergeBenchRunsEveryModeAndLeavesNothingBehind() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Map<String, Object> report = new ImportBench(new ImportBench.Options("merge", 0.002, dir, 2, 1000, true, false),
                new PrintStream(err, true, StandardCharsets.UTF_8), Time.SYSTEM).run();
        List<Map<String, Object>> results = (List<Map<String, Object>>) report.get("results");
        assertThat(results).extracting(r -> r.get("mode")).containsExactly("raw-unwind-1000",
                "load-csv-concurrent-on-error-retry", "sluice-online-merge");
        assertThat(results).allSatisfy(r -> assertThat(r.get("ok")).as(r.toString()).isEqualTo(true));
        assertThat(results).allSatisfy(r -> assertThat((Long) r.get("rows")).isEqualTo(200 + 40 + 800));
        assertThat((Map<String, Double>) report.get("ratios")).containsKeys("sluice-online-merge/raw-unwind-1000",
                "sluice-online-merge/load-csv-concurrent-on-error-retry");
        assertThat(ImportBench.table(report)).contains("sluice-online-merge/raw-unwind-1000");
        Path json = dir.resolve("out.json");
        ImportBench.writeJson(report, json);
        assertThat(Files.readString(json)).contains("\"scenario\" : \"merge\"");
        try (var left = Files.list(dir)) {
            assertThat(left.filter(p -> p.getFileName().toString().startsWith("sluice-import-bench-"))).isEmpty();
        }
    }
}
