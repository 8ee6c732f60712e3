package io.sluice.bolt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import io.sluice.vocab.Neo4jStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;

/**
 * The engines' own writes (issue 35, item 4): the Neo4j Spark connector, unchanged, run by PySpark in local mode
 * ({@code src/test/resources/spark/connector_job.py}), writes 2,000 {@code :Theme} and 24,000 {@code :Event} nodes,
 * then two {@code THEME} relationships per event into the shared themes, six partitions at once, each partition's
 * rows in explicit transactions of 1,000 (the shape of neo4j-spark-connector #183 and #373). Against Neo4j's own
 * server the relationships deadlock (the server's {@code DeadlockDetected} answers are counted, whether the
 * connector's three retries absorb them or a task fails the job); against Neo4j with {@code repartition(1)}, the
 * workaround Neo4j's documentation gives, the job succeeds; through sluice, default and ungrouped, the same
 * six-partition job must succeed with no failed task, no deadlock and no retry of the connector's, every row written
 * once (counts, no duplicate pair, a checksum of every pair), and the server's answers no other than a serial
 * execution's (the codes the one-partition run saw). The elapsed times are printed, not asserted (issue 35 asks that
 * sluice at six partitions be at least twice as fast as Neo4j with one).
 *
 * <p>PySpark ({@link #PYSPARK}, Scala 2.12) is installed from PyPI into target/, the connector's jar
 * ({@link #CONNECTOR}: the newest {@code _2.12} build for Spark 3 that Maven Central serves, its Java driver 4.4, so
 * Bolt 4.4) copied from Maven Central by Maven into target/; both are kept between runs. Spark 3.5 needs Java 17 (or
 * 11), which the job is given explicitly ({@code SPARK_JAVA_HOME}, else the first under /usr/lib/jvm). Skipped,
 * saying so, without python3 and pip, Maven, or that Java. Four Spark jobs of 30 to 90 s each (the test took 3.5 to 8
 * minutes here, on two cores shared with other work): a soak test ({@code ./sluice soak}). The constraints on the
 * keys are created beforehand, as a user would, through the same Bolt port: the connector's
 * {@code schema.optimization.type} in this build cannot read Neo4j 2025's version.
 */
@Tag("soak")
@Timeout(value = 1800, unit = TimeUnit.SECONDS)
class SparkConnectorTest {
    /** PyPI's {@code pyspark}: the newest 3.5 release when this test was written. */
    static final String PYSPARK = "3.5.9";
    static final String CONNECTOR = "org.neo4j:neo4j-connector-apache-spark_2.12:5.0.3_for_spark_3";
    static final Path JOB = Path.of("src", "test", "resources", "spark", "connector_job.py");
    static final Path PACKAGES = Path.of("target", "python-pyspark");
    static final Path JARS = Path.of("target", "spark-connector");
    static final Path OUTPUT = Path.of("target", "spark");
    static final long INSTALL_SECONDS = 900;
    static final long JOB_SECONDS = 300;
    static final String DEADLOCK = Neo4jStatus.Transaction.DEADLOCK_DETECTED;
    /** The job's read back, with its numbers as parameters. */
    static final String GRAPH = """
            CALL () { MATCH (e:Event) RETURN count(e) AS events }
            CALL () { MATCH (t:Theme) RETURN count(t) AS themes }
            CALL () { MATCH (:Event)-[r:THEME]->(:Theme) RETURN count(r) AS relationships,
                        coalesce(sum(toInteger(r.weight)), 0) AS weights }
            CALL () { MATCH (a:Event)-[:THEME]->(b:Theme) WITH a, b, count(*) AS n WHERE n > 1
                      RETURN count(*) AS duplicated }
            CALL () { MATCH (a:Event)-[:THEME]->(b:Theme) RETURN coalesce(sum(a.id * $t + b.id), 0) AS checksum }
            CALL () { MATCH (a:Event) WHERE COUNT { (a)-[:THEME]->(:Theme) } <> $k RETURN count(a) AS incomplete }
            RETURN events, themes, relationships, weights, duplicated, checksum, incomplete""";
    static final List<String> CONSTRAINTS = List.of(
            "CREATE CONSTRAINT theme_id IF NOT EXISTS FOR (t:Theme) REQUIRE t.id IS UNIQUE",
            "CREATE CONSTRAINT event_id IF NOT EXISTS FOR (e:Event) REQUIRE e.id IS UNIQUE");

