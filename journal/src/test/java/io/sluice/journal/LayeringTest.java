package io.sluice.journal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.Layering;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The journal depends on nothing of sluice's: only the JDK and SLF4J. Its files have no loops among them. */
class LayeringTest {
    @Test
    void journalImportsOnlyTheJdkAndSlf4j() throws IOException {
        Path sources = Path.of("src/main/java/io/sluice/journal");
        List<String> imports;
        try (Stream<Path> files = Files.list(sources)) {
            imports = files.flatMap(LayeringTest::lines)
                    .filter(l -> l.startsWith("import "))
                    .map(l -> l.replaceFirst("import (static )?", ""))
                    .toList();
        }
        assertThat(imports).isNotEmpty().allSatisfy(i -> assertThat(i).matches("(java|org\\.slf4j)\\..*"));
    }

    @Test
    void noLoopsAmongTheJournalsFiles() throws IOException {
        assertThat(Layering.loops(Layering.MAIN)).as("loops among the journal's files").isEmpty();
    }

    private static Stream<String> lines(Path p) {
        try {
            return Files.readAllLines(p).stream().map(String::strip);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
