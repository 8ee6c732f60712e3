package io.sluice.online;

import io.sluice.csv.Datasets;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.csv.CsvFormat;
import io.sluice.csv.EntityKind;
import io.sluice.csv.Files2;
import io.sluice.csv.InputGroup;
import io.sluice.csv.Tolerance;
import io.sluice.importer.ImportProgress;
import io.sluice.importer.ImportSummary;
import io.sluice.time.Time;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A generated dataset with planted bad rows, and a way to run an online import of it.
 * Users: {@code USERS} rows in a header file and two data files (one gzipped), plus a file of bad rows: a
 * duplicate ID (u5), an unparsable int, an extra column. Sites: {@code SITES}, half with a second label.
 * Visits: {@code VISITS} in two gzipped files, plus two with a missing end and a missing start.
 */
final class Fixture {
    static final int USERS = 400;
    static final int SITES = 50;
    static final int VISITS = 800;

    final Path csv;
    final List<InputGroup> groups = new ArrayList<>();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Fixture(Path dir, boolean planted) {
        this.csv = dir.resolve("csv");
        try {
            Datasets.Group users = Datasets.users(csv, USERS, 2, true);
            Datasets.Group sites = Datasets.sites(csv, SITES);
            Datasets.Group visited = Datasets.visited(csv, VISITS, USERS, SITES, 2, true, 7);
            String badUsers = "";
            String badVisits = "";
            if (planted) {
                badUsers = "," + Files2.write(csv.resolve("users-bad.csv"),
                        Datasets.user(5).replace("User 5", "Again"),
                        "u9001,Bad Age,12x,1.0,true,t,2000-01-01",
                        "u9002,Extra,30,1.0,true,t,2000-01-01,EXTRA");
                badVisits = "," + Files2.write(csv.resolve("visited-bad.csv"),
                        "u1,https://nowhere/,2024-01-01T00:00:00Z,1.0",
                        "nobody," + Datasets.site(1) + ",2024-01-01T00:00:00Z,1.0");
            }
            groups.add(InputGroup.parse(EntityKind.NODES, "User=" + users.list() + badUsers));
            groups.add(InputGroup.parse(EntityKind.NODES, sites.list()));
            groups.add(InputGroup.parse(EntityKind.RELATIONSHIPS, "VISITED=" + visited.list() + badVisits));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static SluiceConfig smallConfig() {
        try {
            return ConfigLoader.parse("neo4j: {pagecache: 64m}\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Two threads, direct mode, a small embedded database. */
    OnlineImport.Options options(Path report, Tolerance t, String target, boolean merge, int batchRows, boolean restart) {
        return new OnlineImport.Options(groups, CsvFormat.DEFAULT, t, report, 2, smallConfig(), target, merge, batchRows,
                true, restart);
    }

    ImportSummary online(OnlineImport.Options o) throws Exception {
        return online(o, t -> t);
    }

    /** Runs it as {@code sluice import} does, progress lines every 100 ms, through {@code decorate}'s target. */
    ImportSummary online(OnlineImport.Options o, UnaryOperator<Target> decorate) throws Exception {
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        return ImportSummary.online(new OnlineImport(o, e, Time.SYSTEM).startingWith(io.sluice.server.SluiceServer.IN_PROCESS).decorate(decorate)
                .showing(ImportProgress.online(false, e, Duration.ofMillis(100), Time.SYSTEM)).run());
    }

    String errText() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
