package io.sluice.bolt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.sluice.support.BoltWire;
import io.sluice.support.Chromium;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import io.sluice.support.WebSocketBolt;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Neo4j's official Python and JavaScript drivers, unchanged, against Neo4j's own server and against sluice's Bolt
 * address. Each driver, pinned, is installed from its registry into target/ once and kept there between runs; a
 * script of observations ({@code src/test/resources/bolt-drivers}: bolt:// and neo4j://, right and wrong
 * credentials, session.run, executeWrite, executeQuery with its bookmark manager, every value type, nodes,
 * relationships and paths, errors, a large result with a small fetch size, results abandoned half read, 32
 * sessions at once) prints one JSON document per server. The two documents must be equal once the fields that
 * legitimately differ are dropped ({@link #DROPPED}), and a list of facts must hold in both, so that two equally
 * broken runs cannot pass. Both outputs are kept in target/bolt-drivers/ for a diff by hand, each beside a log
 * with the driver's trace of every Bolt message it sent and received ({@code BOLT_TRACE}). Skipped, saying so,
 * where python3 with pip, or node with npm, is not installed.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class OtherDriversTest {
    /** PyPI's {@code neo4j}: the newest release when this test was written. */
    static final String PYTHON_DRIVER = "6.4.1";
    /** npm's {@code neo4j-driver}: the newest release when this test was written. */
    static final String JS_DRIVER = "6.3.0";
    static final Path SCRIPTS = Path.of("src", "test", "resources", "bolt-drivers");
    static final Path PYTHON_PACKAGES = Path.of("target", "python-neo4j");
    static final Path JS_PACKAGES = Path.of("target", "js-neo4j");
    static final Path OUTPUT = Path.of("target", "bolt-drivers");
    static final long INSTALL_SECONDS = 240;
    static final long SCRIPT_SECONDS = 60;
    /**
     * Fields that legitimately differ from server to server: timings, the address a driver was sent to, the
     * Bolt version agreed (what depends on it, such as the GQL fields of errors, is still compared), and
     * wording (an error's message, and its GQL description, which repeats the message; codes, GQL statuses,
     * classifications and diagnostic records are compared).
     */
    static final Set<String> DROPPED = Set.of("available_after", "consumed_after", "address", "protocol", "message",
            "description");
    static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What sluice does not send, each listed in docs/API.md's Bolt compatibility table: asserted here as the only
     * differences left. A FAILURE's GQL {@code cause} chain and the error's {@code _position}: sluice's errors carry
     * Neo4j's code and message only.
     */
    static final List<String> KNOWN_GAPS = List.of("/cause", "/_position");

    static Path dir;
    static Neo4jProcess neo4j;
    static TestServer sluice;
    /** sluice with the drivers' managed transactions grouped (issue 29): the same script, the same answers. */
    static TestServer grouped;

    /** Starts both servers for the first test that runs (none when both tests skip). */
    static synchronized void servers() throws Exception {
        if (dir == null) {
            dir = Files.createTempDirectory("sluice-drivers-");
            Files.createDirectories(OUTPUT);
        }
        if (neo4j == null) {
            neo4j = Neo4jProcess.startHttp(dir.resolve("neo4j"), "neo4j/" + TestServer.PASSWORD, Map.of());
        }
        if (sluice == null) {
            // the scripts log in wrongly on purpose; Neo4j's own lockout is per user, sluice's also per address
            sluice = TestServer.start("security: {max_failed_attempts: 1000}\n", true);
        }
        if (grouped == null) {
            grouped = TestServer.start("security: {max_failed_attempts: 1000}\ntransactions: {group: true}\n", true);
        }
    }

    @AfterAll
    static void stop() {
        try {
            if (neo4j != null) {
                neo4j.close();
            }
        } finally {
            if (sluice != null) {
                sluice.close();
            }
            if (grouped != null) {
                grouped.close();
            }
            if (dir != null) {
                TestServer.deleteRecursively(dir);
            }
        }
    }

    @Test
    void pythonDriver() throws Exception {
        assumeThat(python()).as("python3 or its pip is not installed: skipping the Python driver test").isTrue();
        servers();
        installPython();
        differential("python", "Py", List.of("python3", SCRIPTS.resolve("observe.py").toString()),
                Map.of("PYTHONPATH", PYTHON_PACKAGES.toAbsolutePath().toString(), "PYTHONNOUSERSITE", "1",
                        "PYTHONDONTWRITEBYTECODE", "1", "BOLT_TRACE", "1"));
    }

    /** Installs the pinned Python driver into target/ unless it is there. */
    static synchronized void installPython() throws Exception {
        if (!Files.isDirectory(PYTHON_PACKAGES.resolve("neo4j-" + PYTHON_DRIVER + ".dist-info"))) {
            TestServer.deleteRecursively(PYTHON_PACKAGES);
            run(List.of("python3", "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--quiet",
                    "--target", PYTHON_PACKAGES.toString(), "neo4j==" + PYTHON_DRIVER), Map.of(), INSTALL_SECONDS);
        }
    }

    @Test
    void javascriptDriver() throws Exception {
        assumeThat(node()).as("node or npm is not installed: skipping the JavaScript driver test").isTrue();
        servers();
        installJavascriptDriver();
        differential("javascript", "Js", List.of("node", SCRIPTS.resolve("observe.cjs").toString()),
                Map.of("NODE_PATH", JS_PACKAGES.resolve("node_modules").toAbsolutePath().toString(),
                        "BOLT_TRACE", "1"));
    }

    /**
     * The same JavaScript script as {@link #javascriptDriver}, run by the driver's browser build in headless
     * Chromium: the transport Neo4j Browser, Bloom and NeoDash use, Bolt over a WebSocket to the Bolt port (the
     * browser build has no other). The same facts and the same answers as Neo4j's own server, which selects the
     * WebSocket transport on its Bolt port as sluice must.
     */
    @Test
    void javascriptDriverInTheBrowser() throws Exception {
        assumeThat(node()).as("node or npm is not installed: skipping the browser driver test").isTrue();
        Optional<Path> chromium = Chromium.find();
        assumeThat(chromium).as("no Chromium (Debian's chromium package): skipping the browser driver test")
                .isPresent();
        servers();
        installJavascriptDriver();
        Path page = OUTPUT.resolve("browser").toAbsolutePath();
        Files.createDirectories(page);
        Files.copy(JS_PACKAGES.resolve("node_modules/neo4j-driver/lib/browser/neo4j-web.min.js"),
                page.resolve("neo4j-web.min.js"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(SCRIPTS.resolve("browser-shim.js"), page.resolve("browser-shim.js"),
                StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(page.resolve("index.html"), "<!doctype html><meta charset=utf-8><title>observe</title>"
                + "<script src=neo4j-web.min.js></script><script src=browser-shim.js></script>");
        String script = Files.readString(SCRIPTS.resolve("observe.cjs"));
        try (Chromium browser = Chromium.launch(chromium.get(), 800, 600)) {
            browser.navigate(page.resolve("index.html").toUri().toString());
            differential("browser", "Js", (label, address) -> {
                browser.evaluate("window.observed = null; observeInBrowser(" + JSON.writeValueAsString(script) + ", "
                        + JSON.writeValueAsString(address) + ", 'neo4j', " + JSON.writeValueAsString(TestServer.PASSWORD)
                        + ").then(r => { window.observed = r }); true");
                JsonNode r;
                try {
                    r = browser.await(label + " observed in the browser", "window.observed",
                            Duration.ofSeconds(SCRIPT_SECONDS));
                } catch (AssertionError e) {
                    Files.writeString(OUTPUT.resolve(label + ".log"), browser.evaluate("window.observeLog || ''")
                            .asText());
                    throw new AssertionError(e.getMessage() + "; the driver's log: " + OUTPUT.resolve(label + ".log"),
                            e);
                }
                Files.writeString(OUTPUT.resolve(label + ".json"), r.path("out").asText());
                Files.writeString(OUTPUT.resolve(label + ".log"), r.path("err").asText());
                assertThat(r.path("code").asInt(-1)).as("%s: exit; its log:%n%s", label, r.path("err").asText())
                        .isZero();
                return JSON.readTree(r.path("out").asText());
            });
        }
    }

    /**
     * A plain HTTP {@code GET} to the Bolt port (no WebSocket upgrade) is answered as Neo4j's own Bolt port answers
     * it: the same status, headers and body, then the connection is closed.
     */
    @Test
    void aPlainHttpGetOnTheBoltPortIsAnsweredAsNeo4jAnswersIt() throws Exception {
        servers();
        String reference = httpGet(neo4j.port);
        assertThat(reference).as("Neo4j's answer").startsWith("HTTP/1.1 200 OK");
        assertThat(httpGet(sluice.bolt.port())).isEqualTo(reference);
    }

    /** The answer to a plain GET, its Date header's value blanked; fails unless the server closes after it. */
    static String httpGet(int port) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("GET / HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nAccept: application/json"
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII); // to its close
            return answer.replaceAll("(?im)^(date: ).*$", "$1-");
        }
    }

    /**
     * Bolt over a WebSocket at the protocol's level: the same handshake, the same refusal of a wrong password
     * and of a statement before LOGON, and the same write and read answers as Neo4j's own server; and sluice
     * counts its messages as Bolt's.
     */
    @Test
    void boltOverWebSocketAnswersAsNeo4jDoes() throws Exception {
        servers();
        List<String> reference = overWebSocket(neo4j.port, "Neo4j");
        assertThat(reference).as("Neo4j's answers").hasSize(9);
        String hellos = "sluice_bolt_messages_total{message=\"HELLO\"}";
        double before = sluice.metric(hellos);
        assertThat(overWebSocket(sluice.bolt.port(), "sluice")).isEqualTo(reference);
        assertThat(sluice.metric(hellos) - before).as("HELLOs counted as Bolt's").isEqualTo(3);
    }

    /** The messages a short conversation over ws:// got, each as its tag and the fields a server must agree on. */
    static List<String> overWebSocket(int port, String server) throws IOException {
        URI uri = URI.create("ws://127.0.0.1:" + port + "/");
        List<String> seen = new ArrayList<>();
        try (BoltWire w = WebSocketBolt.connect(uri, null)) {
            seen.add(HexFormat.of().formatHex(w.handshake(BoltWire.version(5, 4, 4))));
            // a user of its own: failed logins lock a user out for a while (three within 5 s, on both servers),
            // and the scripts log in wrongly as neo4j
            w.send(BoltWire.hello(Map.of()), BoltWire.logon("nobody-ws", TestServer.PASSWORD));
            seen.add(answer(w.receive()));
            seen.add(answer(w.receive()));
        }
        try (BoltWire w = WebSocketBolt.connect(uri, null)) {
            w.handshake(BoltWire.version(5, 4, 4));
            w.send(BoltWire.hello(Map.of()), BoltWire.run("RETURN 1 AS one"));
            seen.add(answer(w.receive()));
            seen.add(answer(w.receive()));
        }
        try (BoltWire w = WebSocketBolt.connect(uri, null)) {
            w.handshake(BoltWire.version(5, 4, 4));
            w.send(BoltWire.hello(Map.of()), BoltWire.logon("neo4j", TestServer.PASSWORD),
                    BoltWire.run("CREATE (n:WsItem {v: $v}) RETURN n.v AS v", Map.of("v", 7), Map.of()),
                    BoltWire.pullAll());
            w.receive(); // HELLO's SUCCESS: server agent and connection id differ
            seen.add(answer(w.receive()));
            seen.add(answer(w.receive())); // RUN: its fields
            seen.add(answer(w.receive())); // the record
            w.send(BoltWire.run("MATCH (n:WsItem) DETACH DELETE n RETURN count(*) AS c"), BoltWire.pullAll());
            seen.add(answer(w.receive()) + " " + answer(w.receive()));
        }
        System.out.printf("over a WebSocket to %s: %s%n", server, seen);
        return seen;
    }

    /** A message's tag with what servers must agree on: a FAILURE's code, a RUN's fields, a record. */
    static String answer(PackStream.Struct m) {
        Map<String, Object> meta = m.fields().isEmpty() || !(m.fields().getFirst() instanceof Map<?, ?>) ? Map.of()
                : BoltWire.meta(m);
        return switch (m.tag()) {
            case BoltWire.FAILURE -> "FAILURE " + meta.get("code");
            case BoltWire.RECORD -> "RECORD " + m.fields();
            case BoltWire.SUCCESS -> "SUCCESS" + (meta.containsKey("fields") ? " " + meta.get("fields") : "");
            default -> String.format("%02X", m.tag());
        };
    }

    /** npm's {@code neo4j-driver} at {@link #JS_DRIVER} in {@link #JS_PACKAGES}, unless it is there already. */
    static void installJavascriptDriver() throws Exception {
        Path installed = JS_PACKAGES.resolve("node_modules/neo4j-driver/package.json");
        if (!Files.exists(installed) || !JS_DRIVER.equals(JSON.readTree(installed.toFile()).path("version").asText())) {
            TestServer.deleteRecursively(JS_PACKAGES);
            Files.createDirectories(JS_PACKAGES);
            run(List.of("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix",
                    JS_PACKAGES.toString(), "neo4j-driver@" + JS_DRIVER), Map.of(), INSTALL_SECONDS);
        }
    }

    /** Runs the script against both servers, checks the facts on each, then compares them. */
    static void differential(String name, String prefix, List<String> script, Map<String, String> env)
            throws Exception {
        differential(name, prefix, (label, address) -> observe(label, script, env, address));
    }

    /** What a script observed of the server at an address ({@code host:port}), saved as {@code label}. */
    @FunctionalInterface
    interface Observer {
        JsonNode observe(String label, String address) throws Exception;
    }

    /** Runs {@code observer} against both servers, checks the facts on each, then compares them. */
    static void differential(String name, String prefix, Observer observer) throws Exception {
        JsonNode reference = observer.observe(name + "-reference", "127.0.0.1:" + neo4j.port);
        System.out.printf("%s: Bolt %s with Neo4j%n", reference.path("driver").asText(),
                reference.at("/bolt/connect/protocol").asText());
        // facts first on the reference: when they fail there, the script is wrong, not sluice
        facts("Neo4j's own server", reference, prefix);
        double before = groupMembers(grouped);
        for (var target : List.of(Map.entry("sluice", sluice), Map.entry("sluice-grouped", grouped))) {
            String label = name + "-" + target.getKey();
            JsonNode gateway = observer.observe(label, target.getValue().bolt.toString());
            List<String> differences = new ArrayList<>();
            diff("", normal(reference), normal(gateway), differences);
            differences.removeIf(d -> KNOWN_GAPS.stream().anyMatch(gap -> d.substring(0, d.indexOf(':'))
                    .contains(gap)));
            assertThat(differences).as("%s: what the driver saw of %s but not of Neo4j (%s, %s)", name,
                    target.getKey(), OUTPUT.resolve(name + "-reference.json"), OUTPUT.resolve(label + ".json"))
                    .isEmpty();
            facts("sluice", gateway, prefix);
        }
        // the grouped server's managed transactions really went through groups (the script's executeWrite and
        // executeQuery calls, the 32 sessions at once among them)
        assertThat(groupMembers(grouped) - before).as("%s: managed transactions grouped", name).isPositive();
    }

    /** Members of committed groups so far, from the server's metrics. */
    static double groupMembers(TestServer s) {
        return s.metric("sluice_group_members_sum{outcome=\"committed\"}");
    }

    /** The facts either script must observe of a working server. */
    static void facts(String server, JsonNode o, String prefix) {
        String of = o.path("driver").asText() + " against " + server + ": ";
        assertThat(failures("", o)).as(of + "sections that failed").isEmpty();
        assertThat(o.at("/before/nodes").asInt(-1)).as(of + "nodes left by an earlier run").isZero();
        assertThat(o.at("/after/left").asInt(-1)).as(of + "nodes left after the run").isZero();
        for (String scheme : List.of("bolt", "neo4j")) {
            JsonNode s = o.path(scheme);
            String at = of + scheme + ":// ";
            assertThat(s.at("/connect/agent").asText()).as(at + "agent").startsWith("Neo4j/");
            assertThat(s.at("/connect/authenticated").asBoolean()).as(at + "authenticated").isTrue();
            for (String wrong : List.of("wrong_password", "unknown_user")) {
                assertThat(s.at("/" + wrong + "/connected").asBoolean(true)).as(at + wrong).isFalse();
                assertThat(s.at("/" + wrong + "/error/code").asText()).as(at + wrong)
                        .isEqualTo("Neo.ClientError.Security.Unauthorized");
            }
            JsonNode counters = s.at("/auto_commit/summary/counters");
            assertThat(counters.path("nodes_created").asInt()).as(at + "session.run: nodes created").isEqualTo(1);
            assertThat(counters.path("properties_set").asInt()).as(at + "session.run: properties set").isEqualTo(2);
            assertThat(s.at("/auto_commit/summary/query_type").asText()).as(at + "query type").isEqualTo("rw");
            assertThat(s.at("/auto_commit/bookmarks").asInt()).as(at + "bookmarks after session.run").isEqualTo(1);
            assertThat(s.at("/execute_write/record").toString()).as(at + "executeWrite's record")
                    .isEqualTo("[\"map\",{\"answer\":[\"int\",\"42\"],\"k\":[\"str\",\"tx\"]}]");
            assertThat(s.at("/execute_write/summary/counters/nodes_created").asInt()).as(at + "executeWrite")
                    .isEqualTo(1);
            assertThat(s.at("/read_back").toString()).as(at + "a read after the bookmarks of both writes")
                    .isEqualTo("[[\"map\",{\"k\":[\"str\",\"auto\"]}],[\"map\",{\"k\":[\"str\",\"tx\"]}]]");
            assertThat(s.at("/execute_query/bookmarks_after_write").asInt()).as(at + "bookmark manager").isEqualTo(1);
            assertThat(s.at("/execute_query/read/records").toString()).as(at + "executeQuery reads its write")
                    .contains("\"auto\"", "\"eq\"", "\"tx\"");
        }
        for (Map.Entry<String, JsonNode> v : o.path("values").properties()) {
            assertThat(v.getValue().path("echoed").asText()).as(of + v.getKey() + " echoed").isEqualTo("same");
            assertThat(v.getValue().path("in_map").asText()).as(of + v.getKey() + " in a map").isEqualTo("same");
        }
        assertThat(o.path("values").size()).as(of + "values").isGreaterThanOrEqualTo(50);
        assertThat(o.at("/values/datetime_zone/type").asText()).isEqualTo("ZONED DATETIME NOT NULL");
        assertThat(o.at("/values/point_3d/type").asText()).isEqualTo("POINT NOT NULL");
        assertThat(o.at("/stored/differs").size()).as(of + "properties read back differently").isZero();
        assertThat(o.at("/stored/count").asInt()).as(of + "properties stored").isGreaterThanOrEqualTo(45);
        assertThat(o.at("/graph/counters/nodes_created").asInt()).isEqualTo(3);
        assertThat(o.at("/graph/counters/relationships_created").asInt()).isEqualTo(2);
        assertThat(o.at("/graph/element_ids_match_cypher").asBoolean()).as(of + "element ids").isTrue();
        String t = prefix.toUpperCase() + "_T";
        assertThat(o.at("/graph/reverse/rs").toString()).as(of + "a path's relationships walked backwards")
                .isEqualTo("[\"list\",[[\"relationship\",\"r0\",\"" + prefix.toUpperCase()
                        + "_U\",[\"map\",{}],\"n0\",\"n1\"],[\"relationship\",\"r1\",\"" + t
                        + "\",[\"map\",{\"w\":[\"float\",\"0.5\"]}],\"n2\",\"n1\"]]]");
        assertThat(o.at("/graph/created/a/2").toString()).isEqualTo("[\"" + prefix + "A\",\"" + prefix + "B\"]");
        if (!server.equals("sluice")) { // a known gap (KNOWN_GAPS): sluice sends no notifications
            assertThat(o.at("/notifications/summary/gql_status_objects").findValuesAsText("gql_status"))
                    .as(of + "notifications").contains("03N90", "01N50");
        }
        assertThat(o.at("/syntax_error/error/code").asText()).isEqualTo("Neo.ClientError.Statement.SyntaxError");
        assertThat(o.at("/syntax_error/error/gql_status").asText()).isEqualTo("42001");
        assertThat(o.at("/syntax_error/then").asInt()).as(of + "the session after a syntax error").isEqualTo(1);
        assertThat(o.at("/syntax_error/missing_parameter/code").asText())
                .isEqualTo("Neo.ClientError.Statement.ParameterMissing");
        assertThat(o.at("/syntax_error/division_by_zero/code").asText())
                .isEqualTo("Neo.ClientError.Statement.ArithmeticError");
        assertThat(o.at("/unique/constraint/constraints_added").asInt()).isEqualTo(1);
        for (String violation : List.of("second", "in_transaction")) {
            assertThat(o.at("/unique/" + violation + "/code").asText()).as(of + violation)
                    .isEqualTo("Neo.ClientError.Schema.ConstraintValidationFailed");
        }
        assertThat(o.at("/unique/left").toString()).as(of + "what the violations left").isEqualTo("[1]");
        assertThat(o.at("/large/rows").asInt()).isEqualTo(5000);
        assertThat(o.at("/large/sum").asLong()).isEqualTo(12_502_500L);
        if (!"skipped".equals(o.path("abandon").asText())) { // the browser's run leaves it out: browser-shim.js
            assertThat(o.at("/abandon/auto_commit_read").size()).isEqualTo(15);
            assertThat(o.at("/abandon/interleaved/rest").asInt()).isEqualTo(95);
            assertThat(o.at("/abandon/after").asInt(-1)).as(of + "an abandoned transaction's write").isZero();
            assertThat(o.at("/abandon/same_session_after_rollback").asInt()).isEqualTo(7);
        }
        assertThat(o.at("/concurrent/results").asBoolean()).as(of + "32 sessions at once").isTrue();
        assertThat(o.at("/concurrent/count").asInt()).isEqualTo(32);
    }

    /** Where a section of the script recorded a failure instead of its observations. */
    static List<String> failures(String path, JsonNode n) {
        List<String> found = new ArrayList<>();
        if (n.isObject()) {
            for (Map.Entry<String, JsonNode> f : n.properties()) {
                if (f.getKey().equals("failed")) {
                    found.add(path + ": " + f.getValue());
                } else {
                    found.addAll(failures(path + "/" + f.getKey(), f.getValue()));
                }
            }
        }
        return found;
    }

    /** A copy without {@link #DROPPED}, the agent cut to the product's name. */
    static JsonNode normal(JsonNode n) {
        JsonNode copy = n.deepCopy();
        strip(copy);
        return copy;
    }

    private static void strip(JsonNode n) {
        if (n instanceof ObjectNode o) {
            o.remove(DROPPED);
            if (o.get("agent") instanceof TextNode agent) {
                o.put("agent", agent.asText().replaceFirst("/.*", ""));
            }
        }
        n.forEach(OtherDriversTest::strip);
    }

    /** Each place where the two documents differ, as a JSON pointer with both values. */
    static void diff(String path, JsonNode reference, JsonNode gateway, List<String> out) {
        if (reference.equals(gateway)) {
            return;
        }
        if (reference.isObject() && gateway.isObject()) {
            Set<String> names = new TreeSet<>();
            reference.properties().forEach(e -> names.add(e.getKey()));
            gateway.properties().forEach(e -> names.add(e.getKey()));
            for (String name : names) {
                diff(path + "/" + name, reference.path(name), gateway.path(name), out);
            }
        } else if (reference.isArray() && gateway.isArray() && reference.size() == gateway.size()) {
            for (int i = 0; i < reference.size(); i++) {
                diff(path + "/" + i, reference.get(i), gateway.get(i), out);
            }
        } else {
            out.add(path + ": Neo4j " + shorten(reference) + ", sluice " + shorten(gateway));
        }
    }

    private static String shorten(JsonNode n) {
        String s = n.isMissingNode() ? "(absent)" : n.toString();
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    /** Runs the script with the server's address, the user and the password; its JSON document. */
    static JsonNode observe(String name, List<String> script, Map<String, String> env, String address)
            throws Exception {
        Path out = OUTPUT.resolve(name + ".json");
        Path log = OUTPUT.resolve(name + ".log");
        List<String> command = new ArrayList<>(script);
        command.addAll(List.of(address, "neo4j", TestServer.PASSWORD));
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(log.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        boolean finished = p.waitFor(SCRIPT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(finished).as("%s finished within %d s; its log:%n%s", name, SCRIPT_SECONDS, Files.readString(log))
                .isTrue();
        assertThat(p.exitValue()).as("%s: exit; its log:%n%s", name, Files.readString(log)).isZero();
        return JSON.readTree(out.toFile());
    }

    /** Runs an installer, bounded; its output goes to a log under target/bolt-drivers. */
    static void run(List<String> command, Map<String, String> env, long seconds) throws Exception {
        Path log = OUTPUT.resolve("install-" + Path.of(command.getFirst()).getFileName() + ".log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        boolean finished = p.waitFor(seconds, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(finished && p.exitValue() == 0).as("%s: %s", command, Files.readString(log)).isTrue();
    }

    static boolean python() {
        return succeeds(List.of("python3", "--version")) && succeeds(List.of("python3", "-m", "pip", "--version"));
    }

    static boolean node() {
        return succeeds(List.of("node", "--version")) && succeeds(List.of("npm", "--version"));
    }

    /** Whether {@code command} runs and exits 0 within 30 s: a runtime the test needs is installed. */
    static boolean succeeds(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
