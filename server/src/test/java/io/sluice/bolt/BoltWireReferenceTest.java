package io.sluice.bolt;

import static io.sluice.support.BoltWire.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.bolt.PackStream.Struct;
import io.sluice.support.BoltRecorder;
import io.sluice.support.BoltWire;
import io.sluice.support.Neo4jProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;

/**
 * {@link BoltWire} and {@link BoltRecorder} against Neo4j's own server (auth on), checking the facts of
 * docs/reference/neo4j-bolt-behaviour.md that a Bolt listener in sluice must copy: the manifest reply's exact
 * bytes, HELLO's metadata, the bookmark and stats of an auto-commit write, a 5.8 FAILURE and what follows it, and
 * the Java driver's pipelined RUN+PULL.
 */
@Timeout(60)
class BoltWireReferenceTest {
    static final String PASSWORD = "reference-password";
    @TempDir
    static Path dir;
    static Neo4jProcess neo4j;

    @BeforeAll
    @Timeout(180)
    static void start() throws IOException {
        neo4j = Neo4jProcess.startHttp(dir.resolve("data"), "neo4j/" + PASSWORD, Map.of());
    }

    @AfterAll
    static void stop() {
        if (neo4j != null) {
            neo4j.close();
        }
    }

    static BoltWire logged(int major, int minor) throws IOException {
        BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port);
        w.manifestHandshake(major, minor);
        w.send(hello(Map.of()), logon("neo4j", PASSWORD));
        assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
        assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
        return w;
    }

    @Test
    void manifestHandshakeThenHelloAndLogon() throws IOException {
        try (BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port)) {
            Manifest m = w.manifestHandshake(5, 8);
            assertThat(BoltRecorder.hex(m.bytes())).isEqualTo("04 00 04 04 04 00 04 04 05 00 02 08 05 00 01 01 06 00");
            assertThat(m.rangesText()).isEqualTo("4.4-4.0, 5.4-5.0, 5.8-5.6, 6.1-6.0");
            w.send(hello(Map.of()), logon("neo4j", PASSWORD));
            Map<String, Object> hello = meta(w.receive());
            assertThat(hello).containsEntry("server", "Neo4j/2026.08.1").containsEntry("protocol_version", "5.8")
                    .containsEntry("hints", Map.of("connection.recv_timeout_seconds", 120L, "ssr.enabled", true));
            assertThat((String) hello.get("connection_id")).matches("bolt-\\d+");
            Struct logon = w.receive();
            assertThat(logon.tag()).isEqualTo((byte) SUCCESS);
            assertThat(meta(logon)).containsOnlyKeys("advertised_address");
            assertThat(w.noops()).isZero();
        }
    }

    @Test
    void classicProposals() throws IOException {
        try (BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port)) {
            assertThat(w.handshake(version(5, 4, 4))).containsExactly(0, 0, 4, 5);
            w.send(hello(Map.of()));
            assertThat(meta(w.receive())).doesNotContainKey("protocol_version")
                    .containsEntry("hints", Map.of("connection.recv_timeout_seconds", 120L));
        }
        try (BoltWire w = BoltWire.connect("127.0.0.1", neo4j.port)) {
            assertThat(w.handshake(version(5, 5, 0))).containsExactly(0, 0, 0, 0);
            assertThat(w.isClosed(Duration.ofSeconds(5))).isTrue();
        }
    }

    @Test
    void autoCommitWriteHasBookmarkAndStatsAReadHasNoStats() throws IOException {
        try (BoltWire w = logged(5, 8)) {
            w.send(run("CREATE (n:RefProbe {x: 1})"), pullAll());
            Map<String, Object> runMeta = meta(w.receive());
            assertThat(runMeta).containsOnlyKeys("t_first", "fields", "db").containsEntry("fields", List.of());
            Map<String, Object> done = meta(w.receive());
            assertThat((String) done.get("bookmark")).matches("FB:[A-Za-z0-9+/]+=*");
            assertThat(done).containsEntry("type", "w").containsEntry("db", "neo4j").containsEntry("stats",
                    Map.of("contains-updates", true, "labels-added", 1L, "nodes-created", 1L, "properties-set", 1L));
            w.send(run("RETURN 1 AS one"), pullAll());
            w.receive();
            List<Struct> read = w.receiveSummary();
            assertThat(read).hasSize(2);
            assertThat(meta(read.getLast())).doesNotContainKey("stats").containsEntry("type", "r")
                    .containsEntry("bookmark", done.get("bookmark"));
        }
    }

    @Test
    void failureAt58HasGqlStatusAndIsFollowedByIgnoredUntilReset() throws IOException {
        try (BoltWire w = logged(5, 8)) {
            // not RESET in the same write: Neo4j acts on a RESET on arrival, so the requests queued before it may
            // come back IGNORED without a FAILURE (see the doc)
            w.send(run("RETURN 1 +"), pullAll(), run("RETURN 1"));
            Map<String, Object> failure = meta(w.receive());
            assertThat(failure).containsOnlyKeys("neo4j_code", "message", "gql_status", "description",
                    "diagnostic_record", "cause").containsEntry("neo4j_code", "Neo.ClientError.Statement.SyntaxError")
                    .containsEntry("gql_status", "42001");
            assertThat(((Map<?, ?>) failure.get("cause")).get("gql_status")).isEqualTo("42I06");
            assertThat(w.receive().tag()).isEqualTo((byte) IGNORED);
            assertThat(w.receive().tag()).isEqualTo((byte) IGNORED);
            w.send(reset());
            assertThat(w.receive()).isEqualTo(Struct.of(SUCCESS, Map.of()));
        }
    }

    @Test
    void driverPipelinesRunAndPull() throws Exception {
        try (BoltRecorder rec = new BoltRecorder("127.0.0.1", neo4j.port);
                Driver d = GraphDatabase.driver("bolt://127.0.0.1:" + rec.port(), AuthTokens.basic("neo4j", PASSWORD))) {
            d.verifyConnectivity();
            rec.clear();
            try (var s = d.session()) {
                s.run("RETURN 1").consume();
            }
            // per direction: the two threads' interleaving is no evidence of pipelining (the doc's transcripts are)
            List<String> sent = rec.events().stream().filter(e -> e.message() != null && !e.fromServer())
                    .map(e -> e.text().split(" ")[0]).toList();
            List<String> got = rec.events().stream().filter(e -> e.message() != null && e.fromServer())
                    .map(e -> e.text().split(" ")[0]).toList();
            assertThat(sent.subList(sent.indexOf("RUN"), sent.size())).startsWith("RUN", "PULL");
            assertThat(got).containsSubsequence("SUCCESS", "RECORD", "SUCCESS");
            assertThat(rec.events().stream().filter(e -> e.text().startsWith("PULL")).findFirst().orElseThrow()
                    .text()).isEqualTo("PULL {n: 1000}");
        }
    }
}
