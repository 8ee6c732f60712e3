package io.sluice.bolt;

import static io.sluice.support.BoltWire.*;

import io.sluice.bolt.PackStream.Struct;
import io.sluice.support.BoltRecorder;
import io.sluice.support.BoltWire;
import io.sluice.support.Neo4jProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.QueryConfig;
import org.neo4j.driver.SessionConfig;

/**
 * Not a test: the probe behind docs/reference/neo4j-bolt-behaviour.md. Asks Neo4j's own server (auth on) what it
 * answers on Bolt, over {@link BoltWire} and through {@link BoltRecorder} for the Java driver, and writes every
 * exchange to {@code target/neo4j-bolt-probe.txt}. Tagged soak so the suite leaves it out; run it with
 * {@code mvn -B -o test -pl server -Dtest=Neo4jBoltProbe -DexcludedGroups=none}.
 */
@Tag("soak")
@Timeout(300)
class Neo4jBoltProbe {
    static final String PASSWORD = "probe-password";
    @TempDir
    static Path dir;
    static Neo4jProcess neo4j;
    static PrintWriter log;

    @BeforeAll
    static void start() throws IOException {
        neo4j = Neo4jProcess.startHttp(dir.resolve("data"), "neo4j/" + PASSWORD, Map.of());
        Files.createDirectories(Path.of("target"));
        log = new PrintWriter(Files.newBufferedWriter(Path.of("target/neo4j-bolt-probe.txt")), true);
    }

    @AfterAll
    static void stop() {
        if (neo4j != null) {
            neo4j.close();
        }
        if (log != null) {
            log.close();
        }
    }

    static void say(String s) {
        log.println(s);
    }

