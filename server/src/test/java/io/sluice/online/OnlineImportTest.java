package io.sluice.online;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.csv.Datasets;
import io.sluice.csv.Files2;
import io.sluice.csv.Rejection.Problem;
import io.sluice.csv.Tolerance;
import io.sluice.importer.ImportSummary;
import io.sluice.sink.StoreInUseException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code --online} into the embedded database, through sluice's write path; checked in Cypher. */
class OnlineImportTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(90)
    void createsNodesAndRelationshipsAndReportsEveryKindOfBadRow() throws Exception {
        Fixture f = new Fixture(dir, true);
        Path report = dir.resolve("import.report");
        Path db = dir.resolve("db");
        OnlineImport.Options o = f.options(report, new Tolerance(true, true, -1), db.toString(), false, 100, false);
        ImportSummary s = f.online(o);

        assertThat(s.finished()).as(s.text() + f.errText()).isTrue();
        assertThat(s.nodes()).isEqualTo(Fixture.USERS + Fixture.SITES);
        assertThat(s.relationships()).isEqualTo(Fixture.VISITS);
        assertThat(s.properties()).isPositive();
        assertThat(s.rejected()).containsExactlyInAnyOrderEntriesOf(Map.of(Problem.DuplicateNode, 1L, Problem.BadValue, 1L,
                Problem.ExtraColumns, 1L, Problem.BadRelationship, 2L));
        assertThat(s.rows()).isEqualTo(Fixture.USERS + 3 + Fixture.SITES + Fixture.VISITS + 2);

        List<JsonNode> lines = Files2.lines(report).stream().map(OnlineImportTest::json).toList();
        assertThat(lines).hasSize(5);
        JsonNode dup = only(lines, "DuplicateNode");
        assertThat(dup.get("source").asText()).endsWith("users-bad.csv");
        assertThat(dup.get("line").asLong()).isEqualTo(1);
        assertThat(dup.get("node").get("id").asText()).isEqualTo("u5");
        assertThat(dup.get("node").get("group").asText()).isEqualTo("User");
        JsonNode badValue = only(lines, "BadValue");
        assertThat(badValue.get("line").asLong()).isEqualTo(2);
        assertThat(badValue.get("column").asText()).isEqualTo("age:int");
        assertThat(badValue.get("value").asText()).isEqualTo("12x");
        assertThat(only(lines, "ExtraColumns").get("line").asLong()).isEqualTo(3);
        List<JsonNode> dangling = lines.stream().filter(l -> l.get("problem").asText().equals("BadRelationship")).toList();
        assertThat(dangling).extracting(l -> l.get("relationship").get("invalid").asText())
                .containsExactlyInAnyOrder("https://nowhere/", "nobody");
        assertThat(dangling).allSatisfy(l -> assertThat(l.get("source").asText()).endsWith("visited-bad.csv"));

        try (Graph g = Graph.open(db)) {
            assertThat(g.count("MATCH (u:User) RETURN count(u)")).isEqualTo(Fixture.USERS);
            assertThat(g.count("MATCH (s:Site) RETURN count(s)")).isEqualTo(Fixture.SITES);
            assertThat(g.count("MATCH (s:Web) RETURN count(s)")).isEqualTo(Fixture.SITES / 2);
            assertThat(g.count("MATCH ()-[v:VISITED]->() RETURN count(v)")).isEqualTo(Fixture.VISITS);
            assertThat(g.one("MATCH (u:User {userId: 'u5'}) RETURN u.name")).isEqualTo("User 5");
            assertThat(g.one("MATCH (u:User {userId: 'u7'}) RETURN u.age")).isEqualTo(25L);
            assertThat(g.one("MATCH (u:User {userId: 'u7'}) RETURN u.score")).isEqualTo(0.7);
            assertThat(g.one("MATCH (u:User {userId: 'u6'}) RETURN u.active")).isEqualTo(true);
            assertThat(g.one("MATCH (u:User {userId: 'u7'}) RETURN u.tags")).isEqualTo(new String[] {"t2", "t0"});
            assertThat(g.one("MATCH (u:User {userId: 'u7'}) RETURN u.born")).isEqualTo(LocalDate.of(1957, 8, 8));
            assertThat(g.one("MATCH (s:Site {url: '" + Datasets.site(3) + "'}) RETURN s.rank")).isEqualTo(3L);
            assertThat(g.one("MATCH ()-[v:VISITED]->() RETURN v.when LIMIT 1")).isInstanceOf(ZonedDateTime.class);
            assertThat(g.one("MATCH ()-[v:VISITED]->() RETURN v.weight LIMIT 1")).isInstanceOf(Double.class);
            assertThat(g.count("MATCH (u:User) WHERE u.userId IN ['u9001', 'u9002'] RETURN count(u)")).isZero();
            assertThat(g.count("SHOW CONSTRAINTS YIELD labelsOrTypes, properties, type WHERE type CONTAINS 'UNIQUE' "
                    + "AND labelsOrTypes = ['User'] AND properties = ['userId'] RETURN count(*)")).isEqualTo(1);
            assertThat(g.count("MATCH (m:SluiceImportMark) RETURN count(m)")).as("marks are cleared at the end").isZero();
            assertThat(g.count("MATCH (i:SluiceImport) WHERE i.completed IS NOT NULL RETURN count(i)")).isEqualTo(1);
        }
        assertThatThrownBy(() -> f.online(o))
                .hasMessageContaining("already finished").hasMessageContaining("--restart");
    }

    @Test
    @Timeout(60)
    void aDatabaseInUseIsRefusedWithTheWayInThatRemains() {
        Path db = dir.resolve("db");
        try (Graph g = Graph.open(db)) {
            assertThat(g.count("RETURN 1")).as("the database is open here").isEqualTo(1);
            assertThatThrownBy(() -> GatewayTarget.start(io.sluice.server.SluiceServer.IN_PROCESS, db, Fixture.smallConfig(), true))
                    .isInstanceOf(IllegalStateException.class).hasCauseInstanceOf(StoreInUseException.class)
                    .hasMessageContaining("is in use").hasMessageContaining("--online http://HOST:PORT");
        }
    }

    static JsonNode json(String line) {
        try {
            return new ObjectMapper().readTree(line);
        } catch (Exception e) {
            throw new IllegalStateException(line, e);
        }
    }

    static JsonNode only(List<JsonNode> lines, String problem) {
        List<JsonNode> found = lines.stream().filter(l -> l.get("problem").asText().equals(problem)).toList();
        assertThat(found).as(problem).hasSize(1);
        return found.getFirst();
    }
}
