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
 * with two drivers' testkit backends (Python's and Go's), against Neo4j's own server, sluice, and sluice grouping every
 * write transaction ({@code transactions.group: true}): every test that passes against Neo4j with a driver must pass
 * against both with that driver.
 *
 * <p>Without Docker: the tests take the server from {@code TEST_NEO4J_*} and talk to the backend, which drives the
 * driver, on a port; {@code src/test/resources/testkit/runner.py} runs them one at a time, restarting the backend
 * after a failure (a stuck backend fails every later test). Pinned: testkit's {@code 5.0} branch and the Python
 * driver's at the commits below; the driver itself from PyPI ({@link #PYTHON_DRIVER}, the release after that commit),
 * the backend package (not on PyPI) from the driver's repository. Neither repository can be fetched by the suite
 * (the machines reach package registries only) nor kept in this one: the test reads both from local git mirrors
 * ({@code $SLUICE_GIT_MIRRORS}, else {@code /work/.mirror}, as the project's tools fetch them:
 * {@code neo4j-drivers+testkit/repo}, {@code neo4j+neo4j-python-driver/repo}) and skips, saying so, without them.
 * The Go driver's backend ships inside the driver's module, so it comes from the Go module proxy with the driver
 * ({@link #prepareGo}); without {@code go} only the Python backend runs, and the test says so.
 *
 * <p>testkit 5.0 compares server versions as strings and knows Bolt versions up to Neo4j 5.23, so the servers are
 * given as version {@code 5.26} (Neo4j's last 5.x; a calendar version such as {@code 2026.08} compares below
 * {@code "4"} and silently skips assertions); the two tests that check the version itself
 * ({@code test_agent_string}, {@code test_protocol_version_information}) then fail against Neo4j too, and are out
 * of the comparison like every test that does not pass there. Results: target/testkit/runs/.
 */
@Timeout(value = 2700, unit = TimeUnit.SECONDS) // a backstop: each of the six runs is bounded by RUN_SECONDS
class TestkitTest {
    static final String TESTKIT_COMMIT = "0c5fb949219b19a66553b9302aa77e40045d9487";
    static final String PYTHON_DRIVER_COMMIT = "624d3c4408720b98f927a91b0bffac7a459446f4";
    /** PyPI's release of the driver whose backend is at {@link #PYTHON_DRIVER_COMMIT}. */
    static final String PYTHON_DRIVER = "5.26.0";
    /**
     * The Go driver from the Go module proxy: the newest release whose backend announces only features testkit's
     * pin knows (5.28's announces {@code Feature:API:Driver:MaxConnectionLifetime}, which testkit 5.0 refuses).
     */
    static final String GO_DRIVER = "v5.27.0";
    /** As the Go driver's testkit/backend.py at {@link #GO_DRIVER} builds it (5.28.4 renamed them). */
    static final String GO_BUILD_TAGS = "internal_testkit,internal_time_mock";
    static final String VERSION = "5.26";
    static final Path HOME = Path.of("target", "testkit");
    static final Path PYTHON = HOME.resolve("venv/bin/python");
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
        List<Backend> backends = new ArrayList<>();
        backends.add(prepare(testkitGit, driverGit));
        if (OtherDriversTest.succeeds(List.of("go", "version"))) {
            backends.add(prepareGo());
        } else {
            System.out.println("testkit: go is not installed: the Go driver's backend is skipped (Python's runs)");
        }

        Path dir = Files.createTempDirectory("sluice-testkit-");
        Neo4jProcess neo4j = null;
        TestServer sluice = null;
        TestServer grouped = null;
        try {
            neo4j = Neo4jProcess.startHttp(dir.resolve("neo4j"), "neo4j/" + TestServer.PASSWORD, Map.of());
            Map<Backend, Map<String, String>> reference = runAll("neo4j", backends, neo4j.port, neo4j.httpPort);
            neo4j.close();
            neo4j = null;
            // the tests log in wrongly on purpose; sluice also limits failed logins per address
            sluice = TestServer.start("security: {max_failed_attempts: 1000}\n", true);
            Map<Backend, Map<String, String>> plain = runAll("sluice", backends, sluice.bolt.port(), port(sluice));
            sluice.close();
            sluice = null;
            grouped = TestServer.start("security: {max_failed_attempts: 1000}\ntransactions: {group: true}\n", true);
            Map<Backend, Map<String, String>> inGroups =
                    runAll("sluice-grouped", backends, grouped.bolt.port(), port(grouped));

            List<String> lost = new ArrayList<>();
            for (Backend backend : backends) {
                List<String> passing = reference.get(backend).entrySet().stream()
                        .filter(e -> e.getValue().equals("PASS")).map(Map.Entry::getKey).toList();
                System.out.printf("testkit with the %s driver: %s against Neo4j, %s against sluice, %s against sluice"
                        + " grouped%n", backend.driver(), counts(reference.get(backend)),
                        counts(plain.get(backend)), counts(inGroups.get(backend)));
                assertThat(passing.size()).as("tests passing against Neo4j's own server with the %s driver",
                        backend.driver()).isGreaterThan(100);
                for (var target : List.of(Map.entry("sluice", plain), Map.entry("sluice grouped", inGroups))) {
                    for (String id : passing) {
                        String status = target.getValue().get(backend).get(id);
                        if (!"PASS".equals(status)) {
                            lost.add(backend.driver() + " against " + target.getKey() + ": " + id + ": " + status);
                        }
                    }
                }
            }
            assertThat(lost).as("tests that pass against Neo4j but not against sluice (target/testkit/runs/)")
                    .isEmpty();
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

    /**
     * A driver's testkit backend: its {@code TEST_DRIVER_NAME} (the tests branch on it), the folder it runs in, and
     * the command starting it on a port ({@code null}: the Python backend, which runner.py starts itself).
     */
    record Backend(String driver, Path dir, String command) {
        String command(int port) {
            return command == null ? null : command + " " + port;
        }
    }

    static Map<Backend, Map<String, String>> runAll(String target, List<Backend> backends, int bolt, int http)
            throws Exception {
        Map<Backend, Map<String, String>> results = new LinkedHashMap<>();
        for (Backend backend : backends) {
            results.put(backend, run(target + "-" + backend.driver(), backend, bolt, http));
        }
        return results;
    }

    /** Whether the git directory {@code git} holds {@code commit}. */
    static boolean has(Path git, String commit) throws Exception {
        return Files.isDirectory(git) && OtherDriversTest.succeeds(List.of("git", "--git-dir=" + git, "cat-file",
                "-e", commit + "^{commit}"));
    }

    /**
     * testkit and the backend package exported at their pins, and a virtual environment with the driver from PyPI
     * and what the backend imports, under target/testkit (kept while the pins are the same); that backend.
     */
    static Backend prepare(Path testkitGit, Path driverGit) throws Exception {
        Path marker = HOME.resolve("pins");
        String pins = TESTKIT_COMMIT + " " + PYTHON_DRIVER_COMMIT + " " + PYTHON_DRIVER;
        Path python = PYTHON.toAbsolutePath();
        Backend backend = new Backend("python", HOME.resolve("backend").toAbsolutePath(), null);
        if (Files.exists(marker) && Files.readString(marker).equals(pins) && Files.isExecutable(python)) {
            return backend;
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
        return backend;
    }

    /**
     * The Go driver's testkit backend, built from the Go driver's module on the Go module proxy (the package
     * {@code testkit-backend} ships in it): its sources but {@code main.go}, which binds every interface on port 9876,
     * with {@code src/test/resources/testkit/go/main.go} instead (the same loop, on loopback, on the port given),
     * built with the build tags the driver's own {@code testkit/backend.py} gives at that version. Kept under
     * target/testkit/go while the version is the same.
     */
    static Backend prepareGo() throws Exception {
        Path home = HOME.resolve("go").toAbsolutePath();
        Path build = home.resolve("backend");
        Path binary = build.resolve("testkit-backend");
        Backend backend = new Backend("go", build, binary.toString());
        Path marker = home.resolve("pin");
        if (Files.exists(marker) && Files.readString(marker).equals(GO_DRIVER) && Files.isExecutable(binary)) {
            return backend;
        }
        TestServer.deleteRecursively(home);
        Files.createDirectories(build);
        Map<String, String> env = Map.of("GOMODCACHE", home.resolve("mod").toString(), "GOFLAGS", "-modcacherw",
                "GOTOOLCHAIN", "local");
        String module = "github.com/neo4j/neo4j-go-driver/v5";
        Files.writeString(build.resolve("go.mod"), "module sluice.io/testkitbackend\n\ngo 1.18\n\nrequire " + module + " "
                + GO_DRIVER + "\n");
        go(build, env, "mod", "download", module + "@" + GO_DRIVER);
        Path sources = home.resolve("mod").resolve(module + "@" + GO_DRIVER).resolve("testkit-backend");
        try (var files = Files.list(sources)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".go")).toList()) {
                if (!f.getFileName().toString().equals("main.go")) {
                    Files.copy(f, build.resolve(f.getFileName()));
                }
            }
        }
        Files.copy(Path.of("src/test/resources/testkit/go/main.go"), build.resolve("main.go"));
        go(build, env, "mod", "tidy");
        go(build, env, "build", "-tags", GO_BUILD_TAGS, "-o", binary.toString(), ".");
        Files.writeString(marker, GO_DRIVER);
        return backend;
    }

    /** {@code go ARGS} in {@code dir}, bounded; its output in target/bolt-drivers/install-go.log. */
    static void go(Path dir, Map<String, String> env, String... args) throws Exception {
        Files.createDirectories(OtherDriversTest.OUTPUT);
        Path log = OtherDriversTest.OUTPUT.resolve("install-go.log");
        List<String> command = new ArrayList<>(List.of("go"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        Process p = pb.start();
        boolean finished = p.waitFor(OtherDriversTest.INSTALL_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(finished && p.exitValue() == 0).as("%s: %s", command, Files.readString(log)).isTrue();
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
    static Map<String, String> run(String name, Backend backend, int bolt, int http) throws Exception {
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
        env.put("TEST_DRIVER_NAME", backend.driver());
        String python = PYTHON.toAbsolutePath().toString();
        int backendPort = TestServer.freePort();
        List<String> command = new ArrayList<>(List.of(python, runner.toString(), "--testkit",
                HOME.resolve("testkit").toAbsolutePath().toString(), "--driver", backend.dir().toString(), "--python",
                python, "--backend-port", String.valueOf(backendPort), "--out", out.toString()));
        if (backend.command() != null) {
            command.addAll(List.of("--backend-cmd", backend.command(backendPort)));
        }
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(out.resolve("run.log").toFile());
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
