package io.sluice.importer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.csv.Datasets;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.csv.CsvFormat;
import io.sluice.csv.EntityKind;
import io.sluice.csv.Files2;
import io.sluice.csv.InputGroup;
import io.sluice.csv.Rejection;
import io.sluice.csv.Tolerance;
import io.sluice.online.Graph;
import io.sluice.time.Time;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code --into}: Neo4j's importer in-process, then the config's schema; checked in Cypher on the new database. */
class OfflineImportTest {
    @TempDir
    Path dir;

    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    ImportSummary run(List<InputGroup> groups, Tolerance t, SluiceConfig c, Path into) throws Exception {
        ImportOptions o = new ImportOptions(groups, CsvFormat.DEFAULT, t, dir.resolve("import.report"), 2, c, Duration.ofMillis(200));
        return new OfflineImport(o, new ImportOptions.Offline(into, false, false, "256m", false),
                io.sluice.server.SluiceServer.IN_PROCESS,
                new PrintStream(err, true, StandardCharsets.UTF_8), Time.SYSTEM, false).run();
    }

    @Test
    @Timeout(120)
    void importsHeaderFilesGzipAndSeveralFilesPerGroupThenCreatesTheSchema() throws Exception {
        Path csv = dir.resolve("csv");
        Datasets.Group users = Datasets.users(csv, 300, 2, true);
        Path dupes = Files2.write(csv.resolve("users-dupes.csv"), Datasets.user(5).replace("User 5", "Again"));
        Datasets.Group sites = Datasets.sites(csv, 50);
        Datasets.Group visited = Datasets.visited(csv, 600, 300, 50, 2, true, 7);
        Path dangling = Files2.write(csv.resolve("visited-bad.csv"), "u1,https://nowhere/,2024-01-01T00:00:00Z,1.0",
                "nobody," + Datasets.site(1) + ",2024-01-01T00:00:00Z,1.0");
        List<InputGroup> groups = new ArrayList<>(List.of(
                InputGroup.parse(EntityKind.NODES, "User=" + users.list() + "," + dupes),
                InputGroup.parse(EntityKind.NODES, sites.list()),
                InputGroup.parse(EntityKind.RELATIONSHIPS, "VISITED=" + visited.list() + "," + dangling)));
        SluiceConfig c = ConfigLoader.parse("schema:\n  - CREATE CONSTRAINT user_id IF NOT EXISTS FOR (u:User) REQUIRE u.userId IS UNIQUE\n"
                + "neo4j: {pagecache: 64m}\n");
        Path into = dir.resolve("db");

        ImportSummary s = run(groups, new Tolerance(true, true, -1), c, into);

        assertThat(s.finished()).as(s.text()).isTrue();
        assertThat(s.nodes()).isEqualTo(350);
        assertThat(s.relationships()).isEqualTo(600);
        assertThat(s.properties()).isPositive();
        assertThat(s.rejected()).containsEntry(Rejection.Problem.DuplicateNode, 1L)
                .containsEntry(Rejection.Problem.BadRelationship, 2L);
        List<String> report = Files2.lines(dir.resolve("import.report"));
        assertThat(report).hasSize(3);
        JsonNode dup = new ObjectMapper().readTree(report.stream().filter(l -> l.contains("DuplicateNode")).findFirst().orElseThrow());
        assertThat(dup.get("node").get("id").asText()).isEqualTo("u5");
        // the progress polls the importer's stages (a stage shorter than the interval may go unseen); the last
        // stage is always shown when the import ends
        assertThat(err.toString(StandardCharsets.UTF_8)).containsPattern("import \\(\\d/4\\) ")
                .contains("import (4/4) Post processing");

        try (Graph g = Graph.open(into)) {
            assertThat(g.count("MATCH (u:User) RETURN count(u)")).isEqualTo(300);
            assertThat(g.count("MATCH (s:Site) RETURN count(s)")).isEqualTo(50);
            assertThat(g.count("MATCH (s:Web) RETURN count(s)")).isEqualTo(25);
            assertThat(g.count("MATCH ()-[v:VISITED]->() RETURN count(v)")).isEqualTo(600);
            // which of the two u5 rows Neo4j's parallel importer keeps is its business; one of them, once
            assertThat(g.count("MATCH (u:User {userId: 'u5'}) RETURN count(u)")).isEqualTo(1);
            assertThat(g.one("MATCH (u:User {userId: 'u5'}) RETURN u.name")).isIn("User 5", "Again");
            assertThat(g.one("MATCH (u:User {userId: 'u7'}) RETURN u.age")).isEqualTo(25L);
            assertThat(g.one("MATCH (u:User {userId: 'u7'}) RETURN u.score")).isEqualTo(0.7);
            assertThat(g.one("MATCH (u:User {userId: 'u6'}) RETURN u.active")).isEqualTo(true);
            assertThat(g.one("MATCH (u:User {userId: 'u7'}) RETURN u.tags")).isEqualTo(new String[] {"t2", "t0"});
            assertThat(g.one("MATCH (u:User {userId: 'u7'}) RETURN u.born")).isEqualTo(LocalDate.of(1957, 8, 8));
            assertThat(g.one("MATCH ()-[v:VISITED]->() RETURN v.when LIMIT 1")).isInstanceOf(ZonedDateTime.class);
            assertThat(g.count("SHOW CONSTRAINTS YIELD name WHERE name = 'user_id' RETURN count(*)")).isEqualTo(1);
        }
    }

    @Test
    @Timeout(120)
    void aValueNeo4jsImporterCannotReadStopsItWithItsMessage() throws Exception {
        Path f = Files2.write(dir.resolve("bad.csv"), "id:ID(User),age:int", "1,12x");
        ImportSummary s = run(List.of(InputGroup.parse(EntityKind.NODES, "User=" + f)),
                new Tolerance(false, false, -1), SluiceConfig.defaults(), dir.resolve("db"));
        assertThat(s.finished()).isFalse();
        assertThat(s.stopped()).contains("Neo4j's importer failed").contains("12x");
    }

    @Test
    void refusesADirectoryThatHoldsADatabase() throws Exception {
        Path into = dir.resolve("db");
        Files2.write(into.resolve("data/databases/neo4j/neostore"), "x");
        Path f = Files2.write(dir.resolve("n.csv"), "id:ID(User)", "1");
        assertThatThrownBy(() -> run(List.of(InputGroup.parse(EntityKind.NODES, "User=" + f)),
                new Tolerance(false, false, -1), SluiceConfig.defaults(), into))
                .hasMessageContaining("already holds database 'neo4j'").hasMessageContaining("--overwrite-destination");
    }
}