    @Test
    void relationshipsIntoSharedNodesFromSixPartitions() throws Exception {
        assumeThat(OtherDriversTest.python()).as("python3 or its pip is not installed: skipping").isTrue();
        Path java = sparkJava();
        assumeThat(java).as("no Java 17 or 11 for Spark 3.5 (SPARK_JAVA_HOME, /usr/lib/jvm): skipping").isNotNull();
        assumeThat(succeeds("mvn", "--version")).as("Maven is not installed: skipping").isTrue();
        Files.createDirectories(OUTPUT);
        Path jar = install();
        Map<String, ObjectNode> runs = new LinkedHashMap<>();
        Path dir = Files.createTempDirectory("sluice-spark-");
        try {
            try (Neo4jProcess neo4j = Neo4jProcess.start(dir.resolve("neo4j"), TestServer.freePort(),
                    "neo4j/" + TestServer.PASSWORD)) {
                String address = "127.0.0.1:" + neo4j.port;
                runs.put("neo4j", run("neo4j", java, jar, address, 6));
                clear(address);
                runs.put("neo4j-1", run("neo4j-1", java, jar, address, 1));
            }
            for (String yaml : List.of("", "transactions: {group: false}\n")) { // the default; every one a real one
                String label = yaml.isEmpty() ? "sluice" : "sluice-ungrouped";
                try (TestServer sluice = TestServer.start(yaml, true)) {
                    ObjectNode seen = run(label, java, jar, sluice.bolt.toString(), 6);
                    runs.put(label, seen);
                    ObjectNode metrics = seen.putObject("sluice");
                    for (String outcome : List.of("rerun", "answer_differed", "not_rerun")) { // its deadlocks
                        metrics.put(outcome, (long) sluice.metric(
                                "sluice_transactions_deadlocks_total{outcome=\"" + outcome + "\"}"));
                    }
                    metrics.put("group_members", (long) OtherDriversTest.groupMembers(sluice));
                    assertThat(sluice.count("MATCH (:Event)-[r:THEME]->(:Theme) RETURN count(r)"))
                            .as("%s: relationships in the database itself", label)
                            .isEqualTo(seen.at("/expected/relationships").asLong());
                }
            }
        } finally {
            TestServer.deleteRecursively(dir);
            runs.forEach((name, o) -> System.out.printf("spark %s: writes %.1f s, relationships %.1f s (%.0f/s),"
                    + " failed tasks %d, connector retries %d, deadlocks %d, failures %s, graph %s, read back %s,"
                    + " sluice %s%n",
                    name, o.at("/seconds/writes").asDouble(), o.at("/seconds/relationships").asDouble(),
                    o.path("relationships_per_second").asDouble(), o.path("failed_tasks").asInt(),
                    o.path("retries").asInt(), deadlocks(o), o.path("failures"), o.path("graph_by_driver"),
                    o.path("graph"), o.path("sluice")));
        }
        check(runs);
    }

    /** What each run must show; the reference's facts first, so that a broken job fails there, not on sluice. */
    static void check(Map<String, ObjectNode> runs) {
        System.out.printf("spark: relationships through sluice at 6 partitions %.2fx Neo4j with repartition(1),"
                + " ungrouped %.2fx (writes %.2fx, %.2fx)%n", ratio(runs, "sluice", "/seconds/relationships"),
                ratio(runs, "sluice-ungrouped", "/seconds/relationships"), ratio(runs, "sluice", "/seconds/writes"),
                ratio(runs, "sluice-ungrouped", "/seconds/writes"));
        JsonNode six = runs.get("neo4j");
        assertThat(deadlocks(six)).as("six partitions deadlock on Neo4j's own server: %s", six).isPositive();
        JsonNode one = runs.get("neo4j-1");
        succeeded("Neo4j, relationships from one partition", one);
        assertThat(deadlocks(one)).as("Neo4j with one partition: %s", one).isZero();
        readBack("Neo4j, relationships from one partition", one);
        Set<String> serial = codes(one.path("failures"));
        for (String label : List.of("sluice", "sluice-ungrouped")) {
            JsonNode seen = runs.get(label);
            succeeded(label, seen);
            // issue 35, item 2. Seen once in 4 runs (8 jobs through sluice; default config): 182 deadlocks re-run
            // unseen and 1 answered, most likely a batch past the 20 re-runs txn.Rerunnable allows a transaction
            // (its one statement has no earlier answer to differ from); the connector retried it and the job
            // succeeded. Left asserted: the issue asks for none
            assertThat(deadlocks(seen)).as("%s: deadlocks the connector saw: %s", label, seen).isZero();
            assertThat(seen.path("retries").asInt(-1)).as("%s: the connector's retries: %s", label, seen).isZero();
            assertThat(codes(seen.path("failures"))).as("%s: the server's errors to the writes, beside a serial"
                    + " execution's (%s): %s", label, serial, seen).isSubsetOf(serial);
        }
        for (String label : List.of("sluice", "sluice-ungrouped")) {
            // the connector reads back with a `query`, whose schema it infers from `EXPLAIN WITH $scriptResult AS
            // scriptResult ...` sent with no parameters: Neo4j plans it, and so does sluice since this test found
            // it answering ParameterMissing (an empty schema, so no rows, for the connector)
            readBack(label, runs.get(label));
        }
    }

