package io.sluice.bolt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The drivers' own acceptance suite, testkit (github.com/neo4j-drivers/testkit), its {@code tests/neo4j} folder,
 * with the Python driver's testkit backend, against Neo4j's own server, sluice, and sluice grouping every write
 * transaction ({@code transactions.group: true}): every test that passes against Neo4j must pass against both.
 *
 * <p>Without Docker: the tests take the server from {@code TEST_NEO4J_*} and talk to the backend, which drives the
 * driver, on a port; {@code src/test/resources/testkit/runner.py} runs them one at a time, restarting the backend
 * after a failure (a stuck backend fails every later test). Pinned: testkit's {@code 5.0} branch and the Python
 * driver's at the commits below; the driver itself from PyPI ({@link #PYTHON_DRIVER}, the release after that commit),
 * the backend package (not on PyPI) from the driver's repository. Neither repository can be fetched by the suite
 * (the machines reach package registries only) nor kept in this one: the test reads both from local git mirrors
 * ({@code $SLUICE_GIT_MIRRORS}, else {@code /work/.mirror}, as the project's tools fetch them:
 * {@code neo4j-drivers+testkit/repo}, {@code neo4j+neo4j-python-driver/repo}) and skips, saying so, without them.
 *
 * <p>testkit 5.0 compares server versions as strings and knows Bolt versions up to Neo4j 5.23, so the servers are
 * given as version {@code 5.26} (Neo4j's last 5.x; a calendar version such as {@code 2026.08} compares below
 * {@code "4"} and silently skips assertions); the two tests that check the version itself
 * ({@code test_agent_string}, {@code test_protocol_version_information}) then fail against Neo4j too, and are out
 * of the comparison like every test that does not pass there. Results: target/testkit/runs/.
 */
@Timeout(value = 1800, unit = TimeUnit.SECONDS)
class TestkitTest {
    static final String TESTKIT_COMMIT = "0c5fb949219b19a66553b9302aa77e40045d9487";
    static final String PYTHON_DRIVER_COMMIT = "624d3c4408720b98f927a91b0bffac7a459446f4";
    /** PyPI's release of the driver whose backend is at {@link #PYTHON_DRIVER_COMMIT}. */
    static final String PYTHON_DRIVER = "5.26.0";
    static final String VERSION = "5.26";
    static final Path HOME = Path.of("target", "testkit");
    static final ObjectMapper JSON = new ObjectMapper();
    static final long RUN_SECONDS = 420;

    @Test
    void everyTestThatPassesAgainstNeo4jPassesAgainstSluice() throws Exception {
        Path mirrors = Path.of(System.getenv().getOrDefault("SLUICE_GIT_MIRRORS", "/work/.mirror"));
        Path testkitGit = mirrors.resolve("neo4j-drivers+testkit/repo");
        Path driverGit = mirrors.resolve("neo4j+neo4j-python-driver/repo");
        assumeThat(has(testkitGit, TESTKIT_COMMIT) && has(driverGit, PYTHON_DRIVER_COMMIT))
                .as("testkit and the Python driver's repository are not in %s (fetch github:neo4j-drivers/testkit and"
                        + " github:neo4j/neo4j-python-driver, or set SLUICE_GIT_MIRRORS): skipping testkit", mirrors)
                .isTrue();
        assumeThat(OtherDriversTest.succeeds(List.of("python3", "-m", "venv", "--help")))
                .as("python3 with venv is not installed: skipping testkit").isTrue();
        Path python = prepare(testkitGit, driverGit);

        Path dir = Files.createTempDirectory("sluice-testkit-");
        Neo4jProcess neo4j = null;
        TestServer sluice = null;
        TestServer grouped = null;
        try {
            neo4j = Neo4jProcess.startHttp(dir.resolve("neo4j"), "neo4j/" + TestServer.PASSWORD, Map.of());
            Map<String, String> reference = run("neo4j", python, neo4j.port, neo4j.httpPort);
            neo4j.close();
            neo4j = null;
            // the tests log in wrongly on purpose; sluice also limits failed logins per address
            sluice = TestServer.start("security: {max_failed_attempts: 1000}\n", true);
            Map<String, String> plain = run("sluice", python, sluice.bolt.port(), port(sluice));
            sluice.close();
            sluice = null;
            grouped = TestServer.start("security: {max_failed_attempts: 1000}\ntransactions: {group: true}\n", true);
            Map<String, String> inGroups = run("sluice-grouped", python, grouped.bolt.port(), port(grouped));

            List<String> passing = reference.entrySet().stream().filter(e -> e.getValue().equals("PASS"))
                    .map(Map.Entry::getKey).toList();
            System.out.printf("testkit: %s against Neo4j, %s against sluice, %s against sluice grouped%n",
                    counts(reference), counts(plain), counts(inGroups));
            assertThat(passing.size()).as("tests passing against Neo4j's own server").isGreaterThan(100);
            for (var target : List.of(Map.entry("sluice", plain), Map.entry("sluice grouped", inGroups))) {
                List<String> lost = new ArrayList<>();
                for (String id : passing) {
                    if (!"PASS".equals(target.getValue().get(id))) {
                        lost.add(id + ": " + target.getValue().get(id));
                    }
                }
                assertThat(lost).as("tests that pass against Neo4j but not against %s (target/testkit/runs/)",
                        target.getKey()).isEmpty();
            }
        } finally {
            if (neo4j != null) {
                neo4j.close();
            }
            if (sluice != null) {
                sluice.close();
            }
            if (grouped != null) {
                grouped.close();
            }
            TestServer.deleteRecursively(dir);
        }
    }

