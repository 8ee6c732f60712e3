package io.sluice.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.support.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Config;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.driver.Transaction;
import org.neo4j.driver.exceptions.ClientException;

/**
 * The drivers' managed transactions grouped ({@code transactions.group: true}), through the official Java driver,
 * unchanged: they share commits; a rollback, a failing statement, a lost client or a stalled one costs the others
 * nothing they could see (each transaction's work is committed exactly once, with the counters it was told); a
 * transaction of several statements is never interleaved with another; an application's own
 * {@code beginTransaction} is never grouped; bookmarks order a later read after the group's commit. Each figure read
 * from the server's metrics, so that a test passing without groups forming fails.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class GroupedTransactionsTest {
    static final String CONFIG = """
            schema:
              - CREATE CONSTRAINT grouped_item_k IF NOT EXISTS FOR (i:GroupedItem) REQUIRE i.k IS UNIQUE
            transactions: {group: true, max_open: 64, group_member_timeout: 300ms}
            """;
    static final int SESSIONS = 16;
    TestServer s;
    Driver driver;
    ExecutorService clients;

    @BeforeAll
    void start() {
        s = TestServer.start(CONFIG, true);
        driver = GraphDatabase.driver("bolt://" + s.bolt, AuthTokens.basic("neo4j", TestServer.PASSWORD),
                Config.builder().withMaxConnectionPoolSize(64).build());
        clients = Executors.newFixedThreadPool(SESSIONS);
    }

    @AfterAll
    void stop() {
        clients.shutdownNow();
        if (driver != null) {
            driver.close();
        }
        if (s != null) {
            s.close();
        }
    }

    double metric(String series) {
        return s.metric(series);
    }

    double members() {
        return metric("sluice_group_members_sum{outcome=\"committed\"}");
    }

    double groups() {
        return metric("sluice_group_members_count{outcome=\"committed\"}");
    }

    /** Runs {@code work(client, i)} for {@code n} transactions on each of {@link #SESSIONS} sessions at once. */
    void concurrently(int n, ClientWork work) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int c = 0; c < SESSIONS; c++) {
            int client = c;
            done.add(clients.submit(() -> {
                go.await();
                try (Session session = driver.session()) {
                    for (int i = 0; i < n; i++) {
                        work.run(session, client, i);
                    }
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> f : done) {
            f.get(90, TimeUnit.SECONDS);
        }
    }

    @FunctionalInterface
    interface ClientWork {
        void run(Session session, int client, int i) throws Exception;
    }

    @Test
    void concurrentExecuteWritesShareCommitsEachExactlyOnceWithItsOwnCounters() throws Exception {
        double members = members();
        double groups = groups();
        AtomicInteger created = new AtomicInteger();
        // the shared node exists before: concurrent MERGEs of a node no constraint makes unique can each create one in
        // Neo4j, grouped or not (two groups, or a group and a retry running alone, are two transactions), and a second
        // counter would make every later statement CREATE its item twice
        s.count("MERGE (c:GroupedCounter {k: 'shared'}) RETURN 1");
        concurrently(50, (session, client, i) -> {
            // every client increments one shared counter and creates a node of its own: the counters each
            // transaction is told are those of its own statement in the group's serial order
            int nodes = session.executeWrite(tx -> tx.run("MERGE (c:GroupedCounter {k: 'shared'}) SET c.n ="
                    + " coalesce(c.n, 0) + 1 CREATE (:GroupedItem {k: $k})", Map.of("k", "c" + client + "-" + i))
                    .consume().counters().nodesCreated());
            created.addAndGet(nodes);
        });
        assertThat(s.count("MATCH (i:GroupedItem) WHERE i.k STARTS WITH 'c' RETURN count(i)")).isEqualTo(800);
        assertThat(s.count("MATCH (c:GroupedCounter {k: 'shared'}) RETURN c.n")).isEqualTo(800);
        // each counted its own item, once
        assertThat(created.get()).isEqualTo(800);
        // grouped: most of them (a connection demoted by an earlier test's rollbacks runs alone for a while), with
        // fewer commits than members
        assertThat(members() - members).as("members of committed groups").isBetween(400.0, 800.0);
        assertThat(groups() - groups).as("groups: fewer commits than members").isLessThan(members() - members);
    }

    @Test
    void executableQueryJoinsGroupsAndItsBookmarkOrdersTheNextRead() throws Exception {
        double members = members();
        concurrently(20, (session, client, i) -> driver.executableQuery("CREATE (:GroupedItem {k: $k})")
                .withParameters(Map.of("k", "q" + client + "-" + i)).execute());
        assertThat(members() - members).as("members of committed groups").isBetween(160.0, 320.0);
        // executableQuery's bookmark manager: a read after the writes sees all of them
        long seen = driver.executableQuery("MATCH (i:GroupedItem) WHERE i.k STARTS WITH 'q' RETURN count(i) AS n")
                .execute().records().getFirst().get("n").asLong();
        assertThat(seen).isEqualTo(320);
    }

    @Test
    void rollbacksAndFailuresCostTheOthersNothingTheyCanSee() throws Exception {
        double evictedBefore = metric("sluice_group_evictions_total{cause=\"rollback\"}")
                + metric("sluice_group_evictions_total{cause=\"failed\"}");
        AtomicInteger committed = new AtomicInteger();
        AtomicInteger rolledBack = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        double members = members();
        concurrently(40, (session, client, i) -> {
            String k = "r" + client + "-" + i;
            int kind = (client * 7 + i) % 10; // 1 in 10 rolls back, 1 in 10 fails on the constraint
            try {
                session.executeWrite(tx -> {
                    // the failing ones take two statements: a first statement of their own, or the groups would learn
                    // that every transaction beginning like the others takes two, and run all of them alone
                    String create = "CREATE (:GroupedItem {k: $k})";
                    tx.run(kind == 1 ? create + " // and a duplicate" : create,
                            Map.of("k", kind == 1 ? "dup" + client : k)).consume();
                    if (kind == 1) { // a second node with the same key: the constraint fails it
                        tx.run("CREATE (:GroupedItem {k: $k})", Map.of("k", "dup" + client)).consume();
                    }
                    if (kind == 0) {
                        throw new IllegalStateException("rolled back on purpose");
                    }
                    return null;
                });
                committed.incrementAndGet();
            } catch (IllegalStateException e) {
                rolledBack.incrementAndGet();
            } catch (ClientException e) {
                assertThat(e.code()).isEqualTo("Neo.ClientError.Schema.ConstraintValidationFailed");
                failed.incrementAndGet();
            }
        });
        assertThat(rolledBack.get()).isEqualTo(64);
        assertThat(failed.get()).isEqualTo(64);
        assertThat(committed.get()).isEqualTo(640 - 128);
        // exactly the committed ones' nodes: none of a rolled-back or failed one, none twice (a constraint)
        assertThat(s.count("MATCH (i:GroupedItem) WHERE i.k STARTS WITH 'r' RETURN count(i)")).isEqualTo(512);
        assertThat(s.count("MATCH (i:GroupedItem) WHERE i.k STARTS WITH 'dup' RETURN count(i)")).isZero();
        assertThat(metric("sluice_group_evictions_total{cause=\"rollback\"}")
                + metric("sluice_group_evictions_total{cause=\"failed\"}") - evictedBefore)
                .as("rollbacks and failures taken out of their groups").isPositive();
        // the one-statement ones stayed grouped throughout (a connection demoted by rollbacks runs alone a while)
        assertThat(members() - members).as("members of committed groups").isGreaterThan(200.0);
    }

    @Test
    void aTransactionOfSeveralStatementsIsNeverInterleavedAndOnceKnownRunsAlone() throws Exception {
        s.count("MERGE (p:GroupedPair {k: 'p'}) SET p.a = 0, p.b = 0 RETURN 1");
        AtomicInteger torn = new AtomicInteger();
        ClientWork pair = (session, client, i) -> session.executeWrite(tx -> {
            // read a and b, then write both: another member between the two statements would make them differ. The
            // read takes the node's lock first: a plain read is read committed in Neo4j, so a retry running alone
            // could see another transaction's commit land between its reads of a and b, grouped or not
            var r = tx.run("MATCH (p:GroupedPair {k: 'p'}) SET p.reads = coalesce(p.reads, 0) + 1"
                    + " RETURN p.a AS a, p.b AS b").single();
            if (r.get("a").asLong() != r.get("b").asLong()) {
                torn.incrementAndGet();
            }
            tx.run("MATCH (p:GroupedPair {k: 'p'}) SET p.a = p.a + 1").consume();
            tx.run("MATCH (p:GroupedPair {k: 'p'}) SET p.b = p.b + 1").consume();
            return null;
        });
        concurrently(30, pair);
        assertThat(torn.get()).as("a transaction that saw another's half-done work").isZero();
        assertThat(s.count("MATCH (p:GroupedPair {k: 'p'}) RETURN p.a")).isEqualTo(480);
        assertThat(s.count("MATCH (p:GroupedPair {k: 'p'}) RETURN p.b")).isEqualTo(480);

        // its shape is known now: its transactions run alone (a member holding the turn across its client's round
        // trips would make the group wait for it), and no group commits one of them
        double members = members();
        concurrently(10, pair);
        assertThat(torn.get()).isZero();
        assertThat(s.count("MATCH (p:GroupedPair {k: 'p'}) RETURN p.a")).isEqualTo(640);
        assertThat(s.count("MATCH (p:GroupedPair {k: 'p'}) RETURN p.b")).isEqualTo(640);
        assertThat(members() - members).as("members of committed groups").isZero();
    }

    @Test
    void anApplicationsOwnTransactionIsNeverGrouped() {
        double members = members();
        try (Session session = driver.session(); Transaction tx = session.beginTransaction()) {
            tx.run("CREATE (:GroupedItem {k: 'unmanaged'})").consume();
            tx.commit();
        }
        assertThat(members()).as("members of groups").isEqualTo(members);
        assertThat(s.count("MATCH (i:GroupedItem {k: 'unmanaged'}) RETURN count(i)")).isOne();
    }

    @Test
    void aStalledMemberIsTakenOutOfItsGroupAndEveryoneCommitsExactlyOnce() throws Exception {
        double stalled = metric("sluice_group_aborts_total{cause=\"stalled\"}")
                + metric("sluice_group_evictions_total{cause=\"stalled\"}");
        AtomicInteger attempts = new AtomicInteger();
        concurrently(5, (session, client, i) -> session.executeWrite(tx -> {
            tx.run("CREATE (:GroupedItem {k: $k})", Map.of("k", "s" + client + "-" + i)).consume();
            if (client == 0 && i == 0 && attempts.getAndIncrement() == 0) {
                // the stimulus, not a synchronisation: a client silent past group_member_timeout (300 ms), once
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1500));
            }
            return null;
        }));
        assertThat(s.count("MATCH (i:GroupedItem) WHERE i.k STARTS WITH 's' RETURN count(i)")).isEqualTo(80);
        assertThat(metric("sluice_group_evictions_total{cause=\"stalled\"}") - stalled).isPositive();
    }

    @Test
    void aStatementThatCannotShareRunsAloneWithNeo4jsAnswer() {
        double members = members();
        try (Session session = driver.session()) {
            assertThatThrownBy(() -> session.executeWrite(tx -> tx.run("CREAT (n)").consume()))
                    .isInstanceOf(ClientException.class)
                    .satisfies(e -> assertThat(((ClientException) e).code())
                            .isEqualTo("Neo.ClientError.Statement.SyntaxError"));
        }
        assertThat(members()).as("members of groups").isEqualTo(members);
    }
}
