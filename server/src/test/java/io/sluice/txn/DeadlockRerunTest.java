package io.sluice.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import io.sluice.vocab.Neo4jStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.driver.Transaction;
import org.neo4j.driver.exceptions.Neo4jException;

/**
 * No deadlock reaches a client whose transactions would not deadlock run one at a time (issue 35, item 2), for the
 * transactions a caller may not retry: two of the official Java driver's unmanaged transactions
 * ({@code beginTransaction}) lock nodes A and B in opposite orders. Against Neo4j's own Bolt server one of them gets
 * {@code DeadlockDetected}; through sluice (embedded, grouped, and over that Neo4j server) both commit, the graph
 * holding both transactions' writes, the victim's statements re-run unseen ({@link Rerunnable}).
 */
@Timeout(180)
class DeadlockRerunTest {
    static Path dir;
    static Neo4jProcess neo4j;
    static ExecutorService clients = Executors.newCachedThreadPool(Thread.ofPlatform().name("test-deadlock-", 0)
            .factory());

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-deadlock-");
        neo4j = Neo4jProcess.start(dir.resolve("neo4j"), TestServer.freePort(), "neo4j/" + TestServer.PASSWORD);
    }

    @AfterAll
    static void stop() {
        clients.shutdownNow();
        try {
            if (neo4j != null) {
                neo4j.close();
            }
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }

    static Driver driver(String address) {
        return GraphDatabase.driver("bolt://" + address, AuthTokens.basic("neo4j", TestServer.PASSWORD));
    }

    /**
     * The two transactions, through {@code d}: "ok" for each that committed, else its error's code; the graph's
     * nodes with both transactions' marks after.
     */
    static Race race(Driver d) throws Exception {
        try (Session s = d.session()) {
            s.run("MATCH (n:D) DETACH DELETE n").consume();
            s.run("CREATE (:D {id: 'A'}), (:D {id: 'B'})").consume();
        }
        Session s1 = d.session();
        Session s2 = d.session();
        try {
            Transaction one = s1.beginTransaction();
            Transaction two = s2.beginTransaction();
            mark(one, "A", "one");
            mark(two, "B", "two");
            // one waits for B's lock, held by two; two then asks for A's, held by one: a cycle
            CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> finish(one, "B", "one"), clients);
            awaitBlocked(d);
            String second = finish(two, "A", "two");
            List<String> answers = List.of(first.get(60, TimeUnit.SECONDS), second);
            try (Session s = d.session()) {
                long both = s.run("MATCH (n:D) WHERE n.one AND n.two RETURN count(*) AS n").single().get("n").asLong();
                return new Race(answers, both);
            }
        } finally {
            s1.close();
            s2.close();
        }
    }

    record Race(List<String> answers, long markedByBoth) {}

    static void mark(Transaction tx, String node, String who) {
        tx.run("MATCH (n:D {id: $id}) SET n[$who] = true RETURN n.id", java.util.Map.of("id", node, "who", who))
                .consume();
    }

    static String finish(Transaction tx, String node, String who) {
        try {
            mark(tx, node, who);
            tx.commit();
            return "ok";
        } catch (Neo4jException e) {
            tx.close();
            return e.code();
        }
    }

    /** Until a transaction waits for a lock, as the server reports it (bounded by the test's timeout). */
    static void awaitBlocked(Driver d) throws InterruptedException {
        while (true) {
            try (Session s = d.session()) {
                long blocked = s.run("SHOW TRANSACTIONS YIELD status WHERE status STARTS WITH 'Blocked'"
                        + " RETURN count(*) AS n").single().get("n").asLong();
                if (blocked > 0) {
                    return;
                }
            }
            Thread.sleep(5); // polling the server's own state, not timing the test
        }
    }

    @Test
    void neo4jItselfAnswersOneOfThemDeadlockDetected() throws Exception {
        try (Driver d = driver("127.0.0.1:" + neo4j.port)) {
            Race r = race(d);
            assertThat(r.answers()).containsExactlyInAnyOrder("ok", Neo4jStatus.Transaction.DEADLOCK_DETECTED);
            assertThat(r.markedByBoth()).isZero(); // the victim's writes are gone
        }
    }

    @Test
    void throughSluiceBothCommit() throws Exception {
        for (String yaml : List.of("transactions: {group: false}\n", "")) { // real transactions; grouped (the default)
            try (TestServer sluice = TestServer.start(yaml, true); Driver d = driver(sluice.bolt.toString())) {
                Race r = race(d);
                assertThat(r.answers()).as(yaml).containsExactly("ok", "ok");
                assertThat(r.markedByBoth()).as(yaml).isEqualTo(2);
                assertThat(sluice.metric("sluice_transactions_deadlocks_total{outcome=\"rerun\"}")).as(yaml)
                        .isEqualTo(1.0);
            }
        }
    }

    @Test
    void throughSluiceOverNeo4jBothCommit() throws Exception {
        try (TestServer sluice = TestServer.startRemoteWithBolt("", "bolt://127.0.0.1:" + neo4j.port, "neo4j",
                TestServer.PASSWORD); Driver d = driver(sluice.bolt.toString())) {
            Race r = race(d);
            assertThat(r.answers()).containsExactly("ok", "ok");
            assertThat(r.markedByBoth()).isEqualTo(2);
        }
    }

    @Test
    void aManagedTransactionOfAKnownShapeAndAnUnmanagedOneBothCommitAndTheFunctionRunsOnce() throws Exception {
        try (TestServer sluice = TestServer.start("transactions: {group: true}\n", true);
                Driver d = driver(sluice.bolt.toString())) {
            try (Session s = d.session()) {
                s.run("CREATE (:D {id: 'A'}), (:D {id: 'B'})").consume();
            }
            AtomicInteger calls = new AtomicInteger();
            try (Session s = d.session()) { // the groups learn the function's shape: it runs alone from then on
                s.executeWrite(tx -> twoMarks(tx, "warm"));
            }
            try (Session s1 = d.session(); Session s2 = d.session()) {
                Transaction one = s1.beginTransaction();
                mark(one, "A", "one");
                // two, a managed first attempt of a shape known to take two statements (so not grouped: a real
                // transaction, re-run on a deadlock), marks B, then waits for A's lock, held by one
                CompletableFuture<String> two = CompletableFuture.supplyAsync(() -> {
                    try {
                        return s2.executeWrite(tx -> {
                            calls.incrementAndGet();
                            return twoMarks(tx, "two");
                        });
                    } catch (Neo4jException e) {
                        return e.code();
                    }
                }, clients);
                awaitBlocked(d);
                assertThat(finish(one, "B", "one")).isEqualTo("ok"); // one asks for B, held by two: a cycle
                assertThat(two.get(60, TimeUnit.SECONDS)).isEqualTo("ok");
            }
            assertThat(calls.get()).as("the driver never retried: sluice recovered").isEqualTo(1);
            try (Session s = d.session()) {
                assertThat(s.run("MATCH (n:D) WHERE n.one AND n.two RETURN count(*) AS n").single().get("n").asLong())
                        .isEqualTo(2);
            }
            double rerun = sluice.metric("sluice_transactions_deadlocks_total{outcome=\"rerun\"}");
            double replayed = sluice.metric("sluice_group_replayed_statements_total");
            assertThat(rerun + replayed).as("one of the two ran again").isGreaterThanOrEqualTo(1);
        }
    }

    /** Marks B, then A, as {@code who}: a managed transaction of two statements. */
    static String twoMarks(org.neo4j.driver.TransactionContext tx, String who) {
        tx.run("MATCH (n:D {id: 'B'}) SET n[$who] = true RETURN n.id", java.util.Map.of("who", who)).consume();
        tx.run("MATCH (n:D {id: 'A'}) SET n[$who] = true RETURN n.id", java.util.Map.of("who", who)).consume();
        return "ok";
    }
}
