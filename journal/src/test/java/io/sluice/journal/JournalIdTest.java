package io.sluice.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A journal directory keeps its id across opens; another directory has another; a damaged id file is an error. */
class JournalIdTest {
    @TempDir
    Path dir;

    @Test
    void theIdIsMadeOnceAndKept() throws IOException {
        String first;
        try (Journal j = JournalDirectory.open(dir.resolve("a"), JournalOptions.defaults())) {
            first = j.id();
        }
        try (Journal j = JournalDirectory.open(dir.resolve("a"), JournalOptions.defaults())) {
            assertThat(j.id()).isEqualTo(first);
        }
        try (Journal j = JournalDirectory.open(dir.resolve("b"), JournalOptions.defaults())) {
            assertThat(j.id()).isNotEqualTo(first);
        }
        assertThat(dir.resolve("a").resolve(JournalId.FILE + ".tmp")).doesNotExist();
    }

    @Test
    void aDamagedIdFileStopsTheOpen() throws IOException {
        Files.createDirectories(dir.resolve("c"));
        Files.writeString(dir.resolve("c").resolve(JournalId.FILE), "not an id\n");
        assertThatThrownBy(() -> JournalDirectory.open(dir.resolve("c"), JournalOptions.defaults()))
                .isInstanceOf(IOException.class).hasMessageContaining("does not hold a journal id");
    }
}
