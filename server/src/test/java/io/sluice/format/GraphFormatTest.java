package io.sluice.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.sink.Sink;
import io.sluice.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The graph's format node: a new graph marked, sluice 0.1's unmarked positions upgraded (said), a dry run that only
 * says, a newer mark refused before any position is read.
 */
class GraphFormatTest {
    static Path dir;
    static EmbeddedNeo4j neo4j;
    static Sink sink;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-graph-format-");
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir.resolve("db"), null, 64L << 20, 0, "neo4j"));
        sink = neo4j.sink();
    }

    @AfterAll
    static void stop() {
        neo4j.close();
        TestServer.deleteRecursively(dir);
    }

    @BeforeEach
    void empty() throws Exception {
        sink.runImplicit("MATCH (n) DETACH DELETE n", Map.of());
    }

    long formats() throws Exception {
        return ((Number) sink.runImplicit("MATCH (f:SluiceFormat) RETURN count(f)", Map.of()).rows().getFirst()
                .getFirst()).longValue();
    }

    @Test
    void aNewGraphIsMarked() throws Exception {
        assertThat(GraphFormat.check(sink, "sluice 9.9", false)).contains("no sluice positions yet");
        assertThat(formats()).isZero();
        assertThat(GraphFormat.check(sink, "sluice 9.9", true)).contains("new, format 2");
        assertThat(GraphFormat.check(sink, "sluice 9.9", true)).endsWith("format 2");
        assertThat(formats()).isOne();
    }

    @Test
    void sluice01sPositionsAreUpgradedAndADryRunOnlySaysSo() throws Exception {
        sink.runImplicit("CREATE (:SluicePosition {source: 'journal:x', partition: 0, next: 7})", Map.of());
        assertThat(GraphFormat.check(sink, "sluice 9.9", false)).contains("format 1").contains("a start marks them");
        assertThat(formats()).isZero();
        assertThat(GraphFormat.check(sink, "sluice 9.9", true))
                .contains("positions of format 1 (sluice 0.1, 1 position nodes) upgraded to format 2");
        assertThat(sink.runImplicit("MATCH (f:SluiceFormat) RETURN f.upgraded_from", Map.of()).rows().getFirst()
                .getFirst()).isEqualTo(1L);
        assertThat(sink.runImplicit("MATCH (p:SluicePosition) RETURN p.next", Map.of()).rows().getFirst().getFirst())
                .isEqualTo(7L);
    }

    @Test
    void aNewerGraphIsRefused() throws Exception {
        sink.runImplicit("CREATE (:SluiceFormat {name: 'sluice', format: 3, written_by: 'sluice 0.3.0'})", Map.of());
        for (boolean mark : new boolean[] {false, true}) {
            assertThatThrownBy(() -> GraphFormat.check(sink, "sluice 0.2.0", mark))
                    .isInstanceOf(DataFormat.Refused.class)
                    .hasMessageContaining("format 3, written by sluice 0.3.0")
                    .hasMessageContaining("reads formats up to 2");
        }
    }
}
