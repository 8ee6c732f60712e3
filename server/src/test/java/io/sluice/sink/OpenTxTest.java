package io.sluice.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.support.OnThread;
import io.sluice.support.SinkPair;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.StatementResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Sink#begin}: explicit transactions held open across calls, on the real embedded Neo4j and over Bolt to
 * the same database (its Bolt connector on), each call possibly from another thread.
 */
@Timeout(120)
class OpenTxTest {
    static SinkPair pair;
    static EmbeddedNeo4j neo4j;
    static Sink embedded;
    static BoltSink bolt;

    @BeforeAll
    static void start() throws Exception {
        pair = SinkPair.start("sluice-open-tx-");
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

    static long count(String label) throws GraphException {
        return (Long) embedded.inReadTransaction(tx -> tx.run("MATCH (n:" + label + ") RETURN count(n)", Map.of()))
                .rows().getFirst().getFirst();
    }

    @ParameterizedTest
    @MethodSource("sinks")
    void readsItsOwnWriteThenCommits(String name) throws Exception {
        String label = "Own_" + name;
        Sink.OpenTx tx = sink(name).begin(true);
        StatementResult created = tx.run("CREATE (n:" + label + " {v: $v}) RETURN n.v AS v", Map.of("v", 1L));
        assertThat(created.rows()).isEqualTo(List.of(List.of(1L)));
        assertThat(created.counters().get("nodes_created")).isEqualTo(1);
        assertThat(tx.run("MATCH (n:" + label + ") RETURN count(n) AS c", Map.of()).rows())
                .as("its own write, before commit").isEqualTo(List.of(List.of(1L)));
        assertThat(count(label)).as("not visible outside before commit").isZero();
        tx.commit();
        assertThat(count(label)).isEqualTo(1);
        tx.rollback(); // finished: a no-op
        assertThat(count(label)).isEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("sinks")
    void rollbackLeavesNothing(String name) throws Exception {
        String label = "Rolled_" + name;
        Sink.OpenTx tx = sink(name).begin(true);
        tx.run("CREATE (:" + label + ")", Map.of());
        tx.rollback();
        assertThat(count(label)).isZero();
        assertThatThrownBy(tx::commit).isInstanceOf(GraphException.class);
    }

    @ParameterizedTest
    @MethodSource("sinks")
    void aFailingStatementRollsBackWhatCameBefore(String name) throws Exception {
        String label = "Failed_" + name;
        Sink.OpenTx tx = sink(name).begin(true);
        tx.run("CREATE (:" + label + ")", Map.of());
        assertThatThrownBy(() -> tx.run("RETRUN 1", Map.of())).isInstanceOfSatisfying(GraphException.class,
                e -> assertThat(e.error().code()).isEqualTo("Neo.ClientError.Statement.SyntaxError"));
        assertThatThrownBy(tx::commit).as("finished by the error").isInstanceOf(GraphException.class);
        assertThat(count(label)).isZero();

        Sink.OpenTx runtime = sink(name).begin(true);
        runtime.run("CREATE (:" + label + ")", Map.of());
        assertThatThrownBy(() -> runtime.run("UNWIND [1, 0] AS x RETURN 1 / x", Map.of()))
                .isInstanceOfSatisfying(GraphException.class,
                        e -> assertThat(e.error().code()).isEqualTo("Neo.ClientError.Statement.ArithmeticError"));
        assertThat(count(label)).isZero();
    }

    /** Each call from a thread of its own, as each HTTP request is; nothing ties the transaction to its first thread. */
    @ParameterizedTest
    @MethodSource("sinks")
    void callsFromDifferentThreadsOneAfterAnother(String name) throws Exception {
        String label = "Threads_" + name;
        Duration bound = Duration.ofSeconds(30);
        Sink.OpenTx tx;
        try (OnThread<Sink.OpenTx> begin = OnThread.start("open-tx-begin", () -> sink(name).begin(true))) {
            tx = begin.get(bound);
        }
        try (OnThread<StatementResult> run = OnThread.start("open-tx-run",
                () -> tx.run("CREATE (n:" + label + ") RETURN 1 AS one", Map.of()))) {
            assertThat(run.get(bound).rows()).isEqualTo(List.of(List.of(1L)));
        }
        try (OnThread<StatementResult> read = OnThread.start("open-tx-read",
                () -> tx.run("MATCH (n:" + label + ") RETURN count(n) AS c", Map.of()))) {
            assertThat(read.get(bound).rows()).isEqualTo(List.of(List.of(1L)));
        }
        try (OnThread<Boolean> commit = OnThread.start("open-tx-commit", () -> {
            tx.commit();
            return true;
        })) {
            commit.get(bound);
        }
        assertThat(count(label)).isEqualTo(1);
    }

    @ParameterizedTest
    @MethodSource("sinks")
    void aReadTransactionRefusesWrites(String name) throws Exception {
        String label = "ReadOnly_" + name;
        Sink.OpenTx tx = sink(name).begin(false);
        assertThat(tx.run("RETURN 1 AS one", Map.of()).rows()).isEqualTo(List.of(List.of(1L)));
        assertThatThrownBy(() -> tx.run("CREATE (:" + label + ")", Map.of())).isInstanceOfSatisfying(GraphException.class,
                e -> assertThat(e.error().code()).isEqualTo("Neo.ClientError.Statement.AccessMode"));
        tx.rollback();
        assertThat(count(label)).isZero();
    }
}
