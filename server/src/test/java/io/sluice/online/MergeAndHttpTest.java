package io.sluice.online;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.csv.CsvFormat;
import io.sluice.csv.CsvSource;
import io.sluice.csv.Files2;
import io.sluice.csv.InputGroup;
import io.sluice.csv.Tolerance;
import io.sluice.importer.ImportSummary;
import io.sluice.support.TestServer;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class MergeAndHttpTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(90)
    void mergeUpdatesWhatIsThereKeepsWhatTheFileDoesNotSayAndIsIdempotent() throws Exception {
        Fixture f = new Fixture(dir, false);
        Path db = dir.resolve("db");
        try (Graph g = Graph.open(db)) {
            g.one("CREATE (u:User {userId: 'u1', age: 99, extra: 'keep'}) RETURN 1");
        }
        Path report = dir.resolve("import.report");
        Tolerance none = new Tolerance(false, false, 0);
        ImportSummary s = f.online(f.options(report, none, db.toString(), true, 100, false));
        assertThat(s.finished()).as(s.text() + f.errText()).isTrue();
        assertThat(s.nodes()).isEqualTo(Fixture.USERS + Fixture.SITES - 1);
        long pairs = distinctVisitPairs(f);
        assertThat(s.relationships()).isEqualTo(pairs);

        ImportSummary again = f.online(f.options(report, none, db.toString(), true, 100, true));
        assertThat(again.finished()).isTrue();
        assertThat(again.nodes()).isZero();
        assertThat(again.relationships()).isZero();
        try (Graph g = Graph.open(db)) {
            assertThat(g.count("MATCH (u:User) RETURN count(u)")).isEqualTo(Fixture.USERS);
            assertThat(g.count("MATCH ()-[v:VISITED]->() RETURN count(v)")).isEqualTo(pairs);
            assertThat(g.one("MATCH (u:User {userId: 'u1'}) RETURN u.extra")).isEqualTo("keep");
            assertThat(g.one("MATCH (u:User {userId: 'u1'}) RETURN u.age")).isEqualTo(19L);
            assertThat(g.count("MATCH (s:Web) RETURN count(s)")).isEqualTo(Fixture.SITES / 2);
        }
    }

    @Test
    @Timeout(90)
    void importsIntoARunningSluiceOverHttp() throws Exception {
        Fixture f = new Fixture(dir, true);
        Path report = dir.resolve("import.report");
        try (TestServer server = TestServer.start("", false)) {
            String url = server.server.baseUrl().replace("http://", "http://neo4j:" + TestServer.PASSWORD + "@");
            ImportSummary s = f.online(f.options(report, new Tolerance(true, true, -1), url, false, 100, false));
            assertThat(s.finished()).as(s.text() + f.errText()).isTrue();
            assertThat(s.nodes()).isEqualTo(Fixture.USERS + Fixture.SITES);
            assertThat(s.relationships()).isEqualTo(Fixture.VISITS);
            assertThat(server.count("MATCH (u:User) RETURN count(u)")).isEqualTo(Fixture.USERS);
            assertThat(server.count("MATCH ()-[v:VISITED]->() RETURN count(v)")).isEqualTo(Fixture.VISITS);
            assertThat(server.count("MATCH (u:User {userId: 'u7'}) WHERE u.born = date('1957-08-08') RETURN count(u)")).isEqualTo(1);
            assertThat(server.count("MATCH ()-[v:VISITED]->() WHERE v.when IS :: ZONED DATETIME RETURN count(v)"))
                    .isEqualTo(Fixture.VISITS);
        }
        assertThat(Files2.lines(report)).hasSize(5);
    }

    /** Distinct (user, site) pairs of the generated visits: what MERGE leaves. */
    private static long distinctVisitPairs(Fixture f) throws Exception {
        InputGroup visits = f.groups.get(2);
        Set<List<String>> pairs = new HashSet<>();
        try (CsvSource s = new CsvSource(visits.files(), CsvFormat.DEFAULT, new AtomicLong())) {
            s.next();
            for (CsvSource.Raw r = s.next(); r != null; r = s.next()) {
                pairs.add(List.of(r.fields()[0], r.fields()[1]));
            }
        }
        return pairs.size();
    }
}