    /** Whether the git directory {@code git} holds {@code commit}. */
    static boolean has(Path git, String commit) throws Exception {
        return Files.isDirectory(git) && OtherDriversTest.succeeds(List.of("git", "--git-dir=" + git, "cat-file",
                "-e", commit + "^{commit}"));
    }

    /**
     * testkit and the backend package exported at their pins, and a virtual environment with the driver from PyPI
     * and what the backend imports, under target/testkit (kept while the pins are the same); the environment's
     * python.
     */
    static Path prepare(Path testkitGit, Path driverGit) throws Exception {
        Path marker = HOME.resolve("pins");
        String pins = TESTKIT_COMMIT + " " + PYTHON_DRIVER_COMMIT + " " + PYTHON_DRIVER;
        Path python = HOME.resolve("venv/bin/python").toAbsolutePath();
        if (Files.exists(marker) && Files.readString(marker).equals(pins) && Files.isExecutable(python)) {
            return python;
        }
        TestServer.deleteRecursively(HOME);
        Files.createDirectories(HOME.resolve("testkit"));
        Files.createDirectories(HOME.resolve("backend"));
        Files.createDirectories(OtherDriversTest.OUTPUT);
        export(testkitGit, TESTKIT_COMMIT, ".", HOME.resolve("testkit"));
        export(driverGit, PYTHON_DRIVER_COMMIT, "testkitbackend", HOME.resolve("backend"));
        OtherDriversTest.run(List.of("python3", "-m", "venv", HOME.resolve("venv").toString()), Map.of(), 120);
        OtherDriversTest.run(List.of(python.toString(), "-m", "pip", "install", "--disable-pip-version-check",
                "--quiet", "neo4j==" + PYTHON_DRIVER, "freezegun", "ifaddr~=0.1.7", "lark~=1.0.0", "pytz"), Map.of(),
                OtherDriversTest.INSTALL_SECONDS);
        Files.writeString(marker, pins);
        return python;
    }

    /** {@code path} of {@code commit} in {@code git} ({@code .}: all of it), written under {@code into}. */
    static void export(Path git, String commit, String path, Path into) throws Exception {
        Path tar = into.resolve("export.tar").toAbsolutePath();
        OtherDriversTest.run(List.of("git", "--git-dir=" + git, "archive", "-o", tar.toString(), commit, path),
                Map.of(), 120);
        OtherDriversTest.run(List.of("tar", "-xf", tar.toString(), "-C", into.toAbsolutePath().toString()), Map.of(),
                120);
        Files.delete(tar);
    }

    /** Runs tests/neo4j against the server on {@code bolt}: each test's id and status (PASS, FAIL, ERROR, SKIP). */
    static Map<String, String> run(String name, Path python, int bolt, int http) throws Exception {
        Path out = HOME.resolve("runs").resolve(name).toAbsolutePath();
        TestServer.deleteRecursively(out);
        Files.createDirectories(out);
        Path runner = out.resolve("runner.py");
        Files.copy(Path.of("src/test/resources/testkit/runner.py"), runner);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("TEST_NEO4J_HOST", "127.0.0.1");
        env.put("TEST_NEO4J_PORT", String.valueOf(bolt));
        env.put("TEST_NEO4J_HTTP_PORT", String.valueOf(http));
        env.put("TEST_NEO4J_USER", "neo4j");
        env.put("TEST_NEO4J_PASS", TestServer.PASSWORD);
        env.put("TEST_NEO4J_SCHEME", "bolt");
        env.put("TEST_NEO4J_VERSION", VERSION);
        env.put("TEST_NEO4J_EDITION", "community");
        env.put("TEST_NEO4J_CLUSTER", "false");
        env.put("TEST_DRIVER_NAME", "python");
        ProcessBuilder pb = new ProcessBuilder(List.of(python.toString(), runner.toString(), "--testkit",
                HOME.resolve("testkit").toAbsolutePath().toString(), "--driver",
                HOME.resolve("backend").toAbsolutePath().toString(), "--python", python.toString(), "--backend-port",
                String.valueOf(TestServer.freePort()), "--out", out.toString()))
                .redirectErrorStream(true).redirectOutput(out.resolve("run.log").toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        boolean finished = p.waitFor(RUN_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroy(); // SIGTERM: the runner stops its backend and writes what it has
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        assertThat(finished).as("testkit against %s within %d s; %s", name, RUN_SECONDS, out.resolve("run.log"))
                .isTrue();
        assertThat(Files.exists(out.resolve("results.json"))).as("testkit's results against %s; its log:%n%s", name,
                Files.readString(out.resolve("run.log"))).isTrue();
        Map<String, String> statuses = new TreeMap<>();
        for (JsonNode r : JSON.readTree(out.resolve("results.json").toFile()).path("results")) {
            statuses.put(r.path("id").asText(), r.path("status").asText());
        }
        return statuses;
    }

    static int port(TestServer s) {
        return URI.create(s.url("/")).getPort();
    }

    static Map<String, Long> counts(Map<String, String> statuses) {
        Map<String, Long> c = new TreeMap<>();
        statuses.values().forEach(s -> c.merge(s, 1L, Long::sum));
        return c;
    }
}
