package io.sluice.apply;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Config;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.driver.Transaction;
import org.neo4j.driver.TransactionConfig;
import org.neo4j.driver.exceptions.Neo4jException;

/**
 * One open transaction must not stall everyone's writes (issue 35, item 1). With the official Java driver, the same
 * sequence against Neo4j's own Bolt server and against sluice: a client opens a transaction and updates node 1, and
 * stays open; another client's auto-commit write to node 1 waits for that lock; then six clients write six unrelated
 * new nodes. The six must finish (through sluice within 100 ms of Neo4j's latency; over a Neo4j server, of the larger
 * of that and the six's own through sluice with nothing held, the hop's cost) while the holder is still open;
 * the blocked write waits until the holder ends and then gets Neo4j's answer, the graph ending the same. Through
 * sluice: embedded (default, and with grouping on; the holder a driver's transaction, or a Query API one), and over
 * the Neo4j server itself (its holder a client of that server, bypassing sluice). Each side runs the sequence once
 * before the measured run. The control: with {@code apply.set_aside_after: 0} the six wait with the blocked write,
 * as before, so the test can tell.
 */
@Timeout(300)
class BlockedWriteTest {
    private static final String LOCKED = "MATCH (n:Probe {id: 1}) SET n.v = n.v + 10";
    /** How long the six unrelated writes are given before they count as held up. */
    private static final Duration HELD_UP = Duration.ofSeconds(3);
    /** How much slower than Neo4j's the unrelated writes may be through sluice. */
    private static final long SLACK_MS = 100;

    private static final ObjectMapper JSON = new ObjectMapper();

