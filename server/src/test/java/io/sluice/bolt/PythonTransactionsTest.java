package io.sluice.bolt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import io.sluice.vocab.Neo4jStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * No deadlock reaches a client (issue 35, item 2), with Neo4j's official Python driver, unchanged: six threads'
 * unmanaged ({@code begin_transaction}) and managed ({@code execute_write}) transactions of three statements each,
 * locking four shared nodes in random orders ({@code src/test/resources/bolt-drivers/transactions.py}). Against
 * Neo4j's own server some deadlock (the unmanaged ones' callers get {@code DeadlockDetected}, the managed ones are
 * retried by the driver); through sluice, default and grouped, no caller gets an error, and in both the graph holds
 * exactly three increments per committed transaction. The driver is installed as {@link OtherDriversTest} installs
 * it; skipped, saying so, without python3 and pip.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class PythonTransactionsTest {
    static final Path SCRIPT = OtherDriversTest.SCRIPTS.resolve("transactions.py");

    @Test
    void deadlocksOnNeo4jReachNoClientThroughSluice() throws Exception {
        assumeThat(OtherDriversTest.python()).as("python3 or its pip is not installed: skipping").isTrue();
        Files.createDirectories(OtherDriversTest.OUTPUT);
        OtherDriversTest.installPython();
        Path dir = Files.createTempDirectory("sluice-py-tx-");
        try {
            try (Neo4jProcess neo4j = Neo4jProcess.start(dir.resolve("neo4j"), TestServer.freePort(),
                    "neo4j/" + TestServer.PASSWORD)) {
                JsonNode reference = run("transactions-reference", "127.0.0.1:" + neo4j.port);
                consistent("Neo4j", reference);
                assertThat(reference.at("/unmanaged/errors/" + Neo4jStatus.Transaction.DEADLOCK_DETECTED).asInt())
                        .as("the workload deadlocks on Neo4j's own server: %s", reference).isPositive();
            }
            for (String yaml : List.of("transactions: {group: false}\n", "")) { // ungrouped; the default, grouped
                try (TestServer sluice = TestServer.start(yaml, true)) {
                    boolean grouped = yaml.isEmpty();
                    String label = grouped ? "transactions-sluice-grouped" : "transactions-sluice";
                    JsonNode seen = run(label, sluice.bolt.toString());
                    consistent(label, seen);
                    assertThat(seen.at("/unmanaged/errors").size()).as("%s: errors of unmanaged ones: %s", label, seen)
                            .isZero();
                    assertThat(seen.at("/managed/errors").size()).as("%s: errors of managed ones: %s", label, seen)
                            .isZero();
                    assertThat(seen.at("/unmanaged/committed").asInt() + seen.at("/managed/committed").asInt())
                            .as(label).isEqualTo(180);
                    if (!grouped) { // each a real transaction: its deadlocks re-run by sluice, not by the driver
                        // (bar a transaction that met more deadlocks than its re-runs' bound, which the driver retries)
                        assertThat(seen.at("/managed/calls").asInt() - seen.at("/managed/committed").asInt())
                                .as("%s: the driver's own retries: %s", label, seen).isLessThanOrEqualTo(3);
                    }
                }
            }
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }

    /** The nodes hold exactly three increments per committed transaction. */
    static void consistent(String server, JsonNode o) {
        assertThat(o.path("sum").asInt(-1)).as("%s: %s", server, o).isEqualTo(o.path("expected").asInt());
    }

    static JsonNode run(String name, String address) throws Exception {
        return OtherDriversTest.observe(name, List.of("python3", SCRIPT.toString()),
                Map.of("PYTHONPATH", OtherDriversTest.PYTHON_PACKAGES.toAbsolutePath().toString(),
                        "PYTHONNOUSERSITE", "1", "PYTHONDONTWRITEBYTECODE", "1"), address);
    }
}
