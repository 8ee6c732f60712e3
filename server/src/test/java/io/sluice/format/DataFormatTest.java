package io.sluice.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data directory's format: a new one marked, sluice 0.1's unmarked layout upgraded (said, and marked once), a newer
 * or unreadable mark refused before anything is read, with what to do.
 */
class DataFormatTest {
    static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");

    @TempDir
    Path tmp;

    @Test
    void aNewDirectoryIsMarkedWithTheCurrentFormat() throws Exception {
        Path data = tmp.resolve("data");
        DataFormat.Opened o = DataFormat.open(data, "sluice 9.9 (commit abc)", NOW);
        assertThat(o.found()).isZero();
        assertThat(o.upgraded()).isFalse();
        assertThat(o.said()).contains("new, format 2");
        assertThat(Files.readString(data.resolve("FORMAT"))).contains("format=2").contains("written_by=sluice 9.9")
                .doesNotContain("upgraded_from");
        assertThat(DataFormat.open(data, "sluice 9.9 (commit abc)", NOW).said()).endsWith(": format 2");
        try (var files = Files.list(data)) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactly("FORMAT");
        }
    }

    @Test
    void sluice01sLayoutIsUpgradedOnceAndSaysSo() throws Exception {
        Path data = tmp.resolve("data");
        Files.createDirectories(data.resolve("journal"));
        Files.writeString(data.resolve("journal/00000000000000000000.log"), "records stay as they are");
        DataFormat.Opened dry = DataFormat.open(data, "sluice 9.9 (commit abc)", NOW, false);
        assertThat(dry.said()).contains("a start upgrades it to 2");
        assertThat(data.resolve("FORMAT")).as("a dry run upgrades nothing").doesNotExist();
        DataFormat.Opened o = DataFormat.open(data, "sluice 9.9 (commit abc)", NOW);
        assertThat(o.found()).isEqualTo(1);
        assertThat(o.upgraded()).isTrue();
        assertThat(o.said()).contains("format 1 (sluice 0.1, before formats were marked) upgraded to format 2");
        assertThat(Files.readString(data.resolve("FORMAT"))).contains("format=2").contains("upgraded_from=1");
        assertThat(Files.readString(data.resolve("journal/00000000000000000000.log")))
                .isEqualTo("records stay as they are");
        DataFormat.Opened again = DataFormat.open(data, "sluice 9.9 (commit abc)", NOW);
        assertThat(again.upgraded()).isFalse();
    }

    @Test
    void aNewerOrUnreadableFormatIsRefusedWithWhatToDo() throws Exception {
        Path data = tmp.resolve("data");
        Files.createDirectories(data);
        Files.writeString(data.resolve("FORMAT"), "format=3\nwritten_by=sluice 0.3.0 (commit 123)\n");
        assertThatThrownBy(() -> DataFormat.open(data, "sluice 0.2.0 (commit abc)", NOW))
                .isInstanceOf(DataFormat.Refused.class)
                .hasMessageContaining("is in format 3, written by sluice 0.3.0 (commit 123)")
                .hasMessageContaining("this sluice (sluice 0.2.0 (commit abc)) reads formats up to 2")
                .hasMessageContaining("Rollback");
        assertThat(Files.readString(data.resolve("FORMAT"))).startsWith("format=3"); // untouched

        Files.writeString(data.resolve("FORMAT"), "whatever\n");
        assertThatThrownBy(() -> DataFormat.open(data, "sluice 0.2.0", NOW)).isInstanceOf(DataFormat.Refused.class)
                .hasMessageContaining("does not say which format");
    }
}
