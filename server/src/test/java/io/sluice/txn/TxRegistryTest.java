package io.sluice.txn;

import io.sluice.http.Flavour;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.sink.BoltSink;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.support.Await;
import io.sluice.support.OnThread;
import io.sluice.support.SinkPair;
import io.sluice.time.ManualTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The registry of open transactions on the real embedded Neo4j (and over Bolt to it), its idle clock a manual one. */
@Timeout(120)
class TxRegistryTest {
    static final String NOT_FOUND = "Neo.ClientError.Transaction.TransactionNotFound";
    static final Object ALICE = "alice";
    static SinkPair pair;
    static EmbeddedNeo4j neo4j;
    static Sink embedded;
    static BoltSink bolt;

    @BeforeAll
    static void start() throws Exception {
        pair = SinkPair.start("sluice-txn-");
        neo4j = pair.neo4j;
        embedded = pair.embedded;
        bolt = pair.bolt;
    }

    @AfterAll
    static void stop() {
        pair.close();
    }

    static Stream<String> sinks() {
        return SinkPair.names();
    }

    static Sink sink(String name) {
        return pair.sink(name);
    }

    final ManualTime time = new ManualTime();
    final CountingGate gate = new CountingGate();

    /** Counts transactions inside the gate; refuses while {@code full}. */
    static final class CountingGate implements TxRegistry.Gate {
        final java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
        volatile boolean full;

        @Override
        public void enter() throws GraphException {
            if (full) {
                throw new GraphException(new io.sluice.vocab.Neo4jError("Neo.TransientError.Request.ResourceExhaustion",
                        "full"), null);
            }
            inside.incrementAndGet();
        }

        @Override
        public void leave() {
            assertThat(inside.decrementAndGet()).as("left more often than entered").isNotNegative();
        }
    }

    /** However each test's transactions ended, every place at the gate was given back once. */
    @org.junit.jupiter.api.AfterEach
    void everyTransactionLeftTheGate() {
        assertThat(gate.inside.get()).as("transactions still counted at the gate").isZero();
    }

    TxRegistry registry(Sink sink, Flavour flavour, int maxOpen) {
        return registry(sink, TxRegistry.Options.of(flavour, null, maxOpen));
    }

    TxRegistry registry(Sink sink, TxRegistry.Options options) {
        return TxRegistry.start(sink, gate, options, time, new Random(42), Thread.ofPlatform().name("test-txn-sweeper").factory());
    }

    static long count(String label) throws GraphException {
        return (Long) embedded.inReadTransaction(tx -> tx.run("MATCH (n:" + label + ") RETURN count(n)", Map.of()))
                .rows().getFirst().getFirst();
    }

    static String code(ThrowingCall call) {
        try {
            call.run();
        } catch (GraphException e) {
            return e.error().code();
        }
        throw new AssertionError("expected a GraphException");
    }

    interface ThrowingCall {
        void run() throws GraphException;
    }

    @ParameterizedTest
    @MethodSource("sinks")
    void openRunReadOwnWriteAcrossRequestsThenCommit(String name) throws Exception {
        String label = "Committed_" + name;
        try (TxRegistry r = registry(sink(name), Flavour.CLASSIC, 10)) {
            TxRegistry.Opened tx = r.open(true, ALICE);
            assertThat(tx.id()).isEqualTo("1");
            assertThat(tx.expires()).isEqualTo(time.now().plusSeconds(30));
            try (TxRegistry.Held h = r.acquire(tx.id(), ALICE)) {
                h.run("CREATE (:" + label + " {v: 1})", Map.of());
            }
            try (TxRegistry.Held h = r.acquire(tx.id(), ALICE)) {
                assertThat(h.run("MATCH (n:" + label + ") RETURN n.v", Map.of()).rows()).isEqualTo(List.of(List.of(1L)));
            }
            assertThat(count(label)).isZero();
            assertThat(r.openCount()).isEqualTo(1);
            r.commit(tx.id(), ALICE);
            assertThat(count(label)).isEqualTo(1);
            assertThat(r.openCount()).isZero();
            assertThat(code(() -> r.acquire(tx.id(), ALICE))).as("committed: unknown").isEqualTo(NOT_FOUND);
            assertThat(r.open(false, ALICE).id()).as("classic ids count up").isEqualTo("2");
        }
    }

