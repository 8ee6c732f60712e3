package io.sluice.online;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.csv.Files2;
import io.sluice.csv.Tolerance;
import io.sluice.importer.ImportSummary;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** An online import that stops part-way resumes exactly: every row once, every bad row reported once. */
class ResumeTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(90)
    void stopsPastTheToleranceThenResumesWithoutDoingAnythingTwice() throws Exception {
        Fixture f = new Fixture(dir, true);
        Path report = dir.resolve("import.report");
        String db = dir.resolve("db").toString();

        ImportSummary first = f.online(f.options(report, new Tolerance(true, true, 1), db, false, 50, false));
        assertThat(first.finished()).isFalse();
        assertThat(first.stopped()).contains("exceed --bad-tolerance 1").contains("Read up to").contains("run the same command again");

        ImportSummary second = f.online(f.options(report, new Tolerance(true, true, 10), db, false, 50, false));
        assertThat(second.finished()).as(second.text()).isTrue();
        assertThat(second.resumed()).isPositive();
        assertThat(f.errText()).contains("resuming import");
        assertExactlyOnce(db, report);
    }

    @Test
    @Timeout(90)
    void aBatchCommittedButNotAcknowledgedIsNotAppliedAgain() throws Exception {
        Fixture f = new Fixture(dir, true);
        Path report = dir.resolve("import.report");
        String db = dir.resolve("db").toString();
        OnlineImport.Options o = f.options(report, new Tolerance(true, true, -1), db, false, 50, false);

        // the 16th batch is a relationship batch (about 12 node batches come first): nodes all in, relationships part-way
        ImportSummary first = f.online(o, t -> new FaultyTarget(t, 16));
        assertThat(first.finished()).isFalse();
        assertThat(first.stopped()).contains("connection lost after the commit");

        ImportSummary second = f.online(o);
        assertThat(second.finished()).as(second.text()).isTrue();
        assertExactlyOnce(db, report);
    }

    private static void assertExactlyOnce(String db, Path report) {
        try (Graph g = Graph.open(Path.of(db))) {
            assertThat(g.count("MATCH (u:User) RETURN count(u)")).isEqualTo(Fixture.USERS);
            assertThat(g.count("MATCH (s:Site) RETURN count(s)")).isEqualTo(Fixture.SITES);
            assertThat(g.count("MATCH ()-[v:VISITED]->() RETURN count(v)")).isEqualTo(Fixture.VISITS);
            assertThat(g.count("MATCH (m:SluiceImportMark) RETURN count(m)")).isZero();
        }
        assertThat(Files2.lines(report)).as("each bad row reported once").hasSize(5);
    }
}
