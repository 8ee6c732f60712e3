package io.sluice.durable;

import static org.assertj.core.api.Assertions.assertThat;

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
 * The offset node's locked read waits for a transaction still applying a batch and then sees its offset, on the
 * embedded database and over Bolt: what replay after a failure relies on. (Setting the offset to itself, as it once
 * did, takes no lock in Neo4j 2026.08: the read went past the open transaction and saw the old offset.)
 */
class OffsetStoreTest {
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
                    + "WHERE currentQuery CONTAINS 'SluiceOffset' AND status STARTS WITH 'Blocked' RETURN count(*) AS n",
                    Map.of()).rows().getFirst().getFirst().equals(1L);
        } catch (io.sluice.sink.SinkException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest
    @MethodSource("sinks")
    void aLockedReadWaitsForTheBatchInFlightAndSeesItsOffset(String name) throws Exception {
        Sink sink = pair.sink(name);
        long partition = name.hashCode() & 0xffff;
        OffsetStore offsets = new OffsetStore(sink, partition);
        offsets.createSchema(io.sluice.time.Time.SYSTEM);
        assertThat(offsets.readLocked()).isEqualTo(-1);

        Sink.OpenTx batch = sink.begin(true); // a batch applying, its commit not yet done
        batch.run("MERGE (o:SluiceOffset {partition: $p}) SET o.offset = $o", Map.of("p", partition, "o", 41L));
        try (OnThread<Long> read = OnThread.start("locked-read-" + name, offsets::readLocked)) {
            Await.until("the locked read waits for the batch's lock (or, wrongly, ends)", Duration.ofSeconds(30),
                    () -> read.isDone() || blockedOnTheOffsetNode());
            assertThat(read.isDone()).as("the read went past a transaction holding the offset node").isFalse();
            batch.commit();
            assertThat(read.get(Duration.ofSeconds(30))).as("it sees the batch's offset").isEqualTo(41L);
        }
    }
}
