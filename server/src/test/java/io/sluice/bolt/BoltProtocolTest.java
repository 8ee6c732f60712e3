package io.sluice.bolt;

import static io.sluice.support.BoltWire.map;
import static io.sluice.support.BoltWire.meta;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.bolt.PackStream.Struct;
import io.sluice.support.BoltWire;
import io.sluice.support.TestServer;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Sluice's Bolt listener at the message level (BoltWire, no driver in between): the handshake's answers, a reply
 * held behind a lock interleaved with NOOP chunks, RESET in the middle of a stream, a full admission answered
 * with the transient code drivers retry, protocol violations closing the connection, and the 5.8 FAILURE form.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class BoltProtocolTest {
    static final int SUCCESS = 0x70, RECORD = 0x71, IGNORED = 0x7E, FAILURE = 0x7F;
    TestServer s;

    @BeforeAll
    void start() {
        // a short keep-alive, so that a held reply shows NOOPs within the test; one pending row at a time and a
        // short admission wait, so that a second write behind a held one is refused at once
        s = TestServer.start("""
                bolt: {keep_alive: 200ms}
                admission: {max_pending_rows: 2, timeout: 50ms}
                batch: {max_wait: 1ms}
                """, true);
    }

    @AfterAll
    void stop() {
        if (s != null) {
            s.close();
        }
    }

    /** A connection past HELLO and LOGON at Bolt {@code major.minor}. */
    BoltWire login(int major, int minor) throws IOException {
        BoltWire w = BoltWire.connect(s.bolt.host(), s.bolt.port());
        byte[] v = w.handshake(BoltWire.version(major, minor, 0));
        assertThat(v).containsExactly(0, 0, minor, major);
        w.send(BoltWire.hello(map("user_agent", "test/1")), BoltWire.logon("neo4j", TestServer.PASSWORD));
        Struct hello = w.receive();
        assertThat(hello.tag()).isEqualTo((byte) SUCCESS);
        assertThat(meta(hello).get("server").toString()).startsWith("Neo4j/");
        assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
        return w;
    }

    /** The answers to a RUN and a PULL: the RUN's SUCCESS checked, then the records and the PULL's summary. */
    static List<Struct> pulled(BoltWire w) throws IOException {
        Struct run = w.receive();
        assertThat(run.tag()).as("RUN's answer: %s", run).isEqualTo((byte) SUCCESS);
        return w.receiveSummary();
    }

    @Test
    void handshakeAnswersLikeNeo4j() throws IOException {
        try (BoltWire w = BoltWire.connect(s.bolt.host(), s.bolt.port())) {
            BoltWire.Manifest m = w.manifestHandshake(5, 8);
            assertThat(m.rangesText()).contains("5.8-5.6", "5.4-5.0", "4.4");
            w.send(BoltWire.hello(map("user_agent", "test/1")), BoltWire.logon("neo4j", TestServer.PASSWORD));
            assertThat(meta(w.receive())).containsEntry("protocol_version", "5.8");
            assertThat(meta(w.receive())).containsKey("advertised_address");
        }
        try (BoltWire w = BoltWire.connect(s.bolt.host(), s.bolt.port())) {
            assertThat(w.handshake(BoltWire.version(5, 9, 9))).as("5.9-5.0: the best sluice speaks")
                    .containsExactly(0, 0, 8, 5);
        }
        try (BoltWire w = BoltWire.connect(s.bolt.host(), s.bolt.port())) {
            assertThat(w.handshake(BoltWire.version(5, 5, 0))).as("never 5.5").containsExactly(0, 0, 0, 0);
            assertThat(w.isClosed(java.time.Duration.ofSeconds(10))).isTrue();
        }
    }

    /**
     * A driver's managed transaction refused by a full sluice is retried by the driver itself, unchanged, and
     * applied once: the transient code is one drivers retry.
     */
    @Test
    void aRealDriverRetriesWhatAFullSluiceRefused() throws Exception {
        try (BoltWire holder = login(5, 4); BoltWire a = login(5, 4);
                org.neo4j.driver.Driver driver = org.neo4j.driver.GraphDatabase.driver("bolt://" + s.bolt,
                        org.neo4j.driver.AuthTokens.basic("neo4j", TestServer.PASSWORD))) {
            driver.verifyConnectivity();
            holder.send(BoltWire.run("CREATE (:Retry {id: 1})"), BoltWire.pullAll());
            assertThat(pulled(holder).getLast().tag()).isEqualTo((byte) SUCCESS);
            holder.send(BoltWire.begin(map()), BoltWire.run("MATCH (r:Retry {id: 1}) SET r.x = 0"),
                    BoltWire.pullAll());
            assertThat(holder.receive().tag()).isEqualTo((byte) SUCCESS);
            assertThat(pulled(holder).getLast().tag()).isEqualTo((byte) SUCCESS);
            a.send(BoltWire.run("MATCH (r:Retry {id: 1}) SET r.x = 1"), BoltWire.pullAll());
            io.sluice.support.Await.until("the second pending row taken", java.time.Duration.ofSeconds(30),
                    () -> s.get("/health").body().contains("\"pending_rows\":2"));
            String refusals = "sluice_bolt_failures_total{code=\"Neo.TransientError.Request.ResourceExhaustion\"}";
            double before = metric(refusals);
            java.util.concurrent.CompletableFuture<Long> managed = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> {
                        try (var session = driver.session()) {
                            return session.executeWrite(tx -> tx.run("CREATE (:Retry {id: 2}) RETURN 2 AS two")
                                    .single().get("two").asLong());
                        }
                    });
            io.sluice.support.Await.until("the driver's first BEGIN refused", java.time.Duration.ofSeconds(30),
                    () -> metric(refusals) > before);
            holder.send(BoltWire.commit()); // room again: the driver's retry gets in
            assertThat(holder.receive().tag()).isEqualTo((byte) SUCCESS);
            assertThat(managed.get(60, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(2L);
            try (var session = driver.session()) {
                assertThat(session.run("MATCH (r:Retry {id: 2}) RETURN count(r) AS n").single().get("n").asLong())
                        .as("applied once").isEqualTo(1);
            }
        }
    }

    private double metric(String series) {
        for (String line : s.get("/metrics").body().split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1));
            }
        }
        return 0;
    }

    @Test
    void bolt44TakesCredentialsInHelloAndLegacyDateTimes() throws IOException {
        try (BoltWire w = BoltWire.connect(s.bolt.host(), s.bolt.port())) {
            assertThat(w.handshake(BoltWire.version(4, 4, 0))).containsExactly(0, 0, 4, 4);
            w.send(BoltWire.hello(map("user_agent", "test/1", "scheme", "basic", "principal", "neo4j",
                    "credentials", TestServer.PASSWORD)));
            assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
            w.send(BoltWire.run("RETURN datetime('2024-02-29T12:34:56+01:00') AS d, $p AS p",
                    map("p", Struct.of(0x46, 1709210096L, 0L, 3600L)), map()), BoltWire.pullAll());
            List<Struct> rows = pulled(w);
            @SuppressWarnings("unchecked")
            List<Object> row = (List<Object>) rows.getFirst().fields().getFirst();
            // without the utc patch: seconds of the local time, tag 0x46, both ways
            assertThat(row.get(0)).isEqualTo(Struct.of(0x46, 1709210096L, 0L, 3600L));
            assertThat(row.get(1)).isEqualTo(Struct.of(0x46, 1709210096L, 0L, 3600L));
        }
    }

    @Test
    void aHeldReplyIsInterleavedWithNoopsAndAnsweredAfterTheCommit() throws IOException {
        try (BoltWire holder = login(5, 4); BoltWire waiter = login(5, 4)) {
            holder.send(BoltWire.run("CREATE (:Held {id: 1})"), BoltWire.pullAll());
            assertThat(pulled(holder).getLast().tag()).isEqualTo((byte) SUCCESS);
            holder.send(BoltWire.begin(map()), BoltWire.run("MATCH (h:Held {id: 1}) SET h.by = 'holder'"),
                    BoltWire.pullAll());
            assertThat(holder.receive().tag()).isEqualTo((byte) SUCCESS);
            assertThat(pulled(holder).getLast().tag()).isEqualTo((byte) SUCCESS); // the lock is held
            waiter.send(BoltWire.run("MATCH (h:Held {id: 1}) SET h.by = 'waiter'"), BoltWire.pullAll());
            // the waiter's write waits for the lock in its batch; its replies are held, NOOPs keep it alive
            assertThat(waiter.readBytes(4)).as("two NOOP chunks").containsExactly(0, 0, 0, 0);
            holder.send(BoltWire.commit());
            assertThat(holder.receive().tag()).isEqualTo((byte) SUCCESS);
            Struct run = waiter.receive();
            assertThat(run.tag()).isEqualTo((byte) SUCCESS);
            Struct done = waiter.receive();
            assertThat(done.tag()).isEqualTo((byte) SUCCESS);
            assertThat(meta(done).get("bookmark").toString()).startsWith("FB:");
            @SuppressWarnings("unchecked")
            Map<String, Object> stats = (Map<String, Object>) meta(done).get("stats");
            assertThat(stats).containsEntry("properties-set", 1L).containsEntry("contains-updates", true);
        }
    }

    @Test
    void resetInTheMiddleOfAStreamEndsItAndTheTransaction() throws IOException {
        try (BoltWire w = login(5, 4)) {
            w.send(BoltWire.run("UNWIND range(1, 1000) AS i RETURN i"), BoltWire.pull(10, -1));
            List<Struct> page = pulled(w);
            assertThat(page).hasSize(11);
            assertThat(meta(page.getLast())).containsEntry("has_more", true);
            w.send(BoltWire.reset());
            assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
            w.send(BoltWire.begin(map()), BoltWire.run("CREATE (:ResetGone)"), BoltWire.pullAll());
            assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
            assertThat(pulled(w).getLast().tag()).isEqualTo((byte) SUCCESS);
            w.send(BoltWire.reset());
            assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
            w.send(BoltWire.run("MATCH (n:ResetGone) RETURN count(n) AS n"), BoltWire.pullAll());
            List<Struct> rows = pulled(w);
            assertThat(rows.getFirst().fields().getFirst()).as("the reset rolled the transaction back")
                    .isEqualTo(List.of(0L));
        }
    }

    @Test
    void afterAFailureEverythingIsIgnoredUntilReset() throws IOException {
        try (BoltWire w = login(5, 8)) {
            w.send(BoltWire.run("RETURN 1 +"), BoltWire.pullAll(), BoltWire.run("RETURN 1"));
            Struct failure = w.receive();
            assertThat(failure.tag()).isEqualTo((byte) FAILURE);
            assertThat(meta(failure)).containsEntry("neo4j_code", "Neo.ClientError.Statement.SyntaxError")
                    .containsEntry("gql_status", "42001");
            assertThat(w.receive().tag()).isEqualTo((byte) IGNORED);
            assertThat(w.receive().tag()).isEqualTo((byte) IGNORED);
            // a RESET pipelined behind requests interrupts them at once (IGNORED), as Neo4j's does
            w.send(BoltWire.reset(), BoltWire.run("RETURN 2 AS two"), BoltWire.pullAll());
            assertThat(w.receive().tag()).as("RESET").isEqualTo((byte) SUCCESS);
            assertThat(pulled(w).getFirst().fields().getFirst()).isEqualTo(List.of(2L));
        }
    }

    @Test
    void beforeItsLoginAConnectionMaySendSmallMessagesOnly() throws IOException {
        try (BoltWire w = BoltWire.connect(s.bolt.host(), s.bolt.port())) {
            w.handshake(BoltWire.version(5, 4, 0));
            w.send(BoltWire.hello(map("user_agent", "x".repeat(100_000))));
            Struct refused = w.receive();
            assertThat(refused.tag()).isEqualTo((byte) FAILURE);
            assertThat(meta(refused).get("message").toString()).contains("larger than the limit of 65536 bytes");
            assertThat(w.isClosed(java.time.Duration.ofSeconds(10))).isTrue();
        }
        try (BoltWire w = login(5, 4)) { // after it, the configured limit (64 MiB by default)
            w.send(BoltWire.run("RETURN size($s) AS n", map("s", "x".repeat(100_000)), map()), BoltWire.pullAll());
            assertThat(pulled(w).getFirst().fields().getFirst()).isEqualTo(List.of(100_000L));
        }
    }

    @Test
    void aProtocolViolationClosesTheConnection() throws IOException {
        try (BoltWire w = login(5, 4)) {
            w.send(BoltWire.commit());
            Struct failure = w.receive();
            assertThat(failure.tag()).isEqualTo((byte) FAILURE);
            assertThat(meta(failure)).containsEntry("code", "Neo.ClientError.Request.Invalid");
            assertThat(w.isClosed(java.time.Duration.ofSeconds(10))).isTrue();
        }
        try (BoltWire w = BoltWire.connect(s.bolt.host(), s.bolt.port())) {
            w.handshake(BoltWire.version(5, 4, 0));
            w.send(BoltWire.hello(map("user_agent", "test/1")), BoltWire.run("RETURN 1"));
            assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
            assertThat(w.receive().tag()).as("RUN before LOGON").isEqualTo((byte) FAILURE);
            assertThat(w.isClosed(java.time.Duration.ofSeconds(10))).isTrue();
        }
    }

    @Test
    void aFullSluiceAnswersTheTransientCodeDriversRetry() throws IOException {
        try (BoltWire holder = login(5, 4); BoltWire a = login(5, 4); BoltWire b = login(5, 4);
                BoltWire c = login(5, 4)) {
            holder.send(BoltWire.run("CREATE (:Full {id: 1})"), BoltWire.pullAll());
            assertThat(pulled(holder).getLast().tag()).isEqualTo((byte) SUCCESS);
            holder.send(BoltWire.begin(map()), BoltWire.run("MATCH (f:Full {id: 1}) SET f.x = 0"), BoltWire.pullAll());
            assertThat(holder.receive().tag()).isEqualTo((byte) SUCCESS);
            assertThat(pulled(holder).getLast().tag()).isEqualTo((byte) SUCCESS);
            // the open transaction holds one pending row; a write behind its lock holds the other
            a.send(BoltWire.run("MATCH (f:Full {id: 1}) SET f.x = 1"), BoltWire.pullAll());
            io.sluice.support.Await.until("a's write admitted, behind the lock", java.time.Duration.ofSeconds(30),
                    () -> s.get("/health").body().contains("\"pending_rows\":2"));
            b.send(BoltWire.run("CREATE (:Full {id: 2})"), BoltWire.pullAll());
            Struct refused = b.receive();
            assertThat(refused.tag()).isEqualTo((byte) FAILURE);
            assertThat(meta(refused)).containsEntry("code", "Neo.TransientError.Request.NoThreadsAvailable");
            assertThat(b.receive().tag()).isEqualTo((byte) IGNORED);
            holder.send(BoltWire.commit());
            assertThat(holder.receive().tag()).isEqualTo((byte) SUCCESS);
            Struct run = a.receive(); // NOOPs before it are skipped
            assertThat(run.tag()).isEqualTo((byte) SUCCESS);
            assertThat(a.receive().tag()).isEqualTo((byte) SUCCESS);
            c.send(BoltWire.run("MATCH (f:Full) RETURN f.id AS id ORDER BY id"), BoltWire.pullAll());
            assertThat(pulled(c)).as("the refused write applied nothing: one record and the summary").hasSize(2);
        }
    }
}
