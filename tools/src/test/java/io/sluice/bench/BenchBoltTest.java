package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.SluiceConfig;
import io.sluice.support.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.driver.AuthTokens;

/**
 * {@code sluice bench --api bolt}: the scenario's rows through the official Java driver, in each of its three styles,
 * against sluice's Bolt address and Neo4j's own server's. The end-to-end run is the command line in a process of its
 * own, as a user runs it, with the load in a process of its own too (its spec and summary cross a pipe as JSON).
 */
class BenchBoltTest {
    @TempDir
    Path dir;

    @Test
    void theRollbackFailingAndThreeStatementStylesAreAskedForByName() {
        assertThat(BenchApi.parseList("bolt", "execute-write-rollback"))
                .containsExactly(BenchApi.BOLT_EXECUTE_WRITE_ROLLBACK);
        assertThat(BenchApi.BOLT_EXECUTE_WRITE_ROLLBACK.bolt()).isTrue();
        assertThat(BenchApi.ROLLBACK_SHARE).isEqualTo(0.05);
        assertThat(BenchApi.parseList("bolt", "execute-write-fail")).containsExactly(BenchApi.BOLT_EXECUTE_WRITE_FAIL);
        assertThat(BenchApi.BOLT_EXECUTE_WRITE_FAIL.bolt()).isTrue();
        assertThat(BenchApi.parseList("bolt", "execute-write-3,transaction-3"))
                .containsExactly(BenchApi.BOLT_EXECUTE_WRITE_3, BenchApi.BOLT_TRANSACTION_3);
        assertThat(BoltWriter.rowsPerTransaction(BenchApi.BOLT_TRANSACTION_3)).isEqualTo(3);
        assertThat(BoltWriter.rowsPerTransaction(BenchApi.BOLT_EXECUTE_WRITE_3)).isEqualTo(3);
        assertThat(BoltWriter.rowsPerTransaction(BenchApi.BOLT_EXECUTE_WRITE)).isOne();
    }

    @Test
    void boltStandsForTheStylesAskedForInTheirOrder() {
        assertThat(BenchApi.parseList("template,bolt", null)).containsExactly(BenchApi.TEMPLATE, BenchApi.BOLT_RUN,
                BenchApi.BOLT_EXECUTE_WRITE, BenchApi.BOLT_EXECUTABLE_QUERY);
        assertThat(BenchApi.parseList("bolt,query-v2", "executable-query, run")).containsExactly(
                BenchApi.BOLT_EXECUTABLE_QUERY, BenchApi.BOLT_RUN, BenchApi.QUERY_V2);
        assertThat(BenchApi.parseList("bolt-execute-write")).containsExactly(BenchApi.BOLT_EXECUTE_WRITE);
        assertThat(BenchApi.BOLT_RUN.bolt()).isTrue();
        assertThat(BenchApi.QUERY_V2.bolt()).isFalse();
        assertThatThrownBy(() -> BenchApi.parseList("query-v2", "run")).hasMessageContaining("add bolt to --api");
        assertThatThrownBy(() -> BenchApi.parseList("bolt", "run,autocommit")).hasMessageContaining("'autocommit'");
        assertThatThrownBy(() -> BenchApi.parseList("bolt", "run,run")).hasMessageContaining("twice");
        assertThatThrownBy(() -> BenchApi.parseList("bolt,bolt-run")).hasMessageContaining("twice");
        assertThatThrownBy(() -> BenchApi.BOLT_RUN.path("visited")).hasMessageContaining("Bolt");
    }

    /** A Bolt client has no ?mode=: sluice's Bolt listener runs as sync, Neo4j's connector as neo4j, nothing else. */
    @Test
    void boltRunsOnSyncAndNeo4jOnly() {
        BenchOptions o = options("direct,sync,async,neo4j", List.of(BenchApi.TEMPLATE, BenchApi.BOLT_RUN,
                BenchApi.BOLT_EXECUTABLE_QUERY));
        BenchPlan plan = new BenchPlan(o);
        assertThat(plan.apis(BenchMode.DIRECT)).containsExactly(BenchApi.TEMPLATE);
        assertThat(plan.apis(BenchMode.ASYNC)).containsExactly(BenchApi.TEMPLATE);
        assertThat(plan.apis(BenchMode.SYNC)).containsExactly(BenchApi.TEMPLATE, BenchApi.BOLT_RUN,
                BenchApi.BOLT_EXECUTABLE_QUERY);
        assertThat(plan.apis(BenchMode.NEO4J)).containsExactly(BenchApi.BOLT_RUN, BenchApi.BOLT_EXECUTABLE_QUERY);
        assertThat(plan.plan().stream().map(plan::label)).containsExactly("template:direct", "template:sync",
                "bolt-run:sync", "bolt-executable-query:sync", "template:async", "bolt-run:neo4j",
                "bolt-executable-query:neo4j");
        assertThatThrownBy(() -> new Bench(options("direct", List.of(BenchApi.BOLT_RUN)), io.sluice.time.Time.SYSTEM,
                System.err).run()).hasMessageContaining("--modes direct has no api");
        assertThatThrownBy(() -> new BenchOptions(Scenario.named("visited"), List.of(BenchMode.SYNC), 4,
                Duration.ofSeconds(1), Duration.ZERO, Duration.ZERO, 10, SluiceConfig.defaults(), dir, 1,
                LoadClient.NETTY).withApis(List.of(BenchApi.BOLT_RUN))).hasMessageContaining("one row a transaction");
    }

