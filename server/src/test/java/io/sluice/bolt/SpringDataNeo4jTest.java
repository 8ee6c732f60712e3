package io.sluice.bolt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import io.sluice.vocab.Neo4jStatus;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Spring Data Neo4j, unchanged, as an application uses it (issue 35, item 5): a small Spring Boot application
 * ({@code src/test/resources/sdn-app}, its own Maven project with Boot and SDN from Maven Central, pinned), kept off
 * sluice's class path because it brings its own Neo4j Java driver, Jackson and Netty. The test copies it into
 * {@code target/sdn-app}, builds the Boot jar there once (again only when the project's files change) and runs it
 * as a separate {@code java -jar} process against Neo4j's own server and against sluice, with transactions
 * ungrouped and grouped. The application's entities are the usual ones (a {@code @Node} with an element id,
 * another with a UUID id and a unique name, {@code @RelationshipProperties} between them, {@code Neo4jRepository}s,
 * a {@code @Query} that writes); its 16 threads each run 10 {@code @Transactional} units (one unmanaged driver
 * transaction each: count a hire at one of four shared companies, which locks it, save a new person working there,
 * read the person back by the id SDN assigned), each thread's 10th a deliberate violation of the unique
 * constraint, then read each person back in a later transaction. A unit that fails with a transient error is run
 * again (Spring's {@code RetryTemplate}, SDN's {@code RetryExceptionPredicate}), as applications must on Neo4j:
 * there, this workload deadlocks, most units at least once (Neo4j reports a unit that holds the company's node lock
 * and waits for its relationship-group lock, which another holds while it waits for the node lock). The application
 * prints a JSON report.
 *
 * <p>Checked on every server: the deliberate violations, and nothing else, reached the application, each with
 * Neo4j's constraint code under Spring's {@code DataIntegrityViolationException}; every read-back found what was
 * saved; each company's counts were taken one at a time (1..n in its committed units); the graph holds exactly the
 * committed units (checked by the application through SDN and Cypher, and by the test on sluice's database).
 * Between the servers: the same errors and the same graph. On Neo4j the application retried deadlocks; through
 * sluice, which re-runs a deadlocked transaction itself (docs/API.md), it should not have to (issue 35, item 2):
 * at most a few, for transactions past sluice's bound of re-runs. The unit counts before it saves, so the deadlock
 * meets its first statement, which sluice can re-run; the other order (SDN's save first, which returns the new
 * node's element id, then the count) deadlocks as often, and sluice does not re-run a transaction that has seen an
 * element id of its own creation, so there the application retries as on Neo4j. Spring's transactions are
 * unmanaged, so sluice runs them as real transactions even when grouping; the group and deadlock metrics are
 * printed. Skipped, saying so, where {@code mvn} is not on the PATH.
 */
@Timeout(value = 1200, unit = TimeUnit.SECONDS) // the first build downloads Boot (at most BUILD_SECONDS)
class SpringDataNeo4jTest {
    static final Path SOURCE = Path.of("src", "test", "resources", "sdn-app");
    static final Path APP = Path.of("target", "sdn-app");
    static final Path JAR = APP.resolve("target").resolve("sdn-app.jar");
    /** What the jar was built from: a digest of the project's files. */
    static final Path STAMP = APP.resolve("built-from.sha256");
    static final Path OUTPUT = Path.of("target", "sdn-app-runs");
    static final long BUILD_SECONDS = 600;
    static final long RUN_SECONDS = 120;
    static final String VIOLATION = Neo4jStatus.Schema.CONSTRAINT_VALIDATION_FAILED;

    @Test
    void springDataNeo4jsTransactionsSeeTheSameThroughSluice() throws Exception {
        Optional<Path> mvn = onPath("mvn");
        assumeThat(mvn).as("mvn is not on the PATH: skipping the Spring Data Neo4j test").isPresent();
        Files.createDirectories(OUTPUT);
        build(mvn.orElseThrow());
        Path dir = Files.createTempDirectory("sluice-sdn-");
        try {
            JsonNode reference;
            try (Neo4jProcess neo4j = Neo4jProcess.start(dir.resolve("neo4j"), TestServer.freePort(),
                    "neo4j/" + TestServer.PASSWORD)) {
                reference = run("neo4j", "bolt://127.0.0.1:" + neo4j.port);
            }
            consistent("Neo4j", reference);
            assertThat(reference.at("/retried/" + Neo4jStatus.Transaction.DEADLOCK_DETECTED).asInt())
                    .as("the workload deadlocks on Neo4j's own server: %s", reference).isPositive();
            for (boolean group : List.of(false, true)) {
                String label = group ? "sluice-grouped" : "sluice";
                try (TestServer sluice = TestServer.start("transactions: {group: " + group + "}\n", true)) {
                    JsonNode seen = run(label, "bolt://" + sluice.bolt);
                    consistent(label, seen);
                    assertThat(seen.path("errors")).as("%s: errors, against Neo4j's", label)
                            .isEqualTo(reference.path("errors"));
                    assertThat(seen.path("exceptions")).as("%s: exceptions, against Neo4j's", label)
                            .isEqualTo(reference.path("exceptions"));
                    assertThat(seen.path("graph")).as("%s: the graph, against Neo4j's", label)
                            .isEqualTo(reference.path("graph"));
                    // issue 35, item 2: no deadlock reaches the application (bar a transaction that met more
                    // deadlocks than sluice's bound of re-runs, which the application retries)
                    assertThat(retries(seen)).as("%s: the application's own retries: %s", label, seen.path("retried"))
                            .isLessThanOrEqualTo(3);
                    long committed = seen.path("committed").asLong();
                    assertThat(sluice.count("MATCH (p:SdnPerson)-[:WORKS_AT]->(:SdnCompany) RETURN count(p)"))
                            .as("%s: people in sluice's database", label).isEqualTo(committed);
                    assertThat(sluice.count("MATCH (c:SdnCompany) RETURN sum(c.hires)"))
                            .as("%s: hires in sluice's database", label).isEqualTo(committed);
                    System.out.printf("%s: %d units committed in %d ms, %d retried (Neo4j: %d ms, %d retried); group"
                            + " members committed %.0f, groups aborted %.0f; deadlocks re-run %.0f, not re-run %.0f,"
                            + " answer differed %.0f%n", label, committed, seen.path("elapsed_ms").asLong(),
                            retries(seen), reference.path("elapsed_ms").asLong(), retries(reference),
                            OtherDriversTest.groupMembers(sluice),
                            sluice.metric("sluice_groups_total{outcome=\"aborted\"}"), deadlocks(sluice, "rerun"),
                            deadlocks(sluice, "not_rerun"), deadlocks(sluice, "answer_differed"));
                }
            }
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }

    /** What must hold of any server's run: only the deliberate violations failed, and the graph is the units'. */
    static void consistent(String server, JsonNode o) {
        String of = server + ": " + o;
        int units = o.path("units").asInt();
        int violations = o.at("/violations/attempted").asInt();
        long committed = o.path("committed").asLong();
        assertThat(units).as(of).isEqualTo(16 * 10);
        assertThat(violations).as("%s: deliberate violations", of).isEqualTo(16);
        assertThat(o.at("/violations/refused").asInt()).as("%s: violations refused", of).isEqualTo(violations);
        assertThat(o.path("error_samples").size()).as("%s: other errors", of).isZero();
        assertThat(o.path("errors").toString()).as("%s: errors by code", of)
                .isEqualTo("{\"" + VIOLATION + "\":" + violations + "}");
        assertThat(o.path("exceptions").toString()).as("%s: errors by exception", of)
                .isEqualTo("{\"org.springframework.dao.DataIntegrityViolationException\":" + violations + "}");
        assertThat(committed).as("%s: committed", of).isEqualTo(units - violations);
        assertThat(o.path("read_back_failures").size()).as("%s: read-backs that went wrong", of).isZero();
        assertThat(o.path("read_backs").asLong()).as("%s: read-backs", of).isEqualTo(committed);
        assertThat(o.path("found_by_ids").asLong()).as("%s: found by their ids", of).isEqualTo(committed);
        assertThat(o.path("hires_not_serial").size()).as("%s: counts two units took alike", of).isZero();
        JsonNode graph = o.path("graph");
        assertThat(graph.path("labels").toString()).as("%s: nodes by label", of)
                .isEqualTo("{\"SdnCompany\":4,\"SdnPerson\":" + committed + "}");
        assertThat(graph.path("works_at").asLong()).as("%s: relationships", of).isEqualTo(committed);
        assertThat(graph.path("hires").asLong()).as("%s: the companies' counters", of).isEqualTo(committed);
        assertThat(graph.path("people_without_company").asInt(-1)).as(of).isZero();
        assertThat(graph.path("companies").size()).as(of).isEqualTo(4);
        for (Map.Entry<String, JsonNode> c : graph.path("companies").properties()) {
            long mine = o.at("/committed_by_company/" + c.getKey()).asLong();
            assertThat(c.getValue().path("hires").asLong()).as("%s: %s's counter", of, c.getKey()).isEqualTo(mine);
            assertThat(c.getValue().path("employees").asLong()).as("%s: %s's people", of, c.getKey())
                    .isEqualTo(mine);
        }
    }

    /** How many times the application ran a unit again. */
    static int retries(JsonNode o) {
        int n = 0;
        for (JsonNode count : o.path("retried")) {
            n += count.asInt();
        }
        return n;
    }

    private static double deadlocks(TestServer s, String outcome) {
        return s.metric("sluice_transactions_deadlocks_total{outcome=\"" + outcome + "\"}");
    }

    /** Builds the application's jar in target/sdn-app unless it was built there from the same files. */
    static synchronized void build(Path mvn) throws Exception {
        String digest = digest(SOURCE);
        if (Files.exists(JAR) && Files.exists(STAMP) && Files.readString(STAMP).equals(digest)) {
            return;
        }
        TestServer.deleteRecursively(APP);
        try (Stream<Path> files = Files.walk(SOURCE)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Path to = APP.resolve(SOURCE.relativize(f).toString());
                Files.createDirectories(to.getParent());
                Files.copy(f, to);
            }
        }
        Path log = OUTPUT.resolve("build.log");
        long start = System.nanoTime();
        ProcessBuilder pb = new ProcessBuilder(mvn.toString(), "-B", "-q", "package", "-DskipTests")
                .directory(APP.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        boolean finished = p.waitFor(BUILD_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(finished && p.exitValue() == 0).as("building the SDN application (%s): %s", log,
                Files.readString(log)).isTrue();
        assertThat(JAR).exists();
        System.out.printf("built the SDN application in %d s%n", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime()
                - start));
        Files.writeString(STAMP, digest);
    }

    /** SHA-256 over the project's files, their paths and contents. */
    static String digest(Path root) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                sha.update(root.relativize(f).toString().getBytes(StandardCharsets.UTF_8));
                sha.update(Files.readAllBytes(f));
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** Runs the application against {@code uri}; its report, kept in target/sdn-app-runs beside its log. */
    static JsonNode run(String name, String uri) throws Exception {
        Path out = OUTPUT.resolve(name + ".json");
        Path log = OUTPUT.resolve(name + ".log");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-Xmx512m", "-jar", JAR.toString(),
                "--spring.neo4j.uri=" + uri, "--spring.neo4j.authentication.username=neo4j",
                "--spring.neo4j.authentication.password=" + TestServer.PASSWORD)
                .redirectOutput(out.toFile()).redirectError(log.toFile()).start();
        boolean finished = p.waitFor(RUN_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(finished).as("%s: the application finished within %d s; its log: %s", name, RUN_SECONDS, log)
                .isTrue();
        assertThat(p.exitValue()).as("%s: exit; its log:%n%s", name, Files.readString(log)).isZero();
        return OtherDriversTest.JSON.readTree(out.toFile());
    }

    /** An executable of that name on the PATH. */
    static Optional<Path> onPath(String tool) {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .filter(d -> !d.isEmpty()).map(d -> Path.of(d, tool)).filter(Files::isExecutable).findFirst();
    }
}
