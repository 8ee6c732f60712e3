package io.sluice.bolt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.sluice.support.BoltRecorder;
import io.sluice.support.BoltRecorder.Event;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.driver.Transaction;

/**
 * When Neo4j's drivers send TELEMETRY (Bolt 5.4+), recorded with {@link BoltRecorder} between each driver and
 * Neo4j's own server started with {@code server.bolt.telemetry.enabled=true} (it sends no {@code telemetry.enabled}
 * hint by default): the facts of docs/reference/driver-telemetry.md, which issue 29 (grouping managed write
 * transactions) depends on. One driver, one session: executeWrite x3, executableQuery x3, beginTransaction x2,
 * session.run x2; a second session: executeWrite, beginTransaction, executeWrite; then an executeWrite whose first
 * attempt fails with Neo4j's transient LockAcquisitionTimeout and is retried. Every statement carries a
 * {@code step} label, so the transcript shows which step sent what. The Java driver always runs; the Python and
 * JavaScript drivers run when OtherDriversTest has installed them into target/ (this test installs nothing).
 * Transcripts are kept in target/telemetry/.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
@org.junit.jupiter.api.Tag("soak") // facts about the drivers (for issue 29's design), not about sluice: ./sluice soak
class TelemetryWireTest {
    static final Path OUTPUT = Path.of("target", "telemetry");
    static final String LOCK_QUERY = "MATCH (n:TelemetryLock {id: 1}) SET n.v = 2, n.step = 'retry%d'";
    static Path dir;
    static Neo4jProcess neo4j;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-telemetry-");
        Files.createDirectories(OUTPUT);
        neo4j = Neo4jProcess.startHttp(dir.resolve("neo4j"), "neo4j/" + TestServer.PASSWORD,
                Map.of("server.bolt.telemetry.enabled", "true", "db.lock.acquisition.timeout", "1s"));
    }

    @AfterAll
    static void stop() {
        try {
            if (neo4j != null) {
                neo4j.close();
            }
        } finally {
            if (dir != null) {
                TestServer.deleteRecursively(dir);
            }
        }
    }

    @Test
    void javaDriver() throws Exception {
        List<Event> events;
        int attempts;
        try (BoltRecorder recorder = new BoltRecorder("127.0.0.1", neo4j.port)) {
            try (Driver setup = driver(neo4j.port)) {
                setup.executableQuery("MERGE (:TelemetryLock {id: 1})").execute();
            }
            try (Driver driver = driver(recorder.port())) {
                try (Session s = driver.session()) {
                    for (int i = 1; i <= 3; i++) {
                        String q = "CREATE (:T {step: 'ew" + i + "'})";
                        s.executeWrite(tx -> tx.run(q).consume());
                    }
                    for (int i = 1; i <= 3; i++) {
                        driver.executableQuery("CREATE (:T {step: 'eq" + i + "'})").execute();
                    }
                    for (int i = 1; i <= 2; i++) {
                        try (Transaction tx = s.beginTransaction()) {
                            tx.run("CREATE (:T {step: 'bt" + i + "'})").consume();
                            tx.commit();
                        }
                    }
                    for (int i = 1; i <= 2; i++) {
                        s.run("CREATE (:T {step: 'run" + i + "'})").consume();
                    }
                }
                try (Session s = driver.session()) {
                    s.executeWrite(tx -> tx.run("CREATE (:T {step: 's2ew1'})").consume());
                    try (Transaction tx = s.beginTransaction()) {
                        tx.run("CREATE (:T {step: 's2bt1'})").consume();
                        tx.commit();
                    }
                    s.executeWrite(tx -> tx.run("CREATE (:T {step: 's2ew2'})").consume());
                }
                attempts = retried(driver);
            }
            settle(recorder);
            events = recorder.events();
            Files.writeString(OUTPUT.resolve("java.txt"), recorder.transcript() + "\n");
        }
        String summary = summary(events);
        Files.writeString(OUTPUT.resolve("java-summary.txt"), summary);
        System.out.println(summary);
        assertThat(attempts).isEqualTo(2);
        assertThat(helloHints(events)).contains("telemetry.enabled: true");
        assertFacts(events);
    }

    /**
     * The steps, one connection here: TELEMETRY before every BEGIN and every auto-commit RUN, with the API of the
     * call (per transaction, not once per connection or session); none before the retried attempt of a
     * transaction function (after its first attempt's FAILURE and RESET, the second BEGIN comes bare).
     */
    static final String STEPS = "T0 BEGIN RUN(ew1) T0 BEGIN RUN(ew2) T0 BEGIN RUN(ew3)"
            + " T3 BEGIN RUN(eq1) T3 BEGIN RUN(eq2) T3 BEGIN RUN(eq3) T1 BEGIN RUN(bt1) T1 BEGIN RUN(bt2)"
            + " T2 RUN(run1) T2 RUN(run2) T0 BEGIN RUN(s2ew1) T1 BEGIN RUN(s2bt1) T0 BEGIN RUN(s2ew2)"
            + " T0 BEGIN RUN(retry1) BEGIN RUN(retry2)";

    static void assertFacts(List<Event> events) {
        String summary = summary(events);
        assertThat(summary).as("one connection throughout").startsWith("#1: ").doesNotContain("\n#2");
        assertThat(summary).contains("FAIL(LockAcquisitionTimeout)");
        List<String> client = List.of(summary.substring("#1: ".length()).trim().split(" ")).stream()
                .filter(t -> !t.equals("ok") && !t.equals("ign") && !t.startsWith("FAIL")).toList();
        // every TELEMETRY is pipelined: the BEGIN (or RUN) after it came in the same socket read
        for (int i = 0; i < client.size(); i++) {
            if (client.get(i).matches("\\+?T\\d")) {
                assertThat(client.get(i + 1)).as("the request after TELEMETRY, in the same read").startsWith("+");
            }
        }
        String steps = client.stream().map(t -> t.replace("+", ""))
                .filter(t -> t.matches("T\\d|BEGIN|RUN.*")).collect(Collectors.joining(" "));
        assertThat(steps).isEqualTo(STEPS);
    }

    /** An executeWrite whose first attempt meets a lock held by another driver's open transaction. */
    static int retried(Driver driver) {
        try (Driver other = driver(neo4j.port); Session holderSession = other.session()) {
            Transaction holder = holderSession.beginTransaction();
            holder.run("MATCH (n:TelemetryLock {id: 1}) SET n.v = 1").consume();
            AtomicInteger attempts = new AtomicInteger();
            try (Session s = driver.session()) {
                s.executeWrite(tx -> {
                    int attempt = attempts.incrementAndGet();
                    if (attempt > 1 && holder.isOpen()) {
                        holder.commit();
                    }
                    return tx.run(LOCK_QUERY.formatted(attempt)).consume();
                });
            }
            return attempts.get();
        }
    }

    static Driver driver(int port) {
        return GraphDatabase.driver("bolt://127.0.0.1:" + port, AuthTokens.basic("neo4j", TestServer.PASSWORD));
    }

    /** Waits until the recorder has seen nothing new for 200 ms: the last answers are decoded after forwarding. */
    static void settle(BoltRecorder recorder) throws InterruptedException {
        int seen = -1;
        while (seen != recorder.events().size()) {
            seen = recorder.events().size();
            Thread.sleep(200);
        }
    }

    /** The hints of the first HELLO SUCCESS. */
    static String helloHints(List<Event> events) {
        return events.stream().filter(e -> e.fromServer() && e.text().contains("hints: ")).map(Event::text)
                .findFirst().orElse("");
    }

    @Test
    void pythonDriver() throws Exception {
        Path packages = OtherDriversTest.PYTHON_PACKAGES.resolve("neo4j-" + OtherDriversTest.PYTHON_DRIVER
                + ".dist-info");
        assumeThat(Files.isDirectory(packages)).as("the Python driver is not installed (OtherDriversTest installs"
                + " it): skipping").isTrue();
        script("python", List.of("python3", OtherDriversTest.SCRIPTS.resolve("telemetry.py").toString()),
                Map.of("PYTHONPATH", OtherDriversTest.PYTHON_PACKAGES.toAbsolutePath().toString(),
                        "PYTHONNOUSERSITE", "1", "PYTHONDONTWRITEBYTECODE", "1"));
    }

    @Test
    void javascriptDriver() throws Exception {
        assumeThat(Files.isRegularFile(OtherDriversTest.JS_PACKAGES.resolve(
                "node_modules/neo4j-driver/package.json"))).as("the JavaScript driver is not installed"
                + " (OtherDriversTest installs it): skipping").isTrue();
        script("javascript", List.of("node", OtherDriversTest.SCRIPTS.resolve("telemetry.cjs").toString()),
                Map.of("NODE_PATH", OtherDriversTest.JS_PACKAGES.resolve("node_modules").toAbsolutePath()
                        .toString()));
    }

    /** Runs a driver's script through a recorder; returns the summary, kept with the transcript in target/. */
    static String script(String name, List<String> command, Map<String, String> env) throws Exception {
        try (BoltRecorder recorder = new BoltRecorder("127.0.0.1", neo4j.port)) {
            List<String> full = new ArrayList<>(command);
            full.addAll(List.of("bolt://127.0.0.1:" + recorder.port(), "bolt://127.0.0.1:" + neo4j.port, "neo4j",
                    TestServer.PASSWORD));
            Path log = OUTPUT.resolve(name + ".log");
            ProcessBuilder pb = new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().putAll(env);
            Process p = pb.start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            assertThat(p.exitValue()).as(Files.readString(log)).isZero();
            assertThat(Files.readString(log)).contains("attempts 2");
            settle(recorder);
            Files.writeString(OUTPUT.resolve(name + ".txt"), recorder.transcript() + "\n");
            String summary = summary(recorder.events());
            Files.writeString(OUTPUT.resolve(name + "-summary.txt"), summary);
            System.out.println(name + ":\n" + summary);
            assertThat(helloHints(recorder.events())).contains("telemetry.enabled: true");
            assertFacts(recorder.events());
            return summary;
        }
    }

    /**
     * Per connection, the client's requests in order as short tokens ({@code T0} = TELEMETRY api 0, RUN with its
     * step label), prefixed with {@code +} when it came in the same socket read as the client's previous request
     * (so certainly pipelined with it); the server's summaries as {@code ok}, {@code FAIL(code)} or {@code ign}
     * (records left out). Client and server tokens are in the order decoded, two threads: only a request after the
     * answer it waited for is certainly in order.
     */
    static String summary(List<Event> events) {
        Map<Integer, List<String>> byConnection = new TreeMap<>();
        Map<Integer, Integer> lastRead = new TreeMap<>();
        for (Event e : events) {
            String token = token(e);
            if (token != null) {
                if (!e.fromServer()) {
                    Integer previous = lastRead.put(e.connection(), e.read());
                    token = (previous != null && previous == e.read() ? "+" : "") + token;
                }
                byConnection.computeIfAbsent(e.connection(), c -> new ArrayList<>()).add(token);
            }
        }
        StringBuilder out = new StringBuilder();
        byConnection.forEach((c, tokens) -> out.append('#').append(c).append(": ").append(String.join(" ", tokens))
                .append('\n'));
        return out.toString();
    }

    static String token(Event e) {
        String t = e.text();
        if (e.fromServer()) {
            if (t.startsWith("SUCCESS")) {
                return "ok";
            }
            if (t.startsWith("FAILURE")) {
                Matcher m = Pattern.compile("code: \"([^\"]+)\"").matcher(t);
                return "FAIL(" + (m.find() ? m.group(1).replaceAll(".*\\.", "") : "?") + ")";
            }
            return t.startsWith("IGNORED") ? "ign" : null;
        }
        if (t.startsWith("handshake") || t.startsWith("manifest") || t.startsWith("closed")) {
            return null;
        }
        if (t.startsWith("TELEMETRY")) {
            return "T" + t.substring("TELEMETRY ".length()).replaceAll("\\D", "");
        }
        if (t.startsWith("RUN")) {
            Matcher m = Pattern.compile("step(?:: |\\s*=\\s*)'(\\w+)'").matcher(t);
            Matcher retry = Pattern.compile("'retry(\\d+)'").matcher(t);
            return m.find() ? "RUN(" + m.group(1) + ")" : retry.find() ? "RUN(retry" + retry.group(1) + ")" : "RUN";
        }
        return t.split(" ", 2)[0];
    }
}