    /** Every phase written, no task failed, and the graph (read by the Java driver) exactly what the rows say. */
    static void succeeded(String label, JsonNode o) {
        for (Map.Entry<String, JsonNode> phase : o.path("phases").properties()) {
            assertThat(phase.getValue().path("ok").asBoolean()).as("%s: %s written: %s", label, phase.getKey(), o)
                    .isTrue();
        }
        assertThat(o.path("phases").size()).as(label).isEqualTo(3);
        assertThat(o.path("failed_tasks").asInt(-1)).as("%s: failed tasks: %s", label, o).isZero();
        assertThat(longs(o.path("graph_by_driver"))).as("%s: the graph (events, themes, relationships, weights,"
                + " duplicated pairs, checksum of the pairs, events without all their themes)", label)
                .isEqualTo(longs(o.path("expected")));
    }

    /** The job's own read of the graph, through the connector, is what the driver read, with no error. */
    static void readBack(String label, JsonNode o) {
        assertThat(codes(o.path("read_failures"))).as("%s: the server's errors to the connector's read: %s", label, o)
                .isEmpty();
        assertThat(longs(o.path("graph"))).as("%s: the graph read back through the connector", label)
                .isEqualTo(longs(o.path("graph_by_driver")));
    }

    static int deadlocks(JsonNode o) {
        return o.at("/failures").path(DEADLOCK).asInt();
    }

    /** The Neo4j codes of the FAILURE messages counted in {@code failures}. */
    static Set<String> codes(JsonNode failures) {
        Set<String> codes = new TreeSet<>();
        failures.properties().forEach(e -> codes.add(e.getKey()));
        return codes;
    }

    /** A document of counts, as numbers whatever their JSON width (so that 2000 as int equals 2000 as long). */
    static Map<String, Long> longs(JsonNode counts) {
        Map<String, Long> m = new TreeMap<>();
        counts.properties().forEach(e -> m.put(e.getKey(), e.getValue().isNumber() ? e.getValue().asLong() : null));
        return m;
    }

    static double ratio(Map<String, ObjectNode> runs, String label, String pointer) {
        return runs.get("neo4j-1").at(pointer).asDouble() / runs.get(label).at(pointer).asDouble();
    }

    /**
     * The graph as the Java driver reads it through the same Bolt port: what the job's read back counts, for
     * {@code themes} themes and {@code perEvent} relationships per event.
     */
    static Map<String, Object> graph(String address, long themes, long perEvent) {
        try (Driver d = driver(address); Session s = d.session()) {
            return s.run(GRAPH, Map.of("t", themes, "k", perEvent)).single().asMap();
        }
    }

    /** The keys' constraints, created as a user would before the job, through the same Bolt port. */
    static void prepare(String address) {
        try (Driver d = driver(address); Session s = d.session()) {
            CONSTRAINTS.forEach(c -> s.run(c).consume());
        }
    }

    /** Neo4j's graph emptied between its two runs (its constraints kept). */
    static void clear(String address) {
        try (Driver d = driver(address); Session s = d.session()) {
            s.run("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS").consume();
        }
    }

    static Driver driver(String address) {
        return GraphDatabase.driver("bolt://" + address, AuthTokens.basic("neo4j", TestServer.PASSWORD));
    }

