package io.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.apply.BatchRunner;
import io.sluice.apply.Partitions;
import io.sluice.apply.RetryPolicy;
import io.sluice.batch.Admission;
import io.sluice.config.ConfigLoader;
import io.sluice.config.Mode;
import io.sluice.config.SluiceConfig;
import io.sluice.cypher.StatementClassifier;
import io.sluice.durable.AsyncPath;
import io.sluice.metrics.Metrics;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.support.Await;
import io.sluice.support.TestServer;
import io.sluice.time.Jitter;
import io.sluice.time.Time;
import io.sluice.write.Outcome;
import io.sluice.write.Statement;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.graphdb.Transaction;

/**
 * The gateway alone, over parts built by hand (no HTTP, no SluiceServer): where each kind of request goes, what
 * classification refuses before anything is admitted, the admission bound, and a close that leaves no waiter
 * hanging. A writer is held where needed by a node lock taken in a transaction of the test's own.
 */
@Timeout(120)
class GatewayTest {
    static final String YAML = """
            templates:
              item: {cypher: 'MERGE (i:Item {id: row.id}) SET i.v = row.v', key: [id]}
            admission: {max_pending_rows: 2, timeout: 100ms}
            batch: {max_wait: 1ms}
            """;
    static Path dir;
    static EmbeddedNeo4j neo4j;

    final List<AutoCloseable> toClose = new ArrayList<>();
    final ExecutorService clients = Executors.newFixedThreadPool(8);
    SluiceConfig config;
    Template item;
    Admission admission;
    Partitions partitions;
    AsyncPath async;
    Gateway gateway;

