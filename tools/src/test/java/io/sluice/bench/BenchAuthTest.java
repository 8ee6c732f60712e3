package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.ChildJvm;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice bench --neo4j bolt://... --user U --password P} against a Neo4j whose users require them (issue 26):
 * the load and the metrics probe authenticate as that user, so the figures are writes; with a password the Neo4j
 * refuses, most requests fail, and the bench says so and exits non-zero instead of printing a table of nothing.
 * The bench runs as a user runs it: the command line in a process of its own.
 */
@Timeout(240)
class BenchAuthTest {
    static final String PASSWORD = "bench-auth-secret";
    static Path dir;
    static Neo4jProcess neo4j;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-bench-auth-");
        neo4j = Neo4jProcess.start(dir.resolve("neo4j"), TestServer.freePort(), "neo4j/" + PASSWORD);
    }

    @AfterAll
    static void stop() {
        if (neo4j != null) {
            neo4j.close();
        }
        TestServer.deleteRecursively(dir);
    }

    static int bench(Path log, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("bench", "visited", "--neo4j", neo4j.uri(), "--user", "neo4j",
                "--password", PASSWORD, "--modes", "direct,sync", "--clients", "4", "--duration", "2", "--warmup", "0",
                "--prime", "0", "--work", dir.resolve("work").toString()));
        args.addAll(List.of(more));
        return ChildJvm.run("1g", List.of(), args, log, Duration.ofSeconds(150));
    }

    @Test
    void theLoadAuthenticatesAsTheGivenUser() throws Exception {
        Path log = dir.resolve("right.log");
        Path json = dir.resolve("right.json");
        int code = bench(log, "--out", json.toString());
        String out = Files.readString(log);
        assertThat(code).as(out).isZero();
        assertThat(out).contains("sync/direct").doesNotContain("most requests failed");
        JsonNode results = new ObjectMapper().readTree(json.toFile()).get("results");
        assertThat(results).hasSize(2);
        for (JsonNode r : results) {
            assertThat(r.get("writes").asLong()).as(r.toString()).isPositive();
            assertThat(r.get("errors").asLong()).as(r.toString()).isZero();
        }
    }

    /** The user may send read-only Cypher only (security.access): every template write is refused (403). */
    @Test
    void aBenchWhoseRequestsAreRefusedSaysSoAndFails() throws Exception {
        Path config = dir.resolve("read-only.yaml");
        Files.writeString(config, "security: {access: {users: {neo4j: read}}}\n");
        Path log = dir.resolve("refused.log");
        int code = bench(log, "--config", config.toString());
        String out = Files.readString(log);
        assertThat(code).as(out).isNotZero();
        assertThat(out).contains("most requests failed", "403").doesNotContain("sync/direct");
    }
}