    /**
     * Creates the constraints, runs the job against {@code address}, relationships from {@code partitions}
     * partitions, then reads the graph with the Java driver ({@code graph_by_driver}); the job's JSON document.
     */
    static ObjectNode run(String name, Path java, Path jar, String address, int partitions) throws Exception {
        prepare(address);
        Path work = OUTPUT.resolve(name).toAbsolutePath();
        TestServer.deleteRecursively(work);
        Files.createDirectories(work);
        Path out = OUTPUT.resolve(name + ".json");
        Path log = OUTPUT.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder("python3", JOB.toString(), "--jar", jar.toAbsolutePath().toString(),
                "--work", work.toString(), "--relationship-partitions", Integer.toString(partitions), address, "neo4j",
                TestServer.PASSWORD).redirectOutput(out.toFile()).redirectError(log.toFile());
        Map<String, String> env = pb.environment();
        env.remove("SPARK_HOME");
        env.remove("PYSPARK_SUBMIT_ARGS");
        env.put("JAVA_HOME", java.toString());
        env.put("PATH", java.resolve("bin") + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("PYTHONPATH", PACKAGES.toAbsolutePath().toString());
        env.put("PYTHONNOUSERSITE", "1");
        env.put("PYTHONDONTWRITEBYTECODE", "1");
        Process p = pb.start();
        boolean finished = p.waitFor(JOB_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(finished).as("%s finished within %d s; its log:%n%s", name, JOB_SECONDS, tail(log)).isTrue();
        assertThat(p.exitValue()).as("%s: exit; its log:%n%s", name, tail(log)).isZero();
        List<String> lines = Files.readAllLines(out);
        String last = lines.reversed().stream().filter(l -> l.startsWith("{")).findFirst().orElse("");
        assertThat(last).as("%s printed its JSON document; its log:%n%s", name, tail(log)).isNotEmpty();
        ObjectNode o = (ObjectNode) OtherDriversTest.JSON.readTree(last);
        long events = Math.max(1, o.at("/expected/events").asLong());
        o.set("graph_by_driver", OtherDriversTest.JSON.valueToTree(graph(address, o.at("/expected/themes").asLong(),
                o.at("/expected/relationships").asLong() / events)));
        return o;
    }

    /** Installs the pinned PySpark into target/ and copies the connector's jar there unless they are; the jar. */
    static synchronized Path install() throws Exception {
        if (!Files.isDirectory(PACKAGES.resolve("pyspark-" + PYSPARK + ".dist-info"))) {
            TestServer.deleteRecursively(PACKAGES);
            install(List.of("python3", "-m", "pip", "install", "--disable-pip-version-check", "--no-input",
                    "--quiet", "--target", PACKAGES.toAbsolutePath().toString(), "pyspark==" + PYSPARK));
        }
        String[] gav = CONNECTOR.split(":");
        Path jar = JARS.resolve(gav[1] + "-" + gav[2] + ".jar");
        if (!Files.isRegularFile(jar)) {
            install(List.of("mvn", "-B", "-q", "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy",
                    "-Dartifact=" + CONNECTOR, "-DoutputDirectory=" + JARS.toAbsolutePath()));
        }
        return jar;
    }

    /** Runs an installer, bounded, from target/spark (no project there for Maven); its output in a log beside. */
    static void install(List<String> command) throws Exception {
        Path log = OUTPUT.resolve("install-" + command.getFirst() + ".log");
        Process p = new ProcessBuilder(command).directory(OUTPUT.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        boolean finished = p.waitFor(INSTALL_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(finished && p.exitValue() == 0).as("%s: %s", command, Files.readString(log)).isTrue();
    }

    /** A Java home Spark 3.5 runs on: SPARK_JAVA_HOME, else the first 17 (then 11) under /usr/lib/jvm; or null. */
    static Path sparkJava() throws IOException {
        String given = System.getenv("SPARK_JAVA_HOME");
        if (given != null && Files.isExecutable(Path.of(given, "bin", "java"))) {
            return Path.of(given);
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return null;
        }
        for (String version : List.of("17", "11")) {
            try (Stream<Path> homes = Files.list(jvms)) {
                Path found = homes.sorted().filter(h -> Files.isExecutable(h.resolve("bin/java")))
                        .filter(h -> release(h).contains("JAVA_VERSION=\"" + version + ".")).findFirst().orElse(null);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    private static String release(Path home) {
        try {
            return Files.readString(home.resolve("release"));
        } catch (IOException e) {
            return "";
        }
    }

    private static boolean succeeds(String... command) {
        return OtherDriversTest.succeeds(List.of(command));
    }

    /** The last 8,000 characters of a log. */
    private static String tail(Path log) throws IOException {
        String s = Files.readString(log);
        return s.length() > 8000 ? s.substring(s.length() - 8000) : s;
    }
}