    @ParameterizedTest
    @MethodSource("sinks")
    void rollbackLeavesNothingAndForgetsTheId(String name) throws Exception {
        String label = "RolledBack_" + name;
        try (TxRegistry r = registry(sink(name), Flavour.QUERY_API, 10)) {
            TxRegistry.Opened tx = r.open(true, ALICE);
            assertThat(tx.id()).matches("[0-9a-f]{6}");
            assertThat(tx.expires()).isEqualTo(time.now().plusSeconds(60));
            try (TxRegistry.Held h = r.acquire(tx.id(), ALICE)) {
                h.run("CREATE (:" + label + ")", Map.of());
            }
            r.rollback(tx.id(), ALICE);
            assertThat(count(label)).isZero();
            GraphException gone = org.junit.jupiter.api.Assertions.assertThrows(GraphException.class,
                    () -> r.acquire(tx.id(), ALICE));
            assertThat(gone.error().code()).isEqualTo("Neo.ClientError.Request.Invalid");
            assertThat(gone.error().message()).contains("\"" + tx.id() + "\"", "neo4j-cluster-affinity");
        }
    }

    @ParameterizedTest
    @MethodSource("sinks")
    void aFailingStatementRollsBackAndForgets(String name) throws Exception {
        String label = "FailedIn_" + name;
        try (TxRegistry r = registry(sink(name), Flavour.CLASSIC, 10)) {
            String id = r.open(true, ALICE).id();
            try (TxRegistry.Held h = r.acquire(id, ALICE)) {
                h.run("CREATE (:" + label + ")", Map.of());
                assertThat(code(() -> h.run("RETURN 1 / 0", Map.of()))).isEqualTo("Neo.ClientError.Statement.ArithmeticError");
            }
            assertThat(count(label)).isZero();
            assertThat(code(() -> r.acquire(id, ALICE))).isEqualTo(NOT_FOUND);
            assertThat(r.openCount()).isZero();
        }
    }

    @ParameterizedTest
    @MethodSource("sinks")
    void closeRollsBackEverythingOpenAndRefusesAfterwards(String name) throws Exception {
        String label = "AtClose_" + name;
        TxRegistry r = registry(sink(name), Flavour.CLASSIC, 10);
        List<String> ids = List.of(r.open(true, ALICE).id(), r.open(true, ALICE).id());
        for (String id : ids) {
            try (TxRegistry.Held h = r.acquire(id, ALICE)) {
                h.run("CREATE (:" + label + ")", Map.of());
            }
        }
        r.close();
        assertThat(count(label)).isZero();
        assertThat(r.openCount()).isZero();
        assertThat(code(() -> r.acquire(ids.getFirst(), ALICE))).isEqualTo("Neo.TransientError.General.DatabaseUnavailable");
        assertThat(code(() -> r.open(true, ALICE))).isEqualTo("Neo.TransientError.General.DatabaseUnavailable");
        r.close(); // idempotent
    }

    @Test
    void closeWaitsForARequestInATransactionWhichRollsBackOnRelease() throws Exception {
        TxRegistry r = registry(embedded, Flavour.CLASSIC, 10);
        String id = r.open(true, ALICE).id();
        TxRegistry.Held held = r.acquire(id, ALICE);
        held.run("CREATE (:HeldAtClose)", Map.of());
        try (OnThread<Boolean> closing = OnThread.start("closing-registry", () -> {
            r.close();
            return true;
        })) {
            Await.until("close refuses new calls", Duration.ofSeconds(10),
                    () -> code(() -> r.acquire("nope", ALICE)).equals("Neo.TransientError.General.DatabaseUnavailable"));
            assertThat(closing.isDone()).as("waits for the request").isFalse();
            held.close(); // the request ends
            closing.get(Duration.ofSeconds(10));
        }
        assertThat(count("HeldAtClose")).isZero();
        assertThat(r.openCount()).isZero();
    }

    @Test
    void anIdleTransactionExpiresAndIsRolledBackAndItsIdUnknown() throws Exception {
        try (TxRegistry r = registry(embedded, Flavour.QUERY_API, 10)) {
            String id = r.open(true, ALICE).id();
            try (TxRegistry.Held h = r.acquire(id, ALICE)) {
                h.run("CREATE (:Expired)", Map.of());
            }
            time.advance(Duration.ofSeconds(59));
            assertThat(r.sweep()).isZero();
            r.acquire(id, ALICE).close(); // a keep-alive restarts the idle clock
            time.advance(Duration.ofSeconds(59));
            assertThat(r.sweep()).as("59 s after the keep-alive").isZero();
            time.advance(Duration.ofSeconds(1));
            assertThat(r.sweep()).isEqualTo(1);
            assertThat(r.openCount()).isZero();
            assertThat(code(() -> r.acquire(id, ALICE))).isEqualTo("Neo.ClientError.Request.Invalid");
            assertThat(count("Expired")).isZero();
        }
    }

