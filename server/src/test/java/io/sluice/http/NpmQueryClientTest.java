package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.TestServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Neo4j's own Query API client from npm ({@code @neo4j-labs/experimental-query-api-wrapper}, installed from the
 * registry into target/), unchanged, pointed at sluice: discovery, a write with typed parameters and counters,
 * explicit transactions (read-your-own-write, commit, rollback), executeWrite/executeRead, a path, a syntax
 * error and a wrong password with Neo4j's codes. Work-around: the package's files do not load in Node 20 as
 * published (ES module syntax under "type": "commonjs"); a loader hook (src/test/resources/npm-query-client)
 * fixes the packaging. Skipped, saying so, only when node or npm is not installed.
 */
@Timeout(300)
class NpmQueryClientTest {
    static final Path CLIENT = Path.of("target", "npm-query-client");

    static boolean onPath(String tool) {
        try {
            Process p = new ProcessBuilder(tool, "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static String run(List<String> command, long seconds) throws Exception {
        Process p = new ProcessBuilder(command).directory(CLIENT.toFile()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(seconds, TimeUnit.SECONDS)).as("%s finished", command).isTrue();
        String text = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("%s: %s", command, text).isZero();
        return text;
    }

    /** The client's output, a line of JSON per step, by step. */
    static Map<String, JsonNode> steps(String output) throws IOException {
        Map<String, JsonNode> steps = new HashMap<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : output.split("\n")) {
            if (line.startsWith("{")) {
                JsonNode n = json.readTree(line);
                steps.put(n.get("step").asText(), n);
            }
        }
        return steps;
    }

    /** Copies the client's files into target/ and installs the package from the registry, once. */
    static void install() throws Exception {
        Files.createDirectories(CLIENT);
        for (String f : List.of("package.json", "hooks.mjs", "register.mjs", "client.mjs", "grouped.mjs")) {
            Files.copy(Path.of("src/test/resources/npm-query-client", f), CLIENT.resolve(f),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        if (!Files.isDirectory(CLIENT.resolve("node_modules/@neo4j-labs/experimental-query-api-wrapper"))) {
            run(List.of("npm", "install", "--no-audit", "--no-fund", "--loglevel=error"), 240);
        }
    }

    @Test
    void neo4jsQueryApiClientWorksUnchanged() throws Exception {
        Assumptions.assumeTrue(onPath("node") && onPath("npm"), "node and npm are not installed: skipping the npm client test");
        install();
        try (TestServer s = TestServer.start("", false)) {
            String output = run(List.of("node", "--import", "./register.mjs", "client.mjs", s.server.baseUrl(),
                    TestServer.PASSWORD), 120);
            Map<String, JsonNode> steps = steps(output);
            assertThat(steps).as(output).containsKeys("connect", "write", "commit", "rollback", "executeWrite",
                    "executeRead", "path", "syntaxError", "wrongPassword");
            for (String ok : List.of("connect", "write", "commit", "rollback", "executeWrite", "executeRead", "path")) {
                assertThat(steps.get(ok).get("ok").asBoolean()).as("%s: %s", ok, steps.get(ok)).isTrue();
            }
            assertThat(steps.get("connect").get("value").asText()).isEqualTo("2026.08.1");
            JsonNode write = steps.get("write").get("value");
            assertThat(write.get("v").asText()).isEqualTo("1");
            assertThat(write.get("big").asText()).as("an integer beyond 2^53, exact").isEqualTo("9007199254740993");
            assertThat(write.get("d").asText()).isEqualTo("2024-02-29");
            assertThat(write.get("nodesCreated").asInt()).isEqualTo(1);
            assertThat(steps.get("commit").get("value").asText()).as("read its own write").isEqualTo("1");
            assertThat(steps.get("rollback").get("value").toString()).as("3 rolled back").isEqualTo("[\"1\",\"2\"]");
            assertThat(steps.get("executeWrite").get("value").asText()).isEqualTo("4");
            assertThat(steps.get("executeRead").get("value").asText()).isEqualTo("3");
            assertThat(steps.get("path").get("value").toString()).isEqualTo("{\"length\":1,\"start\":\"5\",\"end\":\"6\"}");
            assertThat(steps.get("syntaxError").get("code").asText()).isEqualTo("Neo.ClientError.Statement.SyntaxError");
            assertThat(steps.get("wrongPassword").get("code").asText()).isEqualTo("Neo.ClientError.Security.Unauthorized");
        }
    }

    /**
     * The same client against a sluice that groups transactions ({@code transactions.group: true}): 32 concurrent
     * {@code executeWrite}s (each an explicit transaction of the Query API) share commits, each exactly once; the
     * client's own retry takes what a group sends back.
     */
    @Test
    void neo4jsQueryApiClientsManagedWritesShareCommitsWhenGrouped() throws Exception {
        Assumptions.assumeTrue(onPath("node") && onPath("npm"), "node and npm are not installed: skipping the npm client test");
        install();
        try (TestServer s = TestServer.start("transactions: {group: true, max_open: 64}\n", false)) {
            String output = run(List.of("node", "--import", "./register.mjs", "grouped.mjs", s.server.baseUrl(),
                    TestServer.PASSWORD, "32"), 120);
            Map<String, JsonNode> steps = steps(output);
            assertThat(steps.get("concurrent").get("ok").asBoolean()).as(output).isTrue();
            assertThat(steps.get("concurrent").get("value").asInt()).isEqualTo(32);
            assertThat(steps.get("count").get("value").get("c").asText()).as("each exactly once").isEqualTo("32");
            assertThat(steps.get("count").get("value").get("d").asText()).isEqualTo("32");
            double groups = s.metric("sluice_group_members_count{outcome=\"committed\"}");
            double members = s.metric("sluice_group_members_sum{outcome=\"committed\"}");
            assertThat(groups).as("groups committed").isPositive();
            assertThat(members).as("members in %s groups", groups).isGreaterThan(groups);
        }
    }
}
