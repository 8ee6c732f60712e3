package io.sluice.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.abort;

import io.sluice.support.TestServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;

/**
 * The release (issue 38): {@code ./sluice dist} builds the tarball; unpacked, with a {@code PATH} that holds no JDK
 * and no Maven and no {@code JAVA_HOME}, {@code bin/sluice --version} says the version and commit, {@code serve}
 * starts, takes writes over HTTP and Bolt and stops cleanly on SIGTERM. Then the
 * container image made from it ({@code deploy/container/Dockerfile}) on a base made from the distribution's packages,
 * run with podman: writes over HTTP and Bolt, its health check, a stop, a start again on the same volume. The
 * container part skips, saying why, where podman cannot run.
 */
@Timeout(900)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DistributionTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final String PASSWORD = "dist-test-password";
    static Path work;
    static Path home;
    static String version;

    @BeforeAll
    static void build() throws Exception {
        work = Files.createTempDirectory("sluice-dist-test-");
        Path out = work.resolve("out");
        long t0 = System.nanoTime();
        Result r = run(List.of(ROOT.resolve("sluice").toString(), "dist", "--out", out.toString()), Map.of(),
                Duration.ofMinutes(8), ROOT);
        assertThat(r.exit()).as(r.output()).isZero();
        List<Path> tarballs;
        try (Stream<Path> s = Files.list(out)) {
            tarballs = s.filter(p -> p.getFileName().toString().endsWith(".tar.gz")).toList();
        }
        assertThat(tarballs).hasSize(1);
        String name = tarballs.getFirst().getFileName().toString();
        version = name.substring("sluice-".length(), name.length() - ".tar.gz".length());
        System.out.printf("dist: %s, %d MiB, built in %.0f s%n", name, Files.size(tarballs.getFirst()) >> 20,
                (System.nanoTime() - t0) / 1e9);
        Path unpacked = work.resolve("unpacked");
        Files.createDirectories(unpacked);
        Result tar = run(List.of("tar", "-xzf", tarballs.getFirst().toString(), "-C", unpacked.toString()), Map.of(),
                Duration.ofMinutes(2), work);
        assertThat(tar.exit()).as(tar.output()).isZero();
        home = unpacked.resolve("sluice-" + version);
    }

    @AfterAll
    static void cleanUp() {
        TestServer.deleteRecursively(work);
    }

    /** An environment with no JDK, no Maven: PATH an empty directory, JAVA_HOME unset. */
    static Map<String, String> bare() throws IOException {
        Path empty = work.resolve("empty-path");
        Files.createDirectories(empty);
        Map<String, String> env = new HashMap<>();
        env.put("PATH", empty.toString());
        env.put("JAVA_HOME", null); // removed
        env.put("MAVEN_HOME", null);
        return env;
    }

    @Test
    @Order(1)
    void theTarballHoldsTheProductAndItsRuntimeButNotTheTools() throws Exception {
        assertThat(home.resolve("bin/sluice")).isExecutable();
        assertThat(home.resolve("runtime/bin/java")).isExecutable();
        assertThat(home.resolve("runtime/bin/javac")).doesNotExist();
        assertThat(home.resolve("conf/sluice.yaml")).isRegularFile();
        assertThat(home.resolve("deploy/container/Dockerfile")).isRegularFile();
        assertThat(home.resolve("deploy/systemd/sluice.service")).isRegularFile();
        List<String> jars;
        try (Stream<Path> s = Files.list(home.resolve("lib"))) {
            jars = s.map(p -> p.getFileName().toString()).toList();
        }
        assertThat(jars).contains("sluice-server.jar").noneMatch(j -> j.startsWith("sluice-tools"))
                .noneMatch(j -> j.startsWith("kafka_2.13") || j.startsWith("kafka-server"))
                .noneMatch(j -> j.startsWith("jmh"));
    }

    @Test
    @Order(2)
    void itsVersionSaysTheCommitWithNoJdkOrMavenOnThePath() throws Exception {
        Result which = run(List.of("/bin/sh", "-c", "command -v java || command -v mvn || echo none"), bare(),
                Duration.ofSeconds(10), work);
        assertThat(which.output().strip()).isEqualTo("none");
        Result v = run(List.of(home.resolve("bin/sluice").toString(), "--version"), bare(), Duration.ofSeconds(60),
                work);
        String commit = run(List.of("git", "-C", ROOT.toString(), "rev-parse", "--short=12", "HEAD"), Map.of(),
                Duration.ofSeconds(10), ROOT).output().strip();
        assertThat(v.exit()).as(v.output()).isZero();
        assertThat(v.output()).contains("sluice " + version + " (commit " + commit)
                .contains(home.resolve("runtime").toString());
    }

    @Test
    @Order(3)
    void itServesTakesWritesAndStopsCleanly() throws Exception {
        Path data = work.resolve("data");
        int http = TestServer.freePort();
        int bolt = TestServer.freePort();
        Map<String, String> env = bare();
        env.put("NEO4J_AUTH", "neo4j/" + PASSWORD);
        env.put("SLUICE_HEAP", "1g");
        List<String> serve = List.of(home.resolve("bin/sluice").toString(), "serve", "--data", data.toString(),
                "--http", "127.0.0.1:" + http, "--bolt", "127.0.0.1:" + bolt, "--warmup-write-path", "0s");
        Served first = Served.start(serve, env, work.resolve("serve-1.log"), http);
        System.out.printf("dist: bin/sluice serve took writes %.1f s after it was started%n", first.upSeconds);
        writeOverHttp(http, "CREATE (:Dist {id: 1, door: 'http'})");
        try (Driver d = GraphDatabase.driver("bolt://127.0.0.1:" + bolt, AuthTokens.basic("neo4j", PASSWORD));
                Session s = d.session()) {
            s.executeWrite(tx -> tx.run("CREATE (:Dist {id: 2, door: 'bolt'})").consume());
        }
        assertThat(first.stop()).as("exit status after SIGTERM").isIn(0, 143);
        assertThat(Files.readString(first.log)).contains("sluice stopped").contains("new, format");
        // that the writes outlive a stop and a start is the container's part below (same jars, its own volume)
    }

    static void writeOverHttp(int port, String cypher) throws Exception {
        try (HttpClient c = HttpClient.newHttpClient()) {
            HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/db/neo4j/tx/commit")).header("Content-Type", "application/json")
                    .header("Authorization", basic()).timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"statements\":[{\"statement\":\"" + cypher
                            + "\"}]}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            assertThat(r.body()).as(r.body()).contains("\"errors\":[]");
        }
    }

    static String basic() {
        return "Basic " + Base64.getEncoder().encodeToString(("neo4j:" + PASSWORD).getBytes(StandardCharsets.UTF_8));
    }

    /** Whether {@code GET /health} on {@code port} says UP. */
    static boolean up(HttpClient c, int port) {
        try {
            HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 && r.body().contains("\"UP\"");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A {@code bin/sluice serve} process, its output in {@code log}. */
    static final class Served {
        final Process process;
        final Path log;
        final double upSeconds;

        private Served(Process process, Path log, double upSeconds) {
            this.process = process;
            this.log = log;
            this.upSeconds = upSeconds;
        }

        static Served start(List<String> command, Map<String, String> env, Path log, int http) throws Exception {
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).directory(work.toFile());
            apply(pb, env);
            long t0 = System.nanoTime();
            Process p = pb.start();
            long deadline = t0 + TimeUnit.MINUTES.toNanos(3);
            try (HttpClient c = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
                while (!up(c, http)) {
                    if (!p.isAlive() || System.nanoTime() > deadline) {
                        p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                        throw new AssertionError("serve did not come UP (alive: " + p.isAlive() + "); its log:\n"
                                + Files.readString(log));
                    }
                    p.waitFor(100, TimeUnit.MILLISECONDS); // polls /health; returns early if the process ends
                }
            }
            return new Served(p, log, (System.nanoTime() - t0) / 1e9);
        }

        /** SIGTERM, then its exit status (killed after two minutes: a failure). */
        int stop() throws Exception {
            process.destroy();
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                throw new AssertionError("serve did not stop within 2 minutes of SIGTERM");
            }
            return process.exitValue();
        }
    }

    // ---- the container image ----

    /** podman's runtime that works here (crun fails under cgroups v1 hybrid: then runc), or null with why. */
    static String[] runtime(String base) throws Exception {
        List<String> why = new ArrayList<>();
        for (String rt : List.of("crun", "runc")) {
            List<String> cmd = new ArrayList<>(podman(rt));
            cmd.addAll(List.of("run", "--rm", "--network", "host"));
            cmd.addAll(LIMITS);
            cmd.addAll(List.of(base, "/bin/sh", "-c", "echo ok"));
            Result r = run(cmd, Map.of(), Duration.ofMinutes(2), work);
            if (r.exit() == 0 && r.output().contains("ok")) {
                return new String[] {rt};
            }
            why.add(rt + ": " + r.output().strip());
        }
        abort("podman cannot run a container here: " + String.join("; ", why));
        return null;
    }

    /** Limits within the hard limits this sandbox gives (podman's defaults exceed them). */
    static final List<String> LIMITS = List.of("--ulimit", "nofile=16384:16384", "--ulimit", "nproc=4096:4096");

    static List<String> podman(String runtime) {
        return List.of("podman", "--runtime", runtime);
    }

    /**
     * A base image made from the distribution's packages (no registry is reachable here): the C library and a
     * shell, unpacked from Debian's {@code libc6} and {@code dash} with {@code apt-get download} and
     * {@code dpkg-deb}, imported as an image.
     */
    static String base() throws Exception {
        Path debs = work.resolve("debs");
        Path rootfs = work.resolve("rootfs");
        Files.createDirectories(debs);
        Result dl = run(List.of("apt-get", "download", "libc6", "dash"), Map.of(), Duration.ofMinutes(3), debs);
        skipUnless(dl.exit() == 0, "apt-get download libc6 dash failed (no package mirror?): " + dl.output());
        try (Stream<Path> s = Files.list(debs)) {
            for (Path deb : s.filter(p -> p.toString().endsWith(".deb")).toList()) {
                Result x = run(List.of("dpkg-deb", "-x", deb.toString(), rootfs.toString()), Map.of(),
                        Duration.ofMinutes(1), work);
                assertThat(x.exit()).as(x.output()).isZero();
            }
        }
        Files.createDirectories(rootfs.resolve("bin"));
        Files.createDirectories(rootfs.resolve("etc"));
        if (!Files.exists(rootfs.resolve("bin/sh"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.createSymbolicLink(rootfs.resolve("bin/sh"), Path.of("dash")); // dash's postinst makes it
        }
        Files.createDirectories(rootfs.resolve("tmp"));
        Files.writeString(rootfs.resolve("etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n"
                + "sluice:x:10001:10001:sluice:/var/lib/sluice:/bin/sh\n");
        Files.writeString(rootfs.resolve("etc/group"), "root:x:0:\nsluice:x:10001:\n");
        Result chmod = run(List.of("chmod", "1777", rootfs.resolve("tmp").toString()), Map.of(),
                Duration.ofSeconds(10), work);
        assertThat(chmod.exit()).isZero();
        Path tar = work.resolve("base.tar");
        Result t = run(List.of("tar", "--numeric-owner", "-C", rootfs.toString(), "-cf", tar.toString(), "."),
                Map.of(), Duration.ofMinutes(1), work);
        assertThat(t.exit()).as(t.output()).isZero();
        String name = "localhost/sluice-test-base:" + version;
        Result imported = run(List.of("podman", "import", tar.toString(), name), Map.of(), Duration.ofMinutes(2), work);
        assertThat(imported.exit()).as(imported.output()).isZero();
        return name;
    }

    @Test
    @Order(4)
    void itsContainerImageTakesWritesStopsOnSigtermAndKeepsThemOnItsVolume() throws Exception {
        Result present = run(List.of("/bin/sh", "-c", "command -v podman"), Map.of(), Duration.ofSeconds(10), work);
        skipUnless(present.exit() == 0, "podman is not installed (apt-get install podman runc: .ci/run does)");
        String base = base();
        String rt = runtime(base)[0];
        String image = "localhost/sluice-test:" + version;
        String volume = "sluice-test-data-" + ProcessHandle.current().pid();
        String container = "sluice-test-" + ProcessHandle.current().pid();
        try {
            long t0 = System.nanoTime();
            Result built = run(List.of("podman", "build", "--format", "docker", "--build-arg", "BASE=" + base, "-f",
                    home.resolve("deploy/container/Dockerfile").toString(), "-t", image, home.toString()), Map.of(),
                    Duration.ofMinutes(5), work);
            assertThat(built.exit()).as(built.output()).isZero();
            System.out.printf("container: %s built in %.0f s%n", image, (System.nanoTime() - t0) / 1e9);
            Result config = run(List.of("podman", "image", "inspect", "--format",
                    "{{.Config.User}} {{.Config.Healthcheck.Test}} {{.Config.Volumes}}", image), Map.of(),
                    Duration.ofSeconds(30), work);
            assertThat(config.output()).contains("10001:10001").contains("status --health")
                    .contains("/var/lib/sluice").contains("/etc/sluice");

            int http = TestServer.freePort();
            int bolt = TestServer.freePort();
            List<String> runIt = new ArrayList<>(podman(rt));
            runIt.addAll(List.of("run", "-d", "--name", container, "--network", "host", "-v", volume + ":/var/lib/sluice",
                    "-e", "NEO4J_AUTH=neo4j/" + PASSWORD, "-e", "SLUICE_HTTP=127.0.0.1:" + http, "-e",
                    "SLUICE_BOLT=127.0.0.1:" + bolt, "-e", "SLUICE_WARMUP_WRITE_PATH=0s"));
            runIt.addAll(LIMITS);
            runIt.add(image);
            Result started = run(runIt, Map.of(), Duration.ofMinutes(1), work);
            assertThat(started.exit()).as(started.output()).isZero();
            awaitHealthy(rt, container, http);
            writeOverHttp(http, "CREATE (:Boxed {id: 1, door: 'http'})");
            try (Driver d = GraphDatabase.driver("bolt://127.0.0.1:" + bolt, AuthTokens.basic("neo4j", PASSWORD));
                    Session s = d.session()) {
                s.executeWrite(tx -> tx.run("CREATE (:Boxed {id: 2, door: 'bolt'})").consume());
            }
            Result who = run(List.of("podman", "--runtime", rt, "exec", container, "/bin/sh", "-c",
                    "while read -r l; do case $l in Uid:*) echo \"$l\";; esac; done < /proc/1/status"), Map.of(),
                    Duration.ofSeconds(30), work); // the base has a shell, no cat
            assertThat(who.output()).as("the server runs as the image's own user").containsPattern("Uid:\\s+10001");
            stop(rt, container);
            Result logs = run(List.of("podman", "logs", container), Map.of(), Duration.ofSeconds(30), work);
            assertThat(logs.output()).contains("sluice stopped");
            run(List.of("podman", "rm", "-f", container), Map.of(), Duration.ofMinutes(1), work);

            // again, on the same volume
            Result again = run(runIt, Map.of(), Duration.ofMinutes(1), work);
            assertThat(again.exit()).as(again.output()).isZero();
            awaitHealthy(rt, container, http);
            try (Driver d = GraphDatabase.driver("bolt://127.0.0.1:" + bolt, AuthTokens.basic("neo4j", PASSWORD));
                    Session s = d.session()) {
                assertThat(s.run("MATCH (n:Boxed) RETURN n.id AS id ORDER BY id").list(r -> r.get("id").asLong()))
                        .containsExactly(1L, 2L);
            }
            stop(rt, container);
        } finally {
            run(List.of("podman", "rm", "-f", container), Map.of(), Duration.ofMinutes(1), work);
            run(List.of("podman", "volume", "rm", "-f", volume), Map.of(), Duration.ofMinutes(1), work);
            run(List.of("podman", "rmi", "-f", image, base), Map.of(), Duration.ofMinutes(1), work);
        }
    }

    /** Until the image's own health check passes ({@code podman healthcheck run}), at most three minutes. */
    static void awaitHealthy(String rt, String container, int http) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (true) {
            Result h = run(List.of("podman", "--runtime", rt, "healthcheck", "run", container), Map.of(),
                    Duration.ofSeconds(60), work);
            if (h.exit() == 0) {
                return;
            }
            Result state = run(List.of("podman", "inspect", "--format", "{{.State.Status}}", container), Map.of(),
                    Duration.ofSeconds(30), work);
            if (!state.output().contains("running") || System.nanoTime() > deadline) {
                Result logs = run(List.of("podman", "logs", container), Map.of(), Duration.ofSeconds(30), work);
                throw new AssertionError("the container did not become healthy (" + state.output().strip() + ", "
                        + h.output().strip() + "); its log:\n" + logs.output());
            }
            try (HttpClient c = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
                up(c, http); // waits up to its timeout for the listener, rather than a sleep
            }
        }
    }

    /** {@code podman stop}: SIGTERM, up to 90 s to drain; the exit status must be a clean stop's. */
    static void stop(String rt, String container) throws Exception {
        Result stopped = run(List.of("podman", "--runtime", rt, "stop", "-t", "90", container), Map.of(),
                Duration.ofMinutes(2), work);
        assertThat(stopped.exit()).as(stopped.output()).isZero();
        Result exit = run(List.of("podman", "inspect", "--format", "{{.State.ExitCode}}", container), Map.of(),
                Duration.ofSeconds(30), work);
        assertThat(exit.output().strip()).as("exit status after SIGTERM").isIn("0", "143");
    }

    record Result(int exit, String output) {}

    static void apply(ProcessBuilder pb, Map<String, String> env) {
        env.forEach((k, v) -> {
            if (v == null) {
                pb.environment().remove(k);
            } else {
                pb.environment().put(k, v);
            }
        });
    }

    /** Runs {@code command}, its output and errors together, killed after {@code limit} (a failure). */
    static Result run(List<String> command, Map<String, String> env, Duration limit, Path dir) throws Exception {
        Path out = Files.createTempFile(work == null ? Path.of(System.getProperty("java.io.tmpdir")) : work, "cmd-",
                ".log");
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true)
                .redirectOutput(out.toFile()).directory(dir.toFile());
        apply(pb, env);
        Process p = pb.start();
        if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError(command + " did not finish within " + limit + ":\n" + Files.readString(out));
        }
        String text = Files.readString(out);
        Files.delete(out);
        return new Result(p.exitValue(), text);
    }

    static void skipUnless(boolean can, String why) {
        if (!can) {
            abort(why);
        }
    }
}
