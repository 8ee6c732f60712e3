package io.sluice.importer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.cli.Main;
import io.sluice.csv.Files2;
import io.sluice.online.Graph;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code sluice import} as a user types it, including the 2016 command line's {@code --nodes:Label "header,data"}. */
class ImportCommandTest {
    @TempDir
    Path dir;

    @Test
    void legacyGroupOptionsBecomeTodays() {
        List<String[]> g = LegacyArguments.groups(List.of("--nodes:Activity", "Activity_Header.csv,Activity.csv.gz",
                "--relationships:HAS=h.csv,r.csv", "--nodes:A:B", "x.csv"));
        assertThat(g).extracting(a -> a[0] + " " + a[1]).containsExactly("--nodes Activity=Activity_Header.csv,Activity.csv.gz",
                "--relationships HAS=h.csv,r.csv", "--nodes A:B=x.csv");
        assertThatThrownBy(() -> LegacyArguments.groups(List.of("--frobnicate"))).hasMessageContaining("unknown argument '--frobnicate'");
        assertThatThrownBy(() -> LegacyArguments.groups(List.of("--nodes:A"))).hasMessageContaining("needs its files");
    }

    @Test
    @Timeout(60)
    void theCommandLineOfThe2016ArticleImportsOnline() {
        Path h = Files2.write(dir.resolve("Activity_Header.csv"), "activityId:ID(Activity),name,score:int");
        Path a = Files2.write(dir.resolve("Activity.csv.gz"), "a1,Run,3", "a2,Swim,x", "a3,Ride,5");
        Path rh = Files2.write(dir.resolve("Next_Header.csv"), ":START_ID(Activity),:END_ID(Activity)");
        Path r = Files2.write(dir.resolve("Next.csv"), "a1,a3", "a3,a9");
        Path db = dir.resolve("db");
        Path report = dir.resolve("import.report");
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new Main()).setErr(new PrintWriter(err));
        int code = cli.execute("import", "--online", db.toString(), "--nodes:Activity", h + "," + a,
                "--relationships:NEXT", rh + "," + r, "--skip-bad-relationships", "--bad-tolerance=5",
                "--report-file", report.toString(), "--progress-interval", "0.2");
        assertThat(code).as(err.toString()).isZero();
        assertThat(Files2.lines(report)).hasSize(2);
        try (Graph g = Graph.open(db)) {
            assertThat(g.count("MATCH (n:Activity) RETURN count(n)")).isEqualTo(2);
            assertThat(g.count("MATCH (:Activity {activityId: 'a1'})-[:NEXT]->(:Activity {activityId: 'a3'}) RETURN count(*)")).isEqualTo(1);
        }
        int both = new CommandLine(new Main()).setErr(new PrintWriter(new StringWriter()))
                .execute("import", "--online", db.toString(), "--into", dir.resolve("x").toString(), "--nodes=" + h);
        assertThat(both).isNotZero();
    }
}
