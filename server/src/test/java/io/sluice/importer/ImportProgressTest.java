package io.sluice.importer;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.time.Time;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ImportProgressTest {
    @Test
    void plainLineHasRowsRateEtaAndRejected() {
        String line = ImportProgress.format(new ImportProgress.Sample("nodes", 1_234_000, 2_000_000, "rows", 3), 10.0, 1_000_000);
        assertThat(line).isEqualTo("import nodes: 1,234,000 of ~2,000,000 rows (61.7%), 100,000 rows/s, ETA 8 s, rejected 3");
        assertThat(ImportProgress.format(new ImportProgress.Sample("(3/4) Relationship linking", 40, 100, "%", 0), 2.0, 40))
                .isEqualTo("import (3/4) Relationship linking: 40 of ~100 % (40.0%), 20 %/s, ETA 3 s, rejected 0");
        assertThat(ImportProgress.eta(3725)).isEqualTo("1 h 2 min");
        assertThat(ImportProgress.eta(125)).isEqualTo("2 min 5 s");
    }

    @Test
    void closingPrintsWhereItEndedWhenNotATerminal() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AtomicReference<ImportProgress.Sample> now = new AtomicReference<>(new ImportProgress.Sample("relationships", 0, 0, "rows", 0));
        ImportProgress p = ImportProgress.start(now::get, false, new PrintStream(out, true, StandardCharsets.UTF_8),
                Duration.ofHours(1), Time.SYSTEM);
        now.set(new ImportProgress.Sample("relationships", 500, 500, "rows", 2));
        p.close();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("import relationships: 500 of ~500 rows (100.0%)")
                .contains("rejected 2");
    }
}
