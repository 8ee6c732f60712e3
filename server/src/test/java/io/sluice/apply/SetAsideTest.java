package io.sluice.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.batch.Pending;
import io.sluice.cypher.Coalescing;
import io.sluice.metrics.Metrics;
import io.sluice.support.TestNeo4j;
import io.sluice.time.Jitter;
import io.sluice.time.Time;
import io.sluice.write.Outcome;
import io.sluice.write.Statement;
import io.sluice.write.WriteRequest.CypherRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;

/**
 * The batch runner's set-aside (issue 35, item 1), against the real embedded Neo4j and the real lock watch: a
 * transaction opened straight on the database holds node 1's lock; a batch with a write to node 1 among others
 * must commit the others while node 1's waits alone, and that one must commit once the holder ends. Coalesced
 * requests that wait are run each on their own to find the one; a wait for another batch, and an ordered batch's
 * wait, are never set aside.
 */
@Timeout(60)
class SetAsideTest {
    private static final Duration AFTER = Duration.ofMillis(20);

    static TestNeo4j neo4j;

    final AtomicInteger setAside = new AtomicInteger();
    final Metrics counting = new Metrics() {
        @Override
        public void setAside(int requests) {
            setAside.addAndGet(requests);
        }
    };
    LockWatch watch;
    SetAside aside;
    BatchRunner runner;
    Transaction holder;

    @BeforeAll
    static void startNeo4j() throws Exception {
        neo4j = TestNeo4j.start("set-aside");
    }

    @AfterAll
    static void stopNeo4j() {
        neo4j.close();
    }

