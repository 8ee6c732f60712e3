package io.sluice.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.sink.Sink;
import io.sluice.support.Await;
import io.sluice.support.OnThread;
import io.sluice.support.SinkPair;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The position node's locked read waits for a transaction still applying a batch and then sees its position, on the
 * embedded database and over Bolt: what replay after a failure relies on. (Setting a property to itself, as an early
 * version did, takes no lock in Neo4j 2026.08: the read went past the open transaction and saw the old value.)
 * Positions kept by earlier versions are adopted once.
 */
class GraphPositionsTest {
    static SinkPair pair;

    @BeforeAll
    static void start() throws Exception {
        pair = SinkPair.start("sluice-offsets-");
    }

    @AfterAll
    static void stop() {
        pair.close();
    }

    static Stream<String> sinks() {
        return SinkPair.names();
    }

    /** Neo4j's own view: a transaction running the locked read is blocked by another. */
    static boolean blockedOnTheOffsetNode() {
        try {
            return pair.embedded.runImplicit("SHOW TRANSACTIONS YIELD currentQuery, status "
                    + "WHERE currentQuery CONTAINS 'SluicePosition' AND status STARTS WITH 'Blocked' RETURN count(*) AS n",
                    Map.of()).rows().getFirst().getFirst().equals(1L);
        } catch (io.sluice.vocab.GraphException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest
    @MethodSource("sinks")
    void aLockedReadWaitsForTheBatchInFlightAndSeesItsOffset(String name) throws Exception {
        Sink sink = pair.sink(name);
        int partition = name.hashCode() & 0xffff;
        GraphPositions positions = new GraphPositions(sink, "test-" + name, GraphPositions.Legacy.NONE);
        positions.createSchema(io.sluice.time.Time.SYSTEM);
        assertThat(positions.readLocked(partition)).isZero();

        Sink.OpenTx batch = sink.begin(true); // a batch applying, its commit not yet done
        positions.advance(new Sink.SinkTx() {
            @Override
            public io.sluice.vocab.StatementResult run(String cypher, Map<String, Object> params)
                    throws io.sluice.vocab.GraphException {
                return batch.run(cypher, params);
            }

            @Override
            public void runDiscarding(String cypher, Map<String, Object> params) throws io.sluice.vocab.GraphException {
                batch.run(cypher, params);
            }
        }, partition, 0, 41);
        try (OnThread<Long> read = OnThread.start("locked-read-" + name, () -> positions.readLocked(partition))) {
            Await.until("the locked read waits for the batch's lock (or, wrongly, ends)", Duration.ofSeconds(30),
                    () -> read.isDone() || blockedOnTheOffsetNode());
            assertThat(read.isDone()).as("the read went past a transaction holding the offset node").isFalse();
            batch.commit();
            assertThat(read.get(Duration.ofSeconds(30))).as("it sees the batch's position").isEqualTo(41L);
        }
    }

    @ParameterizedTest
    @MethodSource("sinks")
    void anAdvanceFromAPositionAnotherApplierMovedIsFencedAndChangesNothing(String name) throws Exception {
        Sink sink = pair.sink(name);
        GraphPositions positions = new GraphPositions(sink, "fence-" + name, GraphPositions.Legacy.NONE);
        positions.createSchema(io.sluice.time.Time.SYSTEM);
        assertThat(positions.readLocked(3)).isZero();
        positions.advanceAlone(3, 0, 10);
        assertThatThrownBy(() -> positions.advanceAlone(3, 0, 5)).isInstanceOf(io.sluice.vocab.GraphException.class)
                .satisfies(e -> assertThat(((io.sluice.vocab.GraphException) e).error().code())
                        .isEqualTo(GraphPositions.FENCED));
        assertThat(positions.all()).containsEntry(3, 10L);
    }

    /**
     * Upgrading keeps exactly once: a partition whose node is new starts where the earlier version's node says, the
     * local journal's (last applied) plus one, the Kafka journal's (next) as it is; later reads keep the new node.
     */
    @ParameterizedTest
    @MethodSource("sinks")
    void positionsOfEarlierVersionsAreAdoptedOnce(String name) throws Exception {
        Sink sink = pair.sink(name);
        int partition = (name.hashCode() & 0xffff) + 1;
        sink.inTransaction(tx -> {
            tx.runDiscarding("CREATE (:SluiceOffset {partition: $p, offset: 41})", Map.of("p", (long) partition));
            tx.runDiscarding("CREATE (:SluiceKafkaOffset {topic: $t, partition: $p, offset: 7})",
                    Map.of("t", "legacy-" + name, "p", (long) partition));
            return null;
        });
        GraphPositions local = new GraphPositions(sink, "journal-" + name, GraphPositions.Legacy.LOCAL_JOURNAL);
        local.createSchema(io.sluice.time.Time.SYSTEM);
        assertThat(local.readLocked(partition)).as("the last applied offset, plus one").isEqualTo(42L);
        GraphPositions kafka = new GraphPositions(sink, "kafka-" + name, GraphPositions.Legacy.kafkaJournal(
                "legacy-" + name));
        assertThat(kafka.readLocked(partition)).as("the next offset, as it was").isEqualTo(7L);
        assertThat(kafka.readLocked(partition + 1)).as("nothing to adopt: from the start").isZero();
        local.advanceAlone(partition, 42, 50);
        assertThat(local.readLocked(partition)).as("the new node, not the old one, from then on").isEqualTo(50L);
        GraphPositions another = new GraphPositions(sink, "journal-2-" + name, GraphPositions.Legacy.LOCAL_JOURNAL);
        assertThat(another.readLocked(partition)).as("adopted once: another log (a new journal) starts afresh")
                .isZero();
    }
}