    /** Errors by Neo4j code apart from HTTP statuses; a failure without the server's answer leaves its rows uncertain. */
    @Test
    void boltTransactionsAreCountedByNeo4jCode() {
        Tally tally = new Tally(new Window(0, 0, 100), 1);
        Tally.Client c = tally.newClient();
        c.recordBolt(null, false, 1, 10, 20);
        c.recordBolt("Neo.TransientError.Transaction.DeadlockDetected", false, 1, 20, 30);
        c.recordBolt("ServiceUnavailableException", true, 1, 30, 40);
        c.record(503, 1, 40, 50);
        LoadSummary s = tally.summary();
        assertThat(s.writes()).isEqualTo(1);
        assertThat(s.acknowledged()).isEqualTo(1);
        assertThat(s.uncertain()).as("no answer: committed or not").isEqualTo(1);
        assertThat(s.errors()).isEqualTo(3);
        assertThat(s.errorsByCode()).isEqualTo(Map.of("Neo.TransientError.Transaction.DeadlockDetected", 1L,
                "ServiceUnavailableException", 1L));
        assertThat(s.errorsByStatus()).isEqualTo(Map.of(503, 1L));

        Tally open = new Tally(new Window(0, 0, 100), 1);
        Tally.Client o = open.newClient();
        o.recordBoltOpen(null, false, 1, 10, 12, 20);
        o.recordBoltOpen("Neo.ClientError.Security.Unauthorized", false, 1, 20, 20, 30);
        LoadSummary os = open.summary();
        assertThat(os.writes()).isEqualTo(1);
        assertThat(os.open().sent()).isEqualTo(2);
        assertThat(os.errorsByCode()).containsOnlyKeys("Neo.ClientError.Security.Unauthorized");
        assertThat(os.maxMs()).as("from the due time").isEqualTo(10 / 1e6);
    }

    @Test
    void theDriverLogsInWithTheCredentialsOfTheHttpLoad() {
        assertThat(BoltWriter.authToken(Bench.AUTHORIZATION)).isEqualTo(AuthTokens.basic("neo4j", Bench.PASSWORD));
        assertThat(BoltWriter.authToken(null)).isEqualTo(AuthTokens.none());
        assertThat(BoltWriter.poolSize(64)).as("the driver's default, at least").isEqualTo(128);
        assertThat(BoltWriter.poolSize(4)).isEqualTo(BoltWriter.DRIVER_DEFAULT_POOL);
    }

    /**
     * {@code sluice bench visited --api bolt --modes sync,neo4j}: each style against sluice's Bolt address and against
     * Neo4j's own server in a JVM of its own, a couple of seconds each with 4 sessions: every run writes, none fails,
     * and the report compares each style's two targets.
     */
    @Test
    @Timeout(420)
    void everyStyleWritesOnBothTargetsWithoutErrors() throws Exception {
        Path json = dir.resolve("bolt.json");
        Path log = dir.resolve("bench.log");
        List<String> args = new ArrayList<>(List.of("bench", "visited", "--api", "bolt", "--modes", "sync,neo4j",
                "--clients", "4", "--duration", "2", "--warmup", "3", "--prime", "0", "--load-process",
                "--work", dir.resolve("work").toString(), "--out", json.toString()));
        int code = ChildJvm.run("1g", List.of(), args, log, Duration.ofSeconds(360));
        String out = Files.readString(log);
        assertThat(code).as(out).isZero();

        JsonNode root = new ObjectMapper().readTree(json.toFile());
        List<String> modes = new ArrayList<>();
        for (JsonNode r : root.get("results")) {
            modes.add(r.get("mode").asText());
            assertThat(r.get("writes").asLong()).as(r.toString()).isPositive();
            assertThat(r.get("errors").asLong()).as(r.toString()).isZero();
            assertThat(r.get("errors_by_code").size()).as(r.toString()).isZero();
            assertThat(r.get("client").asText()).isEqualTo("java-driver");
            assertThat(r.get("load").asText()).isEqualTo("process");
            assertThat(r.get("process_cpu_us_per_write").asDouble()).as(r.toString()).isPositive();
        }
        assertThat(modes).containsExactly("bolt-run:sync", "bolt-execute-write:sync", "bolt-executable-query:sync",
                "bolt-run:neo4j", "bolt-execute-write:neo4j", "bolt-executable-query:neo4j");
        for (String style : List.of("bolt-run", "bolt-execute-write", "bolt-executable-query")) {
            String ratio = style + ":sync/" + style + ":neo4j";
            assertThat(root.get("ratios").has(ratio)).as(ratio + " in " + root.get("ratios")).isTrue();
            assertThat(out).contains(ratio);
        }
        try (var left = Files.list(dir.resolve("work"))) {
            assertThat(left).as("temporary databases are deleted").isEmpty();
        }
    }

    private BenchOptions options(String modes, List<BenchApi> apis) {
        return new BenchOptions(Scenario.named("visited"), BenchMode.parseList(modes), 4, Duration.ofSeconds(1),
                Duration.ZERO, Duration.ZERO, 1, SluiceConfig.defaults(), dir, 1, LoadClient.NETTY).withApis(apis);
    }
}