    @BeforeAll
    static void startNeo4j() throws Exception {
        dir = Files.createTempDirectory("sluice-gateway-");
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir.resolve("db"), null, 32L << 20, 0, "neo4j"));
        neo4j.database().executeTransactionally("CREATE CONSTRAINT item_id IF NOT EXISTS FOR (i:Item) REQUIRE i.id IS UNIQUE");
    }

    @AfterAll
    static void stopNeo4j() {
        neo4j.close();
        TestServer.deleteRecursively(dir);
    }

    /** The parts as SluiceServer wires them, with {@code partitionCount} partitions and a short drain. */
    void build(int partitionCount) throws Exception {
        neo4j.database().executeTransactionally("MATCH (n) DETACH DELETE n");
        config = ConfigLoader.parse(YAML);
        item = Template.compile("item", config.templates().get("item"));
        var sink = neo4j.sink();
        admission = new Admission(2, 1 << 20, Time.SYSTEM);
        BatchRunner runner = new BatchRunner(sink, new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(5)),
                Time.SYSTEM, Jitter.fixed(0), Metrics.NONE);
        partitions = Partitions.start(partitionCount, 100, Duration.ofMillis(1), runner, i -> null,
                Thread.ofPlatform().name("test-applier-", 0).factory(), Time.SYSTEM, Duration.ofMillis(300));
        toClose.add(partitions);
        Path journal = Files.createTempDirectory(dir, "journal-");
        async = AsyncPath.start(new AsyncPath.Options(journal.resolve("j"), journal.resolve("dead"), 100, 1 << 20,
                1 << 20, Duration.ofMillis(100)), sink, Map.of("item", item), Time.SYSTEM,
                Thread.ofPlatform().name("test-journal-applier").factory(), io.sluice.support.Appliers.parts(sink,
                        new RetryPolicy(Integer.MAX_VALUE, Duration.ofMillis(1), Duration.ofMillis(5)), 100));
        toClose.add(async);
        gateway = new Gateway(new Gateway.Parts(sink, new StatementClassifier(sink, 100), admission, partitions,
                runner, async, Map.of("item", item), null, null), config, Time.SYSTEM);
    }

    @AfterEach
    void closeParts() throws Exception {
        clients.shutdownNow();
        assertThat(clients.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
    }

    WriteRequest write(long id, long v) {
        return new WriteRequest.TemplateRequest(item, List.of(Map.of("id", id, "v", v)), 20);
    }

    static WriteRequest cypher(String text, Map<String, Object> params) {
        return new WriteRequest.CypherRequest(List.of(new Statement(text, params)), 20);
    }

    CompletableFuture<Outcome> send(WriteRequest r, Mode mode) {
        return CompletableFuture.supplyAsync(() -> gateway.execute(r, mode), clients);
    }

    /** Holds Item {id} write-locked until closed: a writer of that node waits inside its transaction. */
    Transaction lock(long id) {
        Transaction tx = neo4j.database().beginTx();
        tx.execute("MERGE (i:Item {id: $id}) SET i.locked = true", Map.of("id", id)).close();
        return tx;
    }

    long value(long id) {
        return neo4j.database().executeTransactionally("MATCH (i:Item {id: $id}) RETURN i.v AS v", Map.of("id", id),
                r -> r.hasNext() && r.next().get("v") instanceof Long v ? v : -1L);
    }

    /**
     * One write admitted and taken by its applier, none queued, and its transaction waiting on the held lock.
     * Without the last, a write admitted but not yet queued looks the same, and the next write would join its batch.
     */
    boolean appliedAlone() {
        return admission.pendingRows() == 1 && partitions.queuedRows() == 0 && blockedOnLock() == 1;
    }

    long blockedOnLock() {
        return neo4j.database().executeTransactionally("SHOW TRANSACTIONS YIELD status "
                + "WHERE status STARTS WITH 'Blocked' RETURN count(*) AS n", Map.of(), r -> (Long) r.next().get("n"));
    }

    /** Two ids whose writes go to different partitions, and a third in the first one's partition. */
    long[] idsAcrossTwoPartitions() {
        long a = 1;
        long b = a + 1;
        while (item.partition(Map.of("id", b), 2) == item.partition(Map.of("id", a), 2)) {
            b++;
        }
        long c = b + 1;
        while (item.partition(Map.of("id", c), 2) != item.partition(Map.of("id", a), 2)) {
            c++;
        }
        return new long[] {a, b, c};
    }

    @Test
    void eachKindOfRequestGoesWhereItBelongs() throws Exception {
        build(2);
        long[] ids = idsAcrossTwoPartitions();
        try (Transaction held = lock(ids[0])) {
            CompletableFuture<Outcome> blocked = send(write(ids[0], 1), Mode.SYNC);
            Await.until("the first write holds its applier", Duration.ofSeconds(10), this::appliedAlone);
            CompletableFuture<Outcome> queued = send(write(ids[2], 1), Mode.SYNC);
            Await.until("a write of the same partition queues behind it", Duration.ofSeconds(10),
                    () -> partitions.queuedRows() == 1);
            assertThat(admission.pendingRows()).as("pending bound: the blocked and the queued write").isEqualTo(2);
            // a read and an async write go on meanwhile, past the full bound
            Outcome read = gateway.execute(cypher("MATCH (i:Item) RETURN count(i) AS n", Map.of()), Mode.SYNC);
            assertThat(read).as("reads are not admitted").isInstanceOf(Outcome.Committed.class);
            Outcome accepted = gateway.execute(write(ids[1], 8), Mode.ASYNC);
            assertThat(accepted).as("async goes to the journal, bounded by its own lag").isInstanceOf(Outcome.Accepted.class);
            assertThat(async.awaitApplied(((Outcome.Accepted) accepted).offset(), Duration.ofSeconds(10))).isTrue();
            assertThat(value(ids[1])).isEqualTo(8);
            held.rollback();
            assertThat(blocked.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Committed.class);
            assertThat(queued.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Committed.class);
        }
        assertThat(gateway.execute(cypher("CREATE INDEX item_v IF NOT EXISTS FOR (i:Item) ON (i.v)", Map.of()),
                Mode.SYNC)).as("a schema statement runs alone").isInstanceOf(Outcome.Committed.class);
        assertThat(gateway.execute(cypher("UNWIND range(1, 3) AS i CALL (i) { CREATE (:Cit {i: i}) } IN TRANSACTIONS"
                + " OF 2 ROWS", Map.of()), Mode.SYNC)).as("so does CALL {} IN TRANSACTIONS, which the classifier"
                + " recognises before planning").isInstanceOf(Outcome.Committed.class);
        // with one partition held, the other partition's writes and direct writes commit
        try (Transaction held = lock(ids[0])) {
            CompletableFuture<Outcome> blocked = send(write(ids[0], 2), Mode.SYNC);
            Await.until("the first write holds its applier", Duration.ofSeconds(10), this::appliedAlone);
            assertThat(gateway.execute(write(ids[1], 9), Mode.SYNC)).isInstanceOf(Outcome.Committed.class);
            assertThat(value(ids[1])).isEqualTo(9);
            assertThat(gateway.execute(write(ids[2], 9), Mode.DIRECT)).as("direct runs on the caller's thread")
                    .isInstanceOf(Outcome.Committed.class);
            assertThat(value(ids[2])).isEqualTo(9);
            held.rollback();
            assertThat(blocked.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Committed.class);
        }
        assertThat(admission.pendingRows()).isZero();
    }

    @Test
    void submitQueuesASyncWriteWithNoThreadWaitingAndHandsTheRestToTheBlockingExecutor() throws Exception {
        build(1);
        java.util.concurrent.atomic.AtomicInteger handedOff = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.Executor blocking = task -> {
            handedOff.incrementAndGet();
            clients.execute(task);
        };
        try (Transaction held = lock(1)) {
            CompletableFuture<Outcome> first = gateway.submit(write(1, 1), Mode.SYNC, io.sluice.write.Caller.INTERNAL,
                    blocking);
            assertThat(handedOff).as("admitted at once: queued from the caller's thread").hasValue(0);
            Await.until("the write holds the applier", Duration.ofSeconds(10), this::appliedAlone);
            assertThat(first).as("answered when its batch commits, not before").isNotDone();
            CompletableFuture<Outcome> second = gateway.submit(write(1, 2), Mode.SYNC, io.sluice.write.Caller.INTERNAL,
                    blocking);
            assertThat(admission.pendingRows()).isEqualTo(2);
            CompletableFuture<Outcome> waits = gateway.submit(write(2, 1), Mode.SYNC, io.sluice.write.Caller.INTERNAL,
                    blocking);
            assertThat(handedOff).as("a full bound: the wait for room runs on the blocking executor").hasValue(1);
            assertThat(waits.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Overloaded.class);
            CompletableFuture<Outcome> async = gateway.submit(write(3, 1), Mode.ASYNC, io.sluice.write.Caller.INTERNAL,
                    blocking);
            assertThat(async.get(10, TimeUnit.SECONDS)).as("async: journaled from the caller's thread, answered"
                    + " when its fsync returns").isInstanceOf(Outcome.Accepted.class);
            assertThat(handedOff).as("no thread waits for the fsync").hasValue(1);
            assertThat(gateway.submit(new WriteRequest.TemplateRequest(item, List.of(Map.of("v", 1L)), 10), Mode.SYNC,
                    io.sluice.write.Caller.INTERNAL, blocking).get(10, TimeUnit.SECONDS))
                    .as("a bad row is refused at once").isInstanceOf(Outcome.Failed.class);
            held.rollback();
            assertThat(first.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Committed.class);
            assertThat(second.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Committed.class);
        }
        assertThat(value(1)).as("per-key order").isEqualTo(2);
        Await.until("admission given back", Duration.ofSeconds(10), () -> admission.pendingRows() == 0);
    }

    @Test
    void classificationRefusesBeforeAnythingIsAdmitted() throws Exception {
        build(1);
        assertThat(((Outcome.Failed) gateway.execute(cypher("CREATE (n:Item {id: 1}", Map.of()), Mode.SYNC))
                .error().code()).isEqualTo("Neo.ClientError.Statement.SyntaxError");
        assertThat(((Outcome.Failed) gateway.execute(cypher("CREATE (n:Item {id: $id})", Map.of()), Mode.SYNC))
                .error().code()).isEqualTo("Neo.ClientError.Statement.ParameterMissing");
        WriteRequest mixed = new WriteRequest.CypherRequest(List.of(
                new Statement("CREATE INDEX item_w IF NOT EXISTS FOR (i:Item) ON (i.w)", Map.of()),
                new Statement("CREATE (:Item {id: 5})", Map.of())), 40);
        assertThat(((Outcome.Failed) gateway.execute(mixed, Mode.SYNC)).error().code())
                .isEqualTo("Neo.ClientError.Transaction.ForbiddenDueToTransactionType");
        WriteRequest badRow = new WriteRequest.TemplateRequest(item, List.of(Map.of("v", 1L)), 10);
        assertThat(gateway.execute(badRow, Mode.SYNC)).isInstanceOf(Outcome.Failed.class);
        assertThat(admission.pendingRows()).isZero();
        long items = neo4j.database().executeTransactionally("MATCH (i:Item) RETURN count(i) AS n", Map.of(),
                r -> (Long) r.next().get("n"));
        assertThat(items).isZero();
    }

    @Test
    void aFullBoundRefusesAfterTheAdmissionTimeout() throws Exception {
        build(1);
        try (Transaction held = lock(1)) {
            CompletableFuture<Outcome> first = send(write(1, 1), Mode.SYNC);
            Await.until("the first write holds the applier", Duration.ofSeconds(10), this::appliedAlone);
            CompletableFuture<Outcome> second = send(write(1, 2), Mode.SYNC);
            Await.until("the bound is full", Duration.ofSeconds(10), () -> admission.pendingRows() == 2);
            Outcome refused = gateway.execute(write(2, 1), Mode.SYNC);
            assertThat(refused).isInstanceOf(Outcome.Overloaded.class);
            assertThat(((Outcome.Overloaded) refused).retryAfter()).isEqualTo(Duration.ofSeconds(1));
            held.rollback();
            assertThat(first.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Committed.class);
            assertThat(second.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Committed.class);
        }
        assertThat(value(1)).as("per-key order").isEqualTo(2);
        assertThat(value(2)).as("the refused write changed nothing").isEqualTo(-1);
    }

    @Test
    void closingAnswersEveryWaiterItCouldNotDrain() throws Exception {
        build(1);
        CompletableFuture<Outcome> inFlight;
        CompletableFuture<Outcome> queued;
        try (Transaction held = lock(1)) {
            inFlight = send(write(1, 1), Mode.SYNC);
            Await.until("the applier is held", Duration.ofSeconds(10), this::appliedAlone);
            queued = send(write(1, 2), Mode.SYNC);
            Await.until("a write waits in the queue", Duration.ofSeconds(10), () -> partitions.queuedRows() == 1);

            gateway.close();
            admission.close();
            assertThat(gateway.execute(write(3, 1), Mode.SYNC)).isSameAs(Outcome.SHUTTING_DOWN);
            assertThat(gateway.execute(write(3, 1), Mode.ASYNC)).isSameAs(Outcome.SHUTTING_DOWN);
            assertThat(gateway.health().status()).isEqualTo(io.sluice.write.Health.Status.STOPPING);
            partitions.close(); // drains for 300 ms: the held applier cannot, so the queued write is answered
            assertThat(queued.get(5, TimeUnit.SECONDS)).isSameAs(Outcome.SHUTTING_DOWN);
            held.rollback();
        }
        // the batch being applied completes on its own thread once the lock is gone
        assertThat(inFlight.get(30, TimeUnit.SECONDS)).isNotNull();
        assertThat(value(1)).as("the refused write was not applied").isNotEqualTo(2);
    }
}
