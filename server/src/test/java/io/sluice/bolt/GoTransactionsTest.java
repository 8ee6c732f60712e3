package io.sluice.bolt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import io.sluice.vocab.Neo4jStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 35's Go workload (item 5) with Neo4j's official Go driver, unchanged: 64 goroutines each running 15 managed
 * transactions ({@code session.ExecuteWrite}, the driver's recommended API) that MERGE a visit of a user to a site
 * over 16 users and 8 sites, so that they contend, under unique constraints on both keys; one transaction in twenty
 * (seeded per goroutine, so every server gets the same plan) fails on a constraint instead, half in a second
 * statement after its visit, half at once; and one transaction reads back by element id the user it created
 * ({@code src/test/resources/bolt-drivers/go-transactions}, built by this test into target/ with the driver version
 * its go.mod pins). Run against Neo4j's own server, then through sluice with {@code transactions.group} false and
 * true. On each: every planned failure reaches its caller as {@code ConstraintValidationFailed} and nothing else
 * fails, every other transaction commits, the {@code n} the visits returned are those of visits run one at a time,
 * the graph holds exactly what the committed transactions imply (the sum of {@code v.n} is the committed visits), and
 * the read-back reads what it wrote. Through sluice the errors and the graph's aggregates equal Neo4j's, and grouped,
 * groups formed (so the grouped run cannot pass with no group). Printed, not asserted: each run's time, the driver's
 * own retries by cause (from its log) with the attempts whose COMMIT failed, and sluice's deadlock and group metrics.
 * Neo4j reports some of this workload's deadlocks at COMMIT (seen as attempts that ran whole and were retried), which
 * sluice re-runs like any other (docs/API.md); what the driver still retries through sluice is a deadlock whose re-run
 * answered differently (a visit returns its counter) and, grouped, a member told to retry. Skipped, saying so,
 * without go.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class GoTransactionsTest {
    static final Path SOURCE = OtherDriversTest.SCRIPTS.resolve("go-transactions");
    /**
     * The program and the driver's module, writable so that {@code mvn clean} deletes them; compiled packages go to
     * Go's own build cache, which outlives target/ (a fresh clone, as CI's, then compiles only the program).
     */
    static final Path BUILD = Path.of("target", "go-transactions");
    static final Path BINARY = BUILD.resolve("go-transactions");

    @Test
    void constraintFailuresAndAggregatesAsOnNeo4j() throws Exception {
        assumeThat(go()).as("go is not installed: skipping the Go driver test").isTrue();
        Files.createDirectories(OtherDriversTest.OUTPUT);
        build();
        Path dir = Files.createTempDirectory("sluice-go-tx-");
        try {
            JsonNode reference;
            try (Neo4jProcess neo4j = Neo4jProcess.start(dir.resolve("neo4j"), TestServer.freePort(),
                    "neo4j/" + TestServer.PASSWORD)) {
                reference = run("go-transactions-reference", "127.0.0.1:" + neo4j.port);
            }
            // first on the reference: when this fails there, the program is wrong, not sluice
            consistent("Neo4j", reference);
            timing("Neo4j", reference, reference);
            for (boolean grouped : List.of(false, true)) {
                String label = grouped ? "go-transactions-sluice-grouped" : "go-transactions-sluice";
                try (TestServer sluice = TestServer.start("transactions: {group: " + grouped + "}\n", true)) {
                    double before = OtherDriversTest.groupMembers(sluice);
                    JsonNode seen = run(label, sluice.bolt.toString());
                    timing(label, seen, reference);
                    metrics(label, sluice);
                    consistent(label, seen);
                    assertThat(seen.path("errors")).as("%s: the errors that reached the driver's callers, by code, "
                            + "against Neo4j's %s", label, reference.path("errors"))
                            .isEqualTo(reference.path("errors"));
                    assertThat(seen.path("graph")).as("%s: the graph afterwards, against Neo4j's", label)
                            .isEqualTo(reference.path("graph"));
                    // the database itself, not through sluice's Bolt path, holds what the driver read back
                    assertThat(sluice.count("MATCH (:User)-[v:VISITED]->(:Site) RETURN sum(v.n)"))
                            .as("%s: the sum of v.n in the database", label).isEqualTo(seen.at("/graph/sum").asLong());
                    if (grouped) {
                        assertThat(OtherDriversTest.groupMembers(sluice) - before)
                                .as("%s: managed transactions grouped", label).isPositive();
                    }
                }
            }
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }

    /**
     * What one run must show on any working server: exactly the planned constraint failures and no other error,
     * every other transaction committed, the values read back and the graph those commits imply.
     */
    static void consistent(String server, JsonNode o) {
        int planned = 0;
        for (JsonNode n : o.path("planned_failures")) {
            planned += n.asInt();
        }
        assertThat(planned).as("%s: the plan has constraint failures: %s", server, o).isPositive();
        assertThat(o.path("errors")).as("%s: the errors that reached the driver's callers, by code: %s", server, o)
                .isEqualTo(OtherDriversTest.JSON.valueToTree(
                        Map.of(Neo4jStatus.Schema.CONSTRAINT_VALIDATION_FAILED, planned)));
        assertThat(o.path("unexpected").asInt(-1)).as("%s: outcomes other than planned: %s", server,
                o.path("unexpected_list")).isZero();
        assertThat(o.path("committed").asInt()).as("%s: committed", server)
                .isEqualTo(o.path("transactions").asInt() - planned);
        assertThat(o.path("returned_wrong").size()).as("%s: visits' n not 1, 2, ... per user and site: %s", server,
                o.path("returned_wrong")).isZero();
        assertThat(o.path("graph_wrong").size()).as("%s: v.n against the visits committed: %s", server,
                o.path("graph_wrong")).isZero();
        assertThat(o.at("/graph/sum").asInt(-1)).as("%s: the sum of v.n is the visits committed", server)
                .isEqualTo(o.path("committed_visits").asInt());
        assertThat(o.path("graph")).as("%s: the graph against what the committed transactions imply", server)
                .isEqualTo(o.path("expected"));
        assertThat(o.at("/read_back/committed").asBoolean()).as("%s: the read-back transaction: %s", server,
                o.path("read_back")).isTrue();
        assertThat(o.at("/read_back/same").asBoolean()).as("%s: it read what it wrote: %s", server,
                o.path("read_back")).isTrue();
    }

    /** For the report: the run's time, against Neo4j's, and the driver's own retries (not asserted). */
    static void timing(String server, JsonNode o, JsonNode reference) {
        System.out.printf("%s: %s, %d transactions in %.2f s (%.2fx Neo4j's time), %d committed, %s; the driver's "
                + "own retries: %d calls of a function again, %s in its log, %.1f s of backoff; in the functions %s, "
                + "%d COMMITs failed%n", server, o.path("driver").asText(), o.path("transactions").asInt(),
                o.path("seconds").asDouble(), o.path("seconds").asDouble() / reference.path("seconds").asDouble(),
                o.path("committed").asInt(), o.path("errors"), o.path("retries").asInt(), o.path("retry_causes"),
                o.path("backoff_seconds").asDouble(), o.path("function_errors"), o.path("commit_failed").asInt());
    }

    /**
     * For the report: sluice's deadlocks (re-run or passed on), and its groups, aborts, members taken out and replays
     * (not asserted).
     */
    static void metrics(String server, TestServer sluice) {
        for (String line : sluice.server.metrics().scrape().split("\n")) {
            if (line.matches("(sluice_transactions_deadlocks_total|sluice_group(s_total|_aborts_total"
                    + "|_evictions_total|_replayed_statements_total|_members_(count|sum)))\\b.* [^0][^ ]*$")) {
                System.out.printf("%s: %s%n", server, line);
            }
        }
    }

    /** Builds the program into target/, the pinned driver from the Go module proxy (quick when up to date). */
    static void build() throws Exception {
        Path build = BUILD.toAbsolutePath();
        Files.createDirectories(build);
        OtherDriversTest.run(List.of("go", "-C", SOURCE.toAbsolutePath().toString(), "build", "-o",
                BINARY.toAbsolutePath().toString(), "."), Map.of("GOMODCACHE", build.resolve("mod").toString(),
                "GOFLAGS", "-mod=mod -modcacherw -buildvcs=false", "GOTOOLCHAIN", "local", "GOWORK", "off",
                "CGO_ENABLED", "0"), OtherDriversTest.INSTALL_SECONDS);
    }

    static JsonNode run(String name, String address) throws Exception {
        return OtherDriversTest.observe(name, List.of(BINARY.toAbsolutePath().toString()), Map.of(), address);
    }

    static boolean go() {
        return OtherDriversTest.succeeds(List.of("go", "version"));
    }
}