    static Path dir;
    static Neo4jProcess neo4j;
    static Driver direct;
    static ExecutorService clients = Executors.newCachedThreadPool();

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-blocked-");
        neo4j = Neo4jProcess.start(dir.resolve("neo4j"), TestServer.freePort(), "neo4j/" + TestServer.PASSWORD);
        direct = driver("bolt://127.0.0.1:" + neo4j.port);
    }

    @AfterAll
    static void stop() {
        clients.shutdownNow();
        try {
            if (direct != null) {
                direct.close();
            }
            if (neo4j != null) {
                neo4j.close();
            }
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }

    static Driver driver(String uri) {
        return GraphDatabase.driver(uri, AuthTokens.basic("neo4j", TestServer.PASSWORD),
                Config.builder().withMaxConnectionPoolSize(16).build());
    }

    /** Whoever holds node 1's lock: a client's open transaction. */
    interface Holder {
        /** Opens the transaction and locks node 1 with {@code cypher}. */
        void lock(String cypher) throws Exception;

        /** Ends it: "ok", or the error code its commit or rollback failed with. */
        String end(boolean commit) throws Exception;

        /** Its timeout, when it times out on its own (then the locked write goes on before it ends); else null. */
        default Duration timeout() {
            return null;
        }
    }

    /** A driver's unmanaged transaction ({@code beginTransaction}), begun with {@code config}. */
    static Holder bolt(Driver d, TransactionConfig config) {
        return new Holder() {
            Session session;
            Transaction tx;

            @Override
            public void lock(String cypher) {
                session = d.session();
                tx = session.beginTransaction(config);
                tx.run(cypher).consume();
            }

            @Override
            public String end(boolean commit) {
                try {
                    return answer(commit ? tx::commit : tx::rollback);
                } finally {
                    session.close();
                }
            }

            @Override
            public Duration timeout() {
                return config.timeout();
            }
        };
    }

    /** A Query API transaction on sluice's HTTP port. */
    static Holder http(TestServer sluice) {
        return new Holder() {
            String id;

            @Override
            public void lock(String cypher) throws Exception {
                HttpResponse<String> open = sluice.post("/db/neo4j/query/v2/tx", "{\"statement\": \"" + cypher + "\"}");
                assertThat(open.statusCode()).as(open.body()).isEqualTo(202);
                id = JSON.readTree(open.body()).at("/transaction/id").asText();
            }

            @Override
            public String end(boolean commit) throws Exception {
                HttpResponse<String> r = commit ? sluice.post("/db/neo4j/query/v2/tx/" + id + "/commit", "{}")
                        : sluice.send(HttpRequest.newBuilder(URI.create(sluice.url("/db/neo4j/query/v2/tx/" + id)))
                                .header("Authorization", TestServer.AUTH).DELETE().build());
                if (r.statusCode() / 100 == 2) {
                    return "ok";
                }
                return JSON.readTree(r.body()).at("/errors/0/code").asText();
            }
        };
    }

    /** What one run of the sequence saw. {@code unrelatedMs} is -1 when the six were held up past {@link #HELD_UP}. */
    record Probe(long unrelatedMs, boolean blockedWaitedForHolder, String holderEnd, String blockedAnswer, long v) {}

    @Test
    void unrelatedWritesGoOnWhileAWriteWaitsForAnOpenTransaction() throws Exception {
        Probe reference = probe(direct, direct, TransactionConfig.empty(), true);
        assertThat(reference.unrelatedMs()).as("Neo4j: the six unrelated writes").isBetween(0L, 2_000L);
        assertThat(reference.blockedWaitedForHolder()).as("Neo4j: the locked write waits for the holder").isTrue();
        for (String yaml : new String[] {"transactions: {group: false}\n", ""}) { // ungrouped; the default
            try (TestServer sluice = TestServer.start(yaml, true); Driver d = driver("bolt://" + sluice.bolt)) {
                Probe p = probe(d, d, TransactionConfig.empty(), true);
                assertLike(p, reference, "sluice " + (yaml.isEmpty() ? "(default)" : yaml.trim()));
                p = probe(http(sluice), d, d, true);
                assertLike(p, reference, "sluice " + (yaml.isEmpty() ? "(default)" : yaml.trim())
                        + ", the holder a Query API transaction");
                assertThat(sluice.metric("sluice_writes_set_aside_total")).as("the blocked write set aside")
                        .isGreaterThanOrEqualTo(1);
            }
        }
    }

    @Test
    void overANeo4jServerALockHeldByItsOwnClientsHoldsUpOnlyTheWriteThatNeedsIt() throws Exception {
        Probe reference = probe(direct, direct, TransactionConfig.empty(), false);
        try (TestServer sluice = TestServer.startRemoteWithBolt("", "bolt://127.0.0.1:" + neo4j.port, "neo4j",
                TestServer.PASSWORD); Driver d = driver("bolt://" + sluice.bolt)) {
            // through sluice the six cross one more hop, held or not: what they take when nothing is held counts too
            long alone = unheld(d);
            Probe p = probe(direct, d, TransactionConfig.empty(), false);
            assertLike(p, new Probe(Math.max(reference.unrelatedMs(), alone), reference.blockedWaitedForHolder(),
                    reference.holderEnd(), reference.blockedAnswer(), reference.v()),
                    "sluice over Neo4j, the holder Neo4j's own client (the six alone through it: " + alone + " ms)");
        }
    }

    @Test
    void theHoldersTimeoutEndsItAsNeo4jDoes() throws Exception {
        TransactionConfig timeout = TransactionConfig.builder().withTimeout(Duration.ofMillis(250)).build();
        Probe reference = probe(direct, direct, timeout, true);
        assertThat(reference.holderEnd()).as("Neo4j ended the holder").startsWith("Neo.ClientError.Transaction.");
        try (TestServer sluice = TestServer.start("", true); Driver d = driver("bolt://" + sluice.bolt)) {
            Probe p = probe(d, d, timeout, true);
            assertLike(p, reference, "sluice, the holder with tx_timeout 250 ms");
        }
    }

    @Test
    void withoutSettingAsideTheUnrelatedWritesWaitWithTheBlockedOne() throws Exception {
        try (TestServer sluice = TestServer.start("apply: {set_aside_after: 0}\n", true);
                Driver d = driver("bolt://" + sluice.bolt)) {
            Probe p = probe(d, d, TransactionConfig.empty(), true);
            assertThat(p.unrelatedMs()).as("held up behind the blocked write, as before set-aside").isEqualTo(-1);
            assertThat(p.blockedAnswer()).isEqualTo("ok");
            assertThat(p.v()).isEqualTo(11);
        }
    }

    private static void assertLike(Probe p, Probe reference, String what) {
        assertThat(p.unrelatedMs()).as(what + ": the six unrelated writes, ms (Neo4j: %d)", reference.unrelatedMs())
                .isBetween(0L, reference.unrelatedMs() + SLACK_MS);
        assertThat(p.blockedWaitedForHolder()).as(what + ": the locked write waits for the holder")
                .isEqualTo(reference.blockedWaitedForHolder());
        assertThat(p.holderEnd()).as(what + ": the holder's end").isEqualTo(reference.holderEnd());
        assertThat(p.blockedAnswer()).as(what + ": the locked write's answer").isEqualTo(reference.blockedAnswer());
        assertThat(p.v()).as(what + ": node 1 after").isEqualTo(reference.v());
    }

    /**
     * The sequence: {@code holder} (a client of {@code holderDriver}, begun with {@code config}) locks node 1 and
     * stays open; a client of {@code writers} writes node 1 and waits; six of its clients write unrelated nodes. Then
     * the holder ends ({@code commit}, or rollback; a holder with a timeout is first left to time out: the locked
     * write's answer is awaited before it ends).
     */
    private static Probe probe(Driver holderDriver, Driver writers, TransactionConfig config, boolean commit)
            throws Exception {
        return probe(bolt(holderDriver, config), holderDriver, writers, commit);
    }

    /**
     * As above, with {@code holder} holding the lock; {@code watcher} shows the server's transactions. The sequence
     * runs twice, the second measured: the first warms both sides' paths (a lock watch's looks included).
     */
    private static Probe probe(Holder holder, Driver watcher, Driver writers, boolean commit) throws Exception {
        once(holder, watcher, writers, commit);
        return once(holder, watcher, writers, commit);
    }

    private static Probe once(Holder holder, Driver watcher, Driver writers, boolean commit) throws Exception {
        try (Session s = writers.session()) {
            s.run("MATCH (n) DETACH DELETE n").consume();
            s.run("CREATE (:Probe {id: 1, v: 0})").consume();
        }
        // the same statements once first, on both sides: connections made, statements planned (and classified)
        List<Future<Long>> warm = six(writers);
        for (Future<Long> f : warm) {
            f.get(60, TimeUnit.SECONDS);
        }
        try (Session s = writers.session()) {
            s.run(LOCKED).consume();
            s.run("MATCH (n:Other) DELETE n").consume();
            s.run("MATCH (n:Probe {id: 1}) SET n.v = 0").consume();
        }
        long began = System.nanoTime(); // the holder's timeout, if any, runs from its begin: after this
        holder.lock("MATCH (n:Probe {id: 1}) SET n.v = 1");
        AtomicLong blockedEnded = new AtomicLong();
        Future<String> blocked = clients.submit(() -> {
            try {
                return answer(() -> {
                    try (Session s = writers.session()) {
                        s.run(LOCKED).consume();
                    }
                });
            } finally {
                blockedEnded.set(System.nanoTime());
            }
        });
        awaitBlocked(watcher, blocked);
        List<Future<Long>> six = six(writers);
        long unrelated = 0;
        long deadline = System.nanoTime() + HELD_UP.toNanos();
        for (Future<Long> f : six) {
            try {
                unrelated = Math.max(unrelated, f.get(Math.max(1, deadline - System.nanoTime()),
                        TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                unrelated = -1;
                break;
            }
        }
        boolean waited = !blocked.isDone();
        String blockedAnswer = null;
        if (holder.timeout() != null) { // the holder times out on its own: the locked write goes on then
            blockedAnswer = blocked.get(60, TimeUnit.SECONDS);
            // it waited for the holder if it ended no sooner than the holder's timeout could: the six may take
            // longer than that timeout on loaded cores, so whether it is still waiting once they end tells nothing
            waited = blockedEnded.get() - began >= holder.timeout().toNanos();
        }
        String holderEnd = holder.end(commit);
        if (blockedAnswer == null) {
            blockedAnswer = blocked.get(60, TimeUnit.SECONDS);
        }
        for (Future<Long> f : six) {
            f.get(60, TimeUnit.SECONDS); // held up ones go on once the holder has ended
        }
        try (Session s = writers.session()) {
            long v = s.run("MATCH (n:Probe {id: 1}) RETURN n.v AS v").single().get("v").asLong();
            long others = s.run("MATCH (n:Other) RETURN count(n) AS c").single().get("c").asLong();
            assertThat(others).as("every unrelated write applied once").isEqualTo(6);
            return new Probe(unrelated, waited, holderEnd, blockedAnswer, v);
        }
    }

    /** The six unrelated writes' latency (ms, the slowest) with nothing held, the second of two rounds. */
    private static long unheld(Driver writers) throws Exception {
        long slowest = 0;
        for (int round = 0; round < 2; round++) {
            slowest = 0;
            for (Future<Long> f : six(writers)) {
                slowest = Math.max(slowest, f.get(60, TimeUnit.SECONDS));
            }
        }
        try (Session s = writers.session()) {
            s.run("MATCH (n:Other) DELETE n").consume();
        }
        return slowest;
    }

    /** Six clients each writing an unrelated new node at once: each one's latency, ms. */
    private static List<Future<Long>> six(Driver writers) {
        List<Future<Long>> six = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            int n = i;
            six.add(clients.submit(() -> {
                long t0 = System.nanoTime();
                try (Session s = writers.session()) {
                    s.run("CREATE (:Other {i: $i})", Map.of("i", n)).consume();
                }
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            }));
        }
        return six;
    }

    /** Waits (bounded) until the server shows a transaction blocked by another's lock. */
    private static void awaitBlocked(Driver d, Future<String> blocked) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try (Session s = d.session()) {
                if (s.run("SHOW TRANSACTIONS YIELD status WHERE status STARTS WITH 'Blocked by' RETURN count(*) AS n")
                        .single().get("n").asLong() > 0) {
                    return;
                }
            }
            assertThat(blocked.isDone()).as("the locked write ended before it waited: %s",
                    blocked.isDone() ? blocked.get() : "").isFalse();
            assertThat(System.nanoTime()).as("a blocked transaction within 30 s").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** "ok", or the Neo4j error code the call failed with. */
    private static String answer(Callable0 call) {
        try {
            call.call();
            return "ok";
        } catch (Neo4jException e) {
            return e.code();
        }
    }

    @FunctionalInterface
    private interface Callable0 {
        void call();
    }
}