    /** A connection at {@code major.minor} (5.7+ by manifest, else classic), HELLO'd; LOGON'd if {@code logon}. */
    static BoltWire open(int major, int minor, boolean logon) throws IOException {
        BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port);
        if (minor >= 7) {
            w.manifestHandshake(major, minor);
        } else {
            byte[] a = w.handshake(version(major, minor, 0));
            if (a[3] != major || a[2] != minor) {
                throw new IOException("got " + a[3] + "." + a[2]);
            }
        }
        w.send(hello(Map.of()));
        w.receive();
        if (logon) {
            w.send(logon("neo4j", PASSWORD));
            w.receive();
        }
        return w;
    }

    /** Sends {@code messages} pipelined and logs them with every reply until as many summaries as requests. */
    static void exchange(BoltWire w, String title, Struct... messages) throws IOException {
        say("--- " + title);
        for (Struct m : messages) {
            say("C: " + BoltRecorder.describe(m, false));
        }
        w.send(messages);
        try {
            for (int i = 0; i < messages.length; i++) {
                for (Struct r : w.receiveSummary()) {
                    say("S: " + BoltRecorder.describe(r, true));
                }
            }
        } catch (IOException e) {
            say("S: (" + e + ")");
        }
    }

    static String hex(byte[] b) {
        return java.util.HexFormat.ofDelimiter(" ").withUpperCase().formatHex(b);
    }

    @Test
    void handshakes() throws IOException {
        say("=== handshakes");
        try (BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port)) {
            Manifest m = w.manifestHandshake(5, 8);
            say("manifest|5.8-5.0|4.4-4.2|3.0 -> manifest, rest " + hex(m.bytes()) + " = " + m.rangesText()
                    + " caps " + m.capabilities());
            exchange(w, "HELLO at 5.8 (manifest)", hello(Map.of()));
            exchange(w, "LOGON", logon("neo4j", PASSWORD));
            say("noops " + w.noops());
        }
        int[][][] lists = {{version(5, 8, 8), version(4, 4, 2), version(3, 0, 0)}, {version(5, 4, 4)},
            {version(4, 4, 0)}, {version(5, 5, 0)}, {version(5, 6, 0)}, {version(5, 7, 0)}, {version(5, 8, 0)},
            {version(6, 0, 0)}, {version(5, 9, 0)}, {version(3, 0, 0)}, {version(5, 5, 0), version(5, 3, 0)},
            {version(4, 3, 0)}, {version(4, 4, 4)}, {version(5, 9, 9)}};
        for (int[][] l : lists) {
            try (BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port)) {
                StringBuilder p = new StringBuilder();
                for (int[] v : l) {
                    p.append(hex(new byte[] {(byte) v[0], (byte) v[1], (byte) v[2], (byte) v[3]})).append(" | ");
                }
                String answer;
                try {
                    byte[] a = w.handshake(l);
                    answer = hex(a) + (w.isClosed(java.time.Duration.ofMillis(500)) ? " then closed" : " open");
                } catch (IOException e) {
                    answer = "exception " + e;
                }
                say("proposals " + p + "-> " + answer);
            }
        }
        try (BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port)) {
            w.sendRaw(new byte[] {'G', 'E', 'T', ' ', '/', ' ', 'H', 'T', 'T', 'P', '/', '1', '.', '1', '\r', '\n',
                '\r', '\n', 0, 0});
            String answer;
            try {
                byte[] a = w.readBytes(4);
                answer = hex(a);
            } catch (IOException e) {
                answer = "exception " + e;
            }
            say("garbage magic (GET / HTTP/1.1) -> " + answer + " closed " + w.isClosed(java.time.Duration.ofMillis(500)));
        }
        try (BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port)) {
            w.sendRaw(new byte[] {1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
            String answer;
            try {
                answer = hex(w.readBytes(4));
            } catch (IOException e) {
                answer = "exception " + e;
            }
            say("garbage magic 01 02 03 04 -> " + answer + " closed " + w.isClosed(java.time.Duration.ofMillis(500)));
        }
    }

    @Test
    void helloAndLogon() throws IOException {
        say("=== hello/logon");
        for (int minor : new int[] {4, 8}) {
            try (BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port)) {
                if (minor == 8) {
                    w.manifestHandshake(5, 8);
                } else {
                    w.handshake(version(5, 4, 0));
                }
                exchange(w, "5." + minor + " HELLO with routing", hello(Map.of("routing", Map.of("address",
                        "127.0.0.1:" + neo4j.port))));
                exchange(w, "5." + minor + " LOGON wrong password", logon("neo4j", "wrong-password"));
                say("closed after wrong LOGON: " + w.isClosed(java.time.Duration.ofMillis(500)));
            }
            try (BoltWire w = open(5, minor, false)) {
                exchange(w, "5." + minor + " RUN before LOGON", run("RETURN 1"), pullAll());
                say("closed: " + w.isClosed(java.time.Duration.ofMillis(500)));
            }
            try (BoltWire w = open(5, minor, true)) {
                exchange(w, "5." + minor + " LOGOFF, RUN, LOGON, RUN", Struct.of(LOGOFF));
                exchange(w, "after logoff", run("RETURN 1 AS one"), pullAll());
                say("closed: " + w.isClosed(java.time.Duration.ofMillis(500)));
            }
            try (BoltWire w = open(5, minor, true)) {
                exchange(w, "5." + minor + " LOGOFF then LOGON", Struct.of(LOGOFF), logon("neo4j", PASSWORD),
                        run("RETURN 1 AS one"), pullAll());
                exchange(w, "HELLO again", hello(Map.of()));
                say("closed: " + w.isClosed(java.time.Duration.ofMillis(500)));
            }
            try (BoltWire w = open(5, minor, false)) {
                exchange(w, "5." + minor + " LOGON none scheme",
                        Struct.of(LOGON, map("scheme", "none")));
                say("closed: " + w.isClosed(java.time.Duration.ofMillis(500)));
            }
        }
    }

    @Test
    void autoCommitAndTransactions() throws IOException {
        say("=== auto-commit / tx");
        for (int minor : new int[] {4, 6, 8}) {
            try (BoltWire w = open(5, minor, true)) {
                String v = "5." + minor + " ";
                exchange(w, v + "auto-commit write", run("CREATE (n:Probe {x: $x}) RETURN n.x AS x",
                        Map.of("x", 1L), Map.of()), pullAll());
                exchange(w, v + "auto-commit write again", run("CREATE (n:Probe {x: 2}) SET n.y = 3"), pullAll());
                exchange(w, v + "auto-commit read", run("RETURN 1 AS one, 'a' AS two"), pullAll());
                exchange(w, v + "auto-commit read with db", run("MATCH (n:Probe) RETURN count(n) AS c", Map.of(),
                        Map.of("db", "neo4j")), pullAll());
                exchange(w, v + "read+write mix", run("MATCH (n:Probe) WITH count(n) AS c CREATE (m:Probe2) "
                        + "RETURN c"), pullAll());
                exchange(w, v + "delete everything", run("MATCH (n:Probe2) DETACH DELETE n"), pullAll());
                exchange(w, v + "schema", run("CREATE INDEX probe_x" + minor + " IF NOT EXISTS FOR (n:Probe) ON (n.x)"),
                        pullAll());
                exchange(w, v + "notification (unknown label)", run("MATCH (n:NoSuchLabel) RETURN n"), pullAll());
                exchange(w, v + "notification (cartesian)", run("MATCH (a:Probe), (b:Probe) RETURN count(*) AS c"),
                        pullAll());
                exchange(w, v + "paging", run("UNWIND range(1, 5) AS i RETURN i"), pull(2, -1), pull(2, -1),
                        pull(2, -1));
                exchange(w, v + "discard", run("UNWIND range(1, 5) AS i RETURN i"), pull(2, -1), discard(-1, -1));
                exchange(w, v + "begin", begin(Map.of()));
                exchange(w, v + "run in tx", run("CREATE (n:Probe {x: 10}) RETURN n.x AS x"),
                        run("UNWIND range(1, 3) AS i RETURN i"), pull(-1, 0), pull(2, 1), pull(-1, -1));
                exchange(w, v + "commit", commit());
                exchange(w, v + "begin/run/rollback", begin(map("mode", "w", "db", "neo4j", "tx_timeout", 5000L,
                        "tx_metadata", Map.of("app", "probe"))), run("CREATE (n:Probe {x: 11})"), pullAll(),
                        rollback());
                exchange(w, v + "begin read tx", begin(map("mode", "r")), run("RETURN 1 AS one"), pullAll(),
                        commit());
                exchange(w, v + "empty tx", begin(Map.of()), commit());
            }
        }
    }

    @Test
    void failures() throws IOException {
        say("=== failures");
        try (BoltWire w = open(5, 4, true)) {
            exchange(w, "constraint", run("CREATE CONSTRAINT probe_unique IF NOT EXISTS FOR (n:Uniq) REQUIRE n.k "
                    + "IS UNIQUE"), pullAll());
            exchange(w, "seed", run("MERGE (n:Uniq {k: 1})"), pullAll());
        }
        for (int minor : new int[] {4, 6, 7, 8}) {
            String v = "5." + minor + " ";
            Object[][] cases = {
                {"syntax", new Struct[] {run("RETURN 1 +"), pullAll()}},
                {"uniqueness", new Struct[] {run("CREATE (n:Uniq {k: 1})"), pullAll()}},
                {"missing parameter", new Struct[] {run("RETURN $x AS x"), pullAll()}},
                {"division by zero", new Struct[] {run("UNWIND [1, 0] AS x RETURN 1 / x AS y"), pullAll()}},
                {"write in read tx", new Struct[] {begin(map("mode", "r")), run("CREATE (n:Probe)"), pullAll()}},
                {"write in read auto-commit", new Struct[] {run("CREATE (n:Probe)", Map.of(), map("mode", "r")),
                    pullAll()}},
                {"unknown db (RUN)", new Struct[] {run("RETURN 1", Map.of(), map("db", "nope")), pullAll()}},
                {"unknown db (BEGIN)", new Struct[] {begin(map("db", "nope")), run("RETURN 1"), pullAll()}},
                {"invalid bookmark (BEGIN)", new Struct[] {begin(map("bookmarks", List.of("garbage"))),
                    run("RETURN 1"), pullAll()}},
                {"invalid bookmark (RUN)", new Struct[] {run("RETURN 1", Map.of(), map("bookmarks",
                    List.of("FB:garbage"))), pullAll()}},
                {"type error", new Struct[] {run("RETURN 'a' + [1] - 1 AS x"), pullAll()}},
                {"commit without tx", new Struct[] {commit()}},
                {"pull without run", new Struct[] {pullAll()}},
                {"unknown message", new Struct[] {Struct.of(0x42)}},
            };
            for (Object[] c : cases) {
                try (BoltWire w = open(5, minor, true)) {
                    Struct[] ms = (Struct[]) c[1];
                    exchange(w, v + c[0], ms);
                    if (!w.isClosed(java.time.Duration.ofMillis(500))) {
                        exchange(w, v + c[0] + ": then", run("RETURN 1"), pullAll(), reset(), run("RETURN 2 AS two"),
                                pullAll());
                    } else {
                        say("closed");
                    }
                } catch (IOException e) {
                    say("exception " + e);
                }
            }
        }
    }

    @Test
    void resetMidStream() throws IOException {
        say("=== reset mid-stream");
        for (int minor : new int[] {4, 8}) {
            try (BoltWire w = open(5, minor, true)) {
                say("--- 5." + minor + " RUN 1000 rows, PULL 10, RESET");
                w.send(run("UNWIND range(1, 1000) AS i RETURN i"), pull(10, -1), reset());
                for (int i = 0; i < 3; i++) {
                    List<Struct> all = w.receiveSummary();
                    say("S: " + (all.size() - 1) + " records, then " + BoltRecorder.describe(all.getLast(), true));
                }
                exchange(w, "after", run("RETURN 1 AS one"), pullAll());
                exchange(w, "reset in tx", begin(Map.of()), run("UNWIND range(1, 1000) AS i RETURN i"),
                        pull(10, -1), reset(), commit());
            }
        }
    }

    @Test
    void routeAndTelemetry() throws IOException {
        say("=== route/telemetry");
        for (int minor : new int[] {4, 8}) {
            try (BoltWire w = open(5, minor, true)) {
                String v = "5." + minor + " ";
                exchange(w, v + "ROUTE", route(map("address", "example.com:9999"), List.of(), Map.of()));
                exchange(w, v + "ROUTE db", route(Map.of(), List.of(), map("db", "neo4j")));
                exchange(w, v + "ROUTE system", route(Map.of(), List.of(), map("db", "system")));
                exchange(w, v + "ROUTE nope", route(Map.of(), List.of(), map("db", "nope")));
                exchange(w, v + "then", reset());
                exchange(w, v + "TELEMETRY", telemetry(2));
                exchange(w, v + "TELEMETRY 9", telemetry(9));
                exchange(w, v + "then", reset());
                say("--- " + v + "GOODBYE");
                w.send(goodbye());
                say("closed after GOODBYE: " + w.isClosed(java.time.Duration.ofMillis(500)));
            }
        }
    }

    @Test
    void values() throws IOException {
        say("=== values");
        try (BoltWire w = open(5, 8, true)) {
            exchange(w, "graph", run("CREATE p = (a:V {name: 'a'})-[r:KNOWS {since: 2020}]->(b:V:W {name: 'b'})"
                    + "<-[s:LIKES]-(c:V) RETURN a, r, p"), pullAll());
            exchange(w, "temporal", run("RETURN date('2024-02-29') AS date, time('12:34:56.789+01:00') AS time, "
                    + "localtime('12:34:56.123456789') AS localtime, "
                    + "datetime('2024-02-29T12:34:56.5+01:00') AS dtOffset, "
                    + "datetime('2024-02-29T12:34:56.5[Europe/Stockholm]') AS dtZone, "
                    + "localdatetime('2024-02-29T12:34:56') AS localdatetime, "
                    + "duration('P1Y2M3DT4H5M6.7S') AS duration, datetime('1969-12-31T23:59:59Z') AS beforeEpoch"),
                    pullAll());
            exchange(w, "points", run("RETURN point({x: 1.5, y: 2.5}) AS p2, point({x: 1, y: 2, z: 3}) AS p3, "
                    + "point({latitude: 59.3, longitude: 18.1}) AS wgs, "
                    + "point({latitude: 59.3, longitude: 18.1, height: 10}) AS wgs3"), pullAll());
            exchange(w, "scalars", run("RETURN 1 AS i, 1.5 AS f, 'x' AS s, true AS b, null AS n, [1, 'a'] AS l, "
                    + "{k: 1} AS m, 9007199254740993 AS big, -17 AS neg, 0.0/0.0 AS nan"), pullAll());
            exchange(w, "bytes param", run("RETURN $b AS b", Map.of("b", new byte[] {1, 2, 3}), Map.of()), pullAll());
        }
        try (BoltWire w = open(5, 4, true)) {
            exchange(w, "5.4 graph", run("MATCH p = (a:V {name: 'a'})-[r:KNOWS]->(b) RETURN a, r, p"), pullAll());
            exchange(w, "5.4 dt", run("RETURN datetime('2024-02-29T12:34:56.5[Europe/Stockholm]') AS dtZone"),
                    pullAll());
        }
    }

    @Test
    void more() throws IOException {
        say("=== more");
        for (int minor : new int[] {4, 8}) {
            try (BoltWire w = open(5, minor, true)) {
                say("--- 5." + minor + " RUN 1000 rows, PULL 10, wait, RESET");
                exchange(w, "run+pull 10", run("UNWIND range(1, 1000) AS i RETURN i"), pull(10, -1));
                exchange(w, "reset", reset());
                exchange(w, "after", run("RETURN 1 AS one"), pullAll());
                exchange(w, "tx", begin(Map.of()));
                exchange(w, "tx run+pull 10", run("UNWIND range(1, 1000) AS i RETURN i"), pull(10, -1));
                exchange(w, "tx reset", reset());
                exchange(w, "then commit", commit());
                say("noops " + w.noops());
            }
        }
        for (int minor : new int[] {0, 1}) {
            try (BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port)) {
                w.manifestHandshake(6, minor);
                exchange(w, "6." + minor + " HELLO", hello(Map.of()));
                exchange(w, "6." + minor + " LOGON", logon("neo4j", PASSWORD));
                exchange(w, "6." + minor + " run", run("CREATE (n:Six) RETURN n, date('2024-02-29') AS d, "
                        + "datetime('2024-02-29T12:34:56.5[Europe/Stockholm]') AS z"), pullAll());
                exchange(w, "6." + minor + " syntax", run("RETURN 1 +"), pullAll(), reset());
                exchange(w, "6." + minor + " vector", run("CYPHER 25 RETURN vector([1, 2, 3], 3, INTEGER) AS v"),
                        pullAll(), reset());
                exchange(w, "6." + minor + " telemetry", telemetry(0));
            }
        }
        try (BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port)) {
            w.sendRaw("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
            try {
                while (!w.isClosed(java.time.Duration.ofMillis(1000))) {
                    got.write(w.readBytes(1));
                }
            } catch (IOException e) {
                say("(" + e + ")");
            }
            say("GET / -> " + got.toString(java.nio.charset.StandardCharsets.ISO_8859_1));
        }
        try (BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port)) {
            w.handshake(version(5, 4, 0));
            exchange(w, "5.4 HELLO with auth (4.x style)", hello(map("scheme", "basic", "principal", "neo4j",
                    "credentials", PASSWORD)));
            exchange(w, "then RUN", run("RETURN 1 AS one"), pullAll());
        }
        try (BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port)) {
            w.handshake(version(4, 4, 0));
            exchange(w, "4.4 HELLO with auth", hello(map("scheme", "basic", "principal", "neo4j",
                    "credentials", PASSWORD)));
            exchange(w, "4.4 RUN", run("RETURN 1 AS one"), pullAll());
        }
        try (BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port)) {
            byte[] a = w.handshake(MANIFEST, version(5, 8, 8));
            say("manifest then chooses 5.5 (not offered): answer " + hex(a));
            w.readBytes(18);
            w.sendRaw(new byte[] {0, 0, 5, 5, 0});
            exchange(w, "HELLO", hello(Map.of()));
        }
    }

    @Test
    void driver() throws Exception {
        say("=== driver");
        try (BoltRecorder rec = new BoltRecorder("127.0.0.1", neo4j.port)) {
            for (String scheme : new String[] {"bolt", "neo4j"}) {
                rec.clear();
                try (Driver d = GraphDatabase.driver(scheme + "://127.0.0.1:" + rec.port(),
                        AuthTokens.basic("neo4j", PASSWORD))) {
                    d.verifyConnectivity();
                    say("--- " + scheme + ": verifyConnectivity\n" + rec.transcript());
                    rec.clear();
                    try (var s = d.session()) {
                        s.run("CREATE (n:DriverProbe {x: $x})", Map.of("x", 1)).consume();
                    }
                    say("--- " + scheme + ": session.run().consume()\n" + rec.transcript());
                    rec.clear();
                    try (var s = d.session()) {
                        s.executeWrite(tx -> tx.run("CREATE (n:DriverProbe {x: 2}) RETURN n.x AS x").list());
                    }
                    say("--- " + scheme + ": executeWrite\n" + rec.transcript());
                    rec.clear();
                    try (var s = d.session(SessionConfig.forDatabase("neo4j"))) {
                        s.executeRead(tx -> tx.run("MATCH (n:DriverProbe) RETURN count(n) AS c").single());
                    }
                    say("--- " + scheme + ": executeRead (db neo4j)\n" + rec.transcript());
                    rec.clear();
                    d.executableQuery("CREATE (n:DriverProbe {x: 3})").execute();
                    say("--- " + scheme + ": executableQuery\n" + rec.transcript());
                    rec.clear();
                    d.executableQuery("MATCH (n:DriverProbe) RETURN count(n) AS c")
                            .withConfig(QueryConfig.builder().withRouting(org.neo4j.driver.RoutingControl.READ)
                                    .build()).execute();
                    say("--- " + scheme + ": executableQuery (read)\n" + rec.transcript());
                    rec.clear();
                    try (var s = d.session()) {
                        try (var tx = s.beginTransaction()) {
                            tx.run("RETURN 1").consume();
                            tx.commit();
                        }
                    }
                    say("--- " + scheme + ": beginTransaction\n" + rec.transcript());
                    rec.clear();
                }
                say("--- " + scheme + ": close\n" + rec.transcript());
            }
        }
    }
}