    @BeforeEach
    void setUp() {
        neo4j.database().executeTransactionally("MATCH (n) DETACH DELETE n");
        neo4j.database().executeTransactionally("UNWIND range(1, 5) AS id CREATE (:K {id: id, n: 0})");
        watch = LockWatch.start(AFTER, Time.SYSTEM, Thread.ofPlatform().name("test-lock-watch").factory());
        aside = new SetAside(Thread.ofVirtual().name("test-aside-", 0).factory(), Duration.ofSeconds(10));
        runner = new BatchRunner(neo4j.sink(), new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(5)),
                Time.SYSTEM, Jitter.fixed(0.5), counting, true, new Coalescing(neo4j.sink(), 100), watch, aside);
    }

    @AfterEach
    void tearDown() {
        if (holder != null) {
            holder.close(); // rolls back if still open
        }
        aside.close();
        watch.close();
    }

    /** A transaction straight on the database that holds node {@code id}'s lock; marked as a batch's if asked. */
    private void hold(int id, boolean asBatch) {
        holder = neo4j.database().beginTx();
        if (asBatch) {
            ((InternalTransaction) holder).setMetaData(Map.of("sluice", "batch"));
        }
        holder.execute("MATCH (k:K {id: $id}) SET k.held = true", Map.of("id", id)).close();
    }

    private static Pending write(String cypher, Map<String, Object> params) {
        return new Pending(new CypherRequest(List.of(new Statement(cypher, params)), 20, false), 0);
    }

    private static Pending bump(int id) {
        return write("MATCH (k:K {id: $id}) SET k.n = k.n + 1", Map.of("id", id));
    }

    private static Pending create(int i) {
        return write("CREATE (:Other {i: $i})", Map.of("i", i));
    }

    /** Applies {@code batch} on a thread of its own; the future ends when apply returns. */
    private CompletableFuture<Void> apply(List<Pending> batch, BatchRunner.Hooks hooks) {
        return CompletableFuture.runAsync(() -> runner.apply(batch, hooks),
                Executors.newVirtualThreadPerTaskExecutor());
    }

    private static long count(String cypher) {
        return (Long) neo4j.database().executeTransactionally(cypher, Map.of(),
                r -> r.next().values().iterator().next());
    }

    @Test
    void aWriteThatWaitsForAnOpenTransactionWaitsAloneAndTheRestCommits() throws Exception {
        hold(1, false);
        List<Pending> batch = new ArrayList<>(List.of(create(0), create(1), bump(1), create(2), create(3)));
        apply(batch, BatchRunner.Hooks.NONE).get(10, TimeUnit.SECONDS); // returns while node 1 is held
        for (Pending p : List.of(batch.get(0), batch.get(1), batch.get(3), batch.get(4))) {
            assertThat(p.future()).isCompletedWithValueMatching(o -> o instanceof Outcome.Committed);
        }
        assertThat(count("MATCH (o:Other) RETURN count(o)")).isEqualTo(4);
        assertThat(batch.get(2).future()).as("the write to node 1 waits for the holder").isNotDone();
        assertThat(setAside).hasValue(1);

        holder.commit();
        assertThat(batch.get(2).future().get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Committed.class);
        assertThat(count("MATCH (k:K {id: 1}) WHERE k.held RETURN k.n")).as("after the holder, once").isEqualTo(1);
    }

    @Test
    void coalescedWritesThatWaitRunEachOnTheirOwnSoOnlyTheOneThatWaitsIsHeld() throws Exception {
        hold(3, false);
        List<Pending> batch = List.of(bump(1), bump(2), bump(3), bump(4), bump(5)); // one statement: coalesced
        apply(batch, BatchRunner.Hooks.NONE).get(10, TimeUnit.SECONDS);
        // the coalesced statement's five were set aside together, then run each alone: four commit, one waits
        assertThat(CompletableFuture.allOf(batch.get(0).future(), batch.get(1).future(), batch.get(3).future(),
                batch.get(4).future())).succeedsWithin(Duration.ofSeconds(10));
        assertThat(batch.get(2).future()).isNotDone();
        assertThat(count("MATCH (k:K) WHERE k.id <> 3 AND k.n = 1 RETURN count(k)")).isEqualTo(4);
        assertThat(setAside).hasValue(6); // five, then the one of them

        holder.commit();
        assertThat(batch.get(2).future().get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Committed.class);
        assertThat(count("MATCH (k:K) WHERE k.n = 1 RETURN count(k)")).as("each once").isEqualTo(5);
    }

    @Test
    void aWaitForAnotherBatchsLockIsNotSetAside() throws Exception {
        hold(1, true);
        List<Pending> batch = List.of(create(0), bump(1));
        CompletableFuture<Void> applied = apply(batch, BatchRunner.Hooks.NONE);
        awaitBlocked();
        // five of the watch's looks at least, and still the whole batch waits
        assertThat(applied).failsWithin(Duration.ofMillis(5 * AFTER.toMillis()));
        assertThat(setAside).hasValue(0);

        holder.commit();
        applied.get(10, TimeUnit.SECONDS);
        assertThat(batch).allMatch(p -> p.future().join() instanceof Outcome.Committed);
    }

    @Test
    void anOrderedBatchWaitsWholeInItsOrder() throws Exception {
        hold(1, false);
        List<Pending> batch = List.of(create(0), bump(1), create(1));
        BatchRunner.Hooks ordered = new BatchRunner.Hooks() {
            @Override
            public boolean inOrder() {
                return true;
            }
        };
        CompletableFuture<Void> applied = apply(batch, ordered);
        awaitBlocked();
        assertThat(applied).failsWithin(Duration.ofMillis(5 * AFTER.toMillis()));
        assertThat(batch).noneMatch(p -> p.future().isDone());
        assertThat(count("MATCH (o:Other) RETURN count(o)")).as("nothing of it committed").isZero();

        holder.commit();
        applied.get(10, TimeUnit.SECONDS);
        assertThat(batch).allMatch(p -> p.future().join() instanceof Outcome.Committed);
        assertThat(setAside).hasValue(0);
    }

    /** Waits (bounded) until a transaction waits for another's lock. */
    private static void awaitBlocked() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (count("SHOW TRANSACTIONS YIELD status WHERE status STARTS WITH 'Blocked by' RETURN count(*)") == 0) {
            assertThat(System.nanoTime()).as("a blocked transaction within 10 s").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
