package io.sluice.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.cypher.StatementClassifier;
import io.sluice.sink.Sink;
import io.sluice.support.TestNeo4j;
import io.sluice.time.Jitter;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.TxConfig;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Rerunnable} against the real embedded Neo4j and its real deadlock detection: two write transactions lock
 * nodes A and B in opposite orders, so Neo4j picks one as the victim. Whichever it is, its statements run again
 * after the other's locks go and neither client sees an error, when its answers do not depend on the other's
 * writes; when they do, the victim's client gets Neo4j's deadlock error, and nothing of its first run or its re-run
 * is committed.
 */
@Timeout(60)
class RerunnableTest {
    static TestNeo4j neo4j;

    final ConcurrentLinkedQueue<Rerunnable.Outcome> outcomes = new ConcurrentLinkedQueue<>();
    ExecutorService pool;

    @BeforeAll
    static void startNeo4j() throws Exception {
        neo4j = TestNeo4j.start("rerunnable");
    }

    @AfterAll
    static void stopNeo4j() {
        neo4j.close();
    }

    @BeforeEach
    void setUp() {
        neo4j.database().executeTransactionally("MATCH (n) DETACH DELETE n");
        neo4j.database().executeTransactionally("CREATE (:N {id: 'A', c: 0}), (:N {id: 'B', c: 0})");
        pool = Executors.newFixedThreadPool(2, Thread.ofPlatform().name("test-rerun-", 0).factory());
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        pool.shutdownNow();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    Rerunnable begin(Duration timeout) throws GraphException {
        // reads as the gateway tells them: by the plan Neo4j makes for them
        StatementClassifier classifier = new StatementClassifier(neo4j.sink(), 100);
        return Rerunnable.begin(c -> neo4j.sink().begin(true, c), TxConfig.timeout(timeout), Time.SYSTEM, Jitter.fixed(0.5),
                outcomes::add, cypher -> classifier.classify(cypher) instanceof StatementClassifier.Classified.Ok ok
                        && ok.kind() == QueryKind.READ);
    }

    /** Sets {@code property} on node {@code id}, answering the node's id: an answer the other's writes leave alone. */
    static StatementResult set(Rerunnable tx, String id, String property) throws GraphException {
        return tx.run("MATCH (n:N {id: $id}) SET n[$p] = true RETURN n.id AS id", Map.of("id", id, "p", property));
    }

    /** Counts on node {@code id}, answering the count: an answer that depends on whoever counted before. */
    static StatementResult count(Rerunnable tx, String id) throws GraphException {
        return tx.run("MATCH (n:N {id: $id}) SET n.c = n.c + 1 RETURN n.c AS c", Map.of("id", id));
    }

    /**
     * The deadlock: {@code one} has run {@code first} on A, {@code two} on B; {@code one} then runs {@code second}
     * on B (on another thread, waiting for two's lock) and {@code two} on A. Each, once its statement returns,
     * commits. Returns each one's outcome: null for a commit, else the error it got.
     */
    List<GraphException> deadlock(Rerunnable one, Rerunnable two, Step second) throws Exception {
        CompletableFuture<GraphException> first = CompletableFuture.supplyAsync(() -> finish(one, "B", second), pool);
        // one waits for B's lock, held by two; two then asks for A's, held by one: a cycle Neo4j breaks
        awaitWaiting();
        GraphException other = finish(two, "A", second);
        return Arrays.asList(first.get(30, TimeUnit.SECONDS), other);
    }

    interface Step {
        void run(Rerunnable tx, String node) throws GraphException;
    }

    static GraphException finish(Rerunnable tx, String node, Step second) {
        try {
            second.run(tx, node);
            tx.commit();
            return null;
        } catch (GraphException e) {
            tx.rollback();
            return e;
        }
    }

    /** Until a transaction waits for a lock (Neo4j's own view), bounded by the test's timeout. */
    static void awaitWaiting() throws InterruptedException {
        while (true) {
            long waiting = (long) neo4j.database().executeTransactionally("SHOW TRANSACTIONS YIELD status"
                    + " WHERE status STARTS WITH 'Blocked' RETURN count(*) AS n", Map.of(),
                    r -> r.next().get("n"));
            if (waiting > 0) {
                return;
            }
            Thread.sleep(5); // polling Neo4j's own state, not timing the test
        }
    }

    @Test
    void victimRunsAgainUnseenWhenItsAnswersAreTheSame() throws Exception {
        Rerunnable one = begin(null);
        Rerunnable two = begin(null);
        set(one, "A", "one");
        set(two, "B", "two");

        List<GraphException> errors = deadlock(one, two, (tx, node) ->
                set(tx, node, tx == one ? "one" : "two"));

        assertThat(errors).containsOnlyNulls();
        assertThat(outcomes).containsExactly(Rerunnable.Outcome.RERUN);
        Object all = neo4j.database().executeTransactionally("MATCH (n:N) WHERE n.one AND n.two RETURN count(*) AS n",
                Map.of(), r -> r.next().get("n"));
        assertThat(all).isEqualTo(2L); // both transactions' writes to both nodes, committed
    }

    @Test
    void aTimeoutOfZeroIsNoneAndTheVictimStillRunsAgain() throws Exception { // as Neo4j and the drivers take 0
        Rerunnable one = begin(Duration.ZERO);
        Rerunnable two = begin(Duration.ZERO);
        set(one, "A", "one");
        set(two, "B", "two");

        List<GraphException> errors = deadlock(one, two, (tx, node) -> set(tx, node, tx == one ? "one" : "two"));

        assertThat(errors).containsOnlyNulls();
        assertThat(outcomes).containsExactly(Rerunnable.Outcome.RERUN);
    }

    @Test
    void victimWhoseAnswerWouldDifferGetsNeo4jsDeadlockError() throws Exception {
        Rerunnable one = begin(null);
        Rerunnable two = begin(null);
        count(one, "A");
        count(two, "B");

        List<GraphException> errors = deadlock(one, two, (tx, node) -> count(tx, node));

        assertThat(errors).filteredOn(e -> e != null).singleElement()
                .satisfies(e -> assertThat(e.error().code()).isEqualTo(Neo4jStatus.Transaction.DEADLOCK_DETECTED));
        assertThat(outcomes).containsExactly(Rerunnable.Outcome.ANSWER_DIFFERED);
        // the survivor counted each node once; nothing of the victim's first run or its re-run was committed
        Object counts = neo4j.database().executeTransactionally("MATCH (n:N) RETURN sum(n.c) AS c, max(n.c) AS m",
                Map.of(), r -> {
                    Map<String, Object> row = r.next();
                    return row.get("c") + "/" + row.get("m");
                });
        assertThat(counts).isEqualTo("2/1");
    }

    /** Reads every count: a read whose answer whoever counts before it changes. */
    static StatementResult readCounts(Rerunnable tx) throws GraphException {
        return tx.run("MATCH (n:N) RETURN sum(n.c) AS c", Map.of());
    }

    @Test
    void aReadBeforeTheFirstWriteMayDifferOnTheRerunAsReadCommittedLetsIt() throws Exception {
        Rerunnable one = begin(null);
        Rerunnable two = begin(null);
        assertThat(readCounts(one).rows()).containsExactly(List.of(0L)); // read, decide, then write: an OGM's shape
        assertThat(readCounts(two).rows()).containsExactly(List.of(0L));
        set(one, "A", "one");
        set(two, "B", "two");

        List<GraphException> errors = deadlock(one, two, (tx, node) -> count(tx, node));

        assertThat(errors).containsOnlyNulls(); // the victim's leading read now sees the winner's count: let through
        assertThat(outcomes).containsExactly(Rerunnable.Outcome.RERUN);
        Object counts = neo4j.database().executeTransactionally("MATCH (n:N) RETURN sum(n.c) AS c", Map.of(),
                r -> r.next().get("c"));
        assertThat(counts).isEqualTo(2L); // each counted once: the winner's and the victim's re-run
    }

    @Test
    void aReadAfterTheFirstWriteMustAnswerTheSame() throws Exception {
        Rerunnable one = begin(null);
        Rerunnable two = begin(null);
        set(one, "A", "one");
        set(two, "B", "two");
        readCounts(one); // after its own write: it may depend on it, which the re-run may make otherwise
        readCounts(two);

        List<GraphException> errors = deadlock(one, two, (tx, node) -> count(tx, node));

        assertThat(errors).filteredOn(e -> e != null).singleElement()
                .satisfies(e -> assertThat(e.error().code()).isEqualTo(Neo4jStatus.Transaction.DEADLOCK_DETECTED));
        assertThat(outcomes).containsExactly(Rerunnable.Outcome.ANSWER_DIFFERED);
    }

    @Test
    void aDeadlockAtCommitRunsTheTransactionAgainAndCommitsIt() throws Exception {
        // Neo4j takes some locks only at COMMIT; its deadlock there is told before anything is applied. The first
        // transaction begun here fails its commit so (and is rolled back), the next ones are the database's own
        AtomicInteger begun = new AtomicInteger();
        Rerunnable tx = Rerunnable.begin(t -> {
            Sink.OpenTx real = neo4j.sink().begin(true, t);
            return begun.getAndIncrement() > 0 ? real : new Sink.OpenTx() {
                @Override
                public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
                    return real.run(cypher, params);
                }

                @Override
                public void commit() throws GraphException {
                    real.rollback();
                    throw new GraphException(new Neo4jError(Neo4jStatus.Transaction.DEADLOCK_DETECTED,
                            "ForsetiClient can't acquire ExclusiveLock, because holders of that lock are waiting"
                                    + " for ForsetiClient"), null);
                }

                @Override
                public void rollback() {
                    real.rollback();
                }
            };
        }, TxConfig.NONE, Time.SYSTEM, Jitter.fixed(0.5), outcomes::add);
        set(tx, "A", "one");

        tx.commit();

        assertThat(begun.get()).isEqualTo(2);
        assertThat(outcomes).containsExactly(Rerunnable.Outcome.RERUN);
        Object a = neo4j.database().executeTransactionally("MATCH (n:N {id: 'A'}) RETURN n.one AS one", Map.of(),
                r -> r.next().get("one"));
        assertThat(a).isEqualTo(true);
    }

    @Test
    void transactionTooLargeToKeepGetsNeo4jsDeadlockError() throws Exception {
        Rerunnable one = begin(null);
        Rerunnable two = begin(null);
        for (int i = 0; i <= Rerunnable.MAX_STATEMENTS; i++) { // both past the log's bound: whichever is the victim
            set(one, "A", "one");
            set(two, "B", "two");
        }

        List<GraphException> errors = deadlock(one, two, (tx, node) -> set(tx, node, tx == one ? "one" : "two"));

        assertThat(errors).filteredOn(e -> e != null).singleElement()
                .satisfies(e -> assertThat(e.error().code()).isEqualTo(Neo4jStatus.Transaction.DEADLOCK_DETECTED));
        assertThat(outcomes).containsExactly(Rerunnable.Outcome.NOT_RERUN);
    }
}