    @Test
    void anExpiredTransactionIsUnknownOnAccessBeforeTheSweeperComes() throws Exception {
        try (TxRegistry r = registry(embedded, TxRegistry.Options.of(Flavour.CLASSIC, Duration.ofSeconds(4), 10))) {
            String id = r.open(true, ALICE).id();
            time.advance(Duration.ofSeconds(4));
            assertThat(code(() -> r.acquire(id, ALICE))).isEqualTo(NOT_FOUND);
            assertThat(r.openCount()).isZero();
        }
    }

    @Test
    void theSweeperThreadRollsBackExpiredTransactions() throws Exception {
        var options = new TxRegistry.Options(Flavour.CLASSIC, Duration.ofSeconds(30), 10, Duration.ofMillis(5),
                Duration.ofSeconds(10));
        try (TxRegistry r = registry(embedded, options)) {
            String id = r.open(true, ALICE).id();
            try (TxRegistry.Held h = r.acquire(id, ALICE)) {
                h.run("CREATE (:Swept)", Map.of());
            }
            time.advance(Duration.ofSeconds(30));
            Await.until("the sweeper rolls it back", Duration.ofSeconds(10), () -> r.openCount() == 0);
            assertThat(count("Swept")).isZero();
        }
    }

    @Test
    void aHeldTransactionDoesNotExpireAndASecondRequestIsRefused() throws Exception {
        try (TxRegistry r = registry(embedded, Flavour.QUERY_API, 10)) {
            String id = r.open(true, ALICE).id();
            try (TxRegistry.Held h = r.acquire(id, ALICE)) {
                assertThat(code(() -> r.acquire(id, ALICE))).isEqualTo("Neo.ClientError.Transaction.TransactionAccessedConcurrently");
                assertThat(code(() -> r.commit(id, ALICE))).isEqualTo("Neo.ClientError.Transaction.TransactionAccessedConcurrently");
                time.advance(Duration.ofMinutes(5));
                assertThat(r.sweep()).isZero();
                h.run("RETURN 1", Map.of());
            }
            r.rollback(id, ALICE);
        }
    }

    @Test
    void anotherOwnerCannotFindIt() throws Exception {
        try (TxRegistry r = registry(embedded, Flavour.CLASSIC, 10)) {
            String id = r.open(true, ALICE).id();
            assertThat(code(() -> r.acquire(id, "bob"))).isEqualTo(NOT_FOUND);
            r.rollback(id, ALICE);
        }
    }

    @Test
    void theNumberOpenIsBounded() throws Exception {
        try (TxRegistry r = registry(embedded, Flavour.QUERY_API, 2)) {
            String first = r.open(true, ALICE).id();
            r.open(false, ALICE);
            GraphException full = org.junit.jupiter.api.Assertions.assertThrows(GraphException.class, () -> r.open(true, ALICE));
            assertThat(full.error().code()).isEqualTo("Neo.TransientError.Transaction.MaximumTransactionLimitReached");
            assertThat(full.isTransient()).isTrue();
            r.commit(first, ALICE);
            r.open(true, ALICE);
            assertThat(r.openCount()).isEqualTo(2);
        }
    }

    /** Each request on a thread of its own, one after another, as HTTP requests come. */
    @Test
    void aFullGateRefusesToOpenAndBeginsNothing() throws Exception {
        try (TxRegistry r = registry(embedded, Flavour.CLASSIC, 10)) {
            gate.full = true;
            assertThat(code(() -> r.open(true, ALICE))).isEqualTo("Neo.TransientError.Request.ResourceExhaustion");
            assertThat(r.openCount()).isZero();
            gate.full = false;
            TxRegistry.Opened tx = r.open(true, ALICE);
            assertThat(gate.inside.get()).as("an open transaction holds its place").isEqualTo(1);
            r.commit(tx.id(), ALICE);
            assertThat(gate.inside.get()).isZero();
        }
    }

    @ParameterizedTest
    @MethodSource("sinks")
    void requestsOnDifferentThreadsInTurn(String name) throws Exception {
        String label = "InTurn_" + name;
        Duration bound = Duration.ofSeconds(30);
        try (TxRegistry r = registry(sink(name), Flavour.CLASSIC, 10)) {
            String id;
            try (OnThread<String> open = OnThread.start("request-open", () -> r.open(true, ALICE).id())) {
                id = open.get(bound);
            }
            try (OnThread<Boolean> run = OnThread.start("request-run", () -> {
                try (TxRegistry.Held h = r.acquire(id, ALICE)) {
                    h.run("CREATE (:" + label + ")", Map.of());
                }
                return true;
            })) {
                run.get(bound);
            }
            try (OnThread<Boolean> commit = OnThread.start("request-commit", () -> {
                r.commit(id, ALICE);
                return true;
            })) {
                commit.get(bound);
            }
            assertThat(count(label)).isEqualTo(1);
        }
    }
}
