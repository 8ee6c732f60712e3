package io.sluice.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.apply.BatchRunner;
import io.sluice.apply.RetryPolicy;
import io.sluice.config.TemplateConfig;
import io.sluice.metrics.Metrics;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.vocab.Neo4jError;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.support.ForwardingSink;
import io.sluice.time.Jitter;
import io.sluice.time.Time;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The one apply loop when a bisected batch is cut short: what committed before the group that was not applied is
 * reported once, the result says where that leaves the partition, and applying again from the graph's position
 * finishes the log with every record's rows reported exactly once (so a backlog bound released from the reports
 * is released exactly once) and every write applied once.
 */
class RecordApplierTest {
    /** A log record: its offset and sluice's own record format. */
    record Rec(long offset, byte[] payload) {}

    EmbeddedNeo4j neo4j;
    Path dir;

    @AfterEach
    void stop() {
        if (neo4j != null) {
            neo4j.close();
        }
        io.sluice.support.TestServer.deleteRecursively(dir);
    }

    /** Fails one write transaction, the {@code failAt}-th, with a transient error before it runs. */
    static final class FailingOnce extends ForwardingSink {
        final AtomicInteger calls = new AtomicInteger();
        volatile int failAt = -1;

        FailingOnce(Sink real) {
            super(real);
        }

        @Override
        public <T> T inTransaction(TxWork<T> work) throws GraphException {
            if (calls.incrementAndGet() == failAt) {
                throw new GraphException(new Neo4jError("Neo.TransientError.General.DatabaseUnavailable",
                        "injected: unavailable for one transaction"), null);
            }
            return real.inTransaction(work);
        }
    }

    @Test
    void aBatchCutShortReportsWhatCommittedOnceAndTheRestIsAppliedOnce() throws Exception {
        dir = Files.createTempDirectory("sluice-record-applier-");
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir.resolve("db"), null, 64L << 20, 0, "neo4j"));
        Sink real = neo4j.sink();
        real.runImplicit("CREATE CONSTRAINT item_id IF NOT EXISTS FOR (i:Item) REQUIRE i.id IS UNIQUE", Map.of());
        real.runImplicit("CREATE (:Item {id: 1})", Map.of());
        Template item = Template.compile("item", new TemplateConfig("CREATE (:Item {id: row.id})", List.of("id"), null));
        List<Rec> log = new ArrayList<>();
        long[] ids = {10, 1, 12, 13}; // offset 1 violates the constraint: it fails alone
        for (int i = 0; i < ids.length; i++) {
            log.add(new Rec(i, RecordCodec.encode(new WriteRequest.TemplateRequest(item, List.of(Map.of("id", ids[i])),
                    10))));
        }
        FailingOnce sink = new FailingOnce(real);
        GraphPositions positions = new GraphPositions(sink, "test-log", GraphPositions.Legacy.NONE);
        positions.createSchema(Time.SYSTEM);
        assertThat(positions.readLocked(0)).isZero();
        AtomicLong rowsReported = new AtomicLong();
        List<Long> deadLettered = new ArrayList<>();
        RecordApplier<Rec> applier = new RecordApplier<>(new RecordApplier.Records<>() {
            @Override
            public long offset(Rec r) {
                return r.offset();
            }

            @Override
            public long bytes(Rec r) {
                return r.payload().length;
            }

            @Override
            public WriteRequest decode(Rec r) throws RecordCodec.Undecodable {
                return RecordCodec.decode(r.payload(), Map.of("item", item));
            }
        }, positions, new BatchRunner(sink, new RetryPolicy(1, Duration.ofMillis(1), Duration.ofMillis(1)),
                Time.SYSTEM, Jitter.fixed(0), Metrics.NONE), (partition, r, error) -> deadLettered.add(r.offset()),
                (partition, next, rows, bytes) -> rowsReported.addAndGet(rows), Time.SYSTEM, null, 100, false);

        // the batch, then its left half and the bad record fail; the first record commits; the right half's
        // transaction (the fifth) is unavailable
        sink.failAt = sink.calls.get() + 5;
        RecordApplier.Result first = applier.apply(0, 0, log, () -> false);
        assertThat(first.next()).isEqualTo(1);
        assertThat(first.resync()).isTrue();
        assertThat(first.why()).as("Neo4j's words, for /health").contains("DatabaseUnavailable");
        assertThat(rowsReported).as("the committed first record, reported once").hasValue(1);
        assertThat(deadLettered).containsExactly(1L);

        long stored = positions.readLocked(0);
        assertThat(stored).isEqualTo(1);
        RecordApplier.Result second = applier.apply(0, stored, log, () -> false);
        assertThat(second).isEqualTo(new RecordApplier.Result(4, false));
        assertThat(rowsReported).as("every record's rows reported exactly once").hasValue(4);
        assertThat(deadLettered).as("the bad record, dead-lettered again (the store drops the repeat)")
                .containsExactly(1L, 1L);
        assertThat(positions.readLocked(0)).isEqualTo(4);
        assertThat(real.inReadTransaction(tx -> tx.run("MATCH (i:Item) RETURN i.id ORDER BY i.id", Map.of()))
                .rows()).as("each write applied once").containsExactly(List.of(1L), List.of(10L), List.of(12L),
                        List.of(13L));
    }

    /**
     * A record that cannot be read now for a reason outside it (its schema registry down) is an outage, not bad
     * data: the records before it are applied, it is neither dead-lettered nor skipped, the result asks for a
     * resync at it, and once it reads the rest is applied, each write once.
     */
    @Test
    void aRecordUnavailableNowIsRetriedNeverDeadLettered() throws Exception {
        dir = Files.createTempDirectory("sluice-record-applier-");
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir.resolve("db"), null, 64L << 20, 0, "neo4j"));
        Sink sink = neo4j.sink();
        Template item = Template.compile("item", new TemplateConfig("CREATE (:Item {id: row.id})", List.of("id"), null));
        List<Rec> log = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            log.add(new Rec(i, RecordCodec.encode(new WriteRequest.TemplateRequest(item, List.of(Map.of("id", i)),
                    10))));
        }
        GraphPositions positions = new GraphPositions(sink, "test-log", GraphPositions.Legacy.NONE);
        positions.createSchema(Time.SYSTEM);
        assertThat(positions.readLocked(0)).isZero();
        java.util.concurrent.atomic.AtomicBoolean down = new java.util.concurrent.atomic.AtomicBoolean(true);
        AtomicInteger tries = new AtomicInteger();
        List<Long> deadLettered = new ArrayList<>();
        RecordApplier<Rec> applier = new RecordApplier<>(new RecordApplier.Records<>() {
            @Override
            public long offset(Rec r) {
                return r.offset();
            }

            @Override
            public long bytes(Rec r) {
                return r.payload().length;
            }

            @Override
            public WriteRequest decode(Rec r) throws RecordCodec.Undecodable, RecordApplier.Unavailable {
                if (r.offset() == 2 && down.get()) {
                    tries.incrementAndGet();
                    throw new RecordApplier.Unavailable("injected: the schema registry is down", null);
                }
                return RecordCodec.decode(r.payload(), Map.of("item", item));
            }
        }, positions, new BatchRunner(sink, new RetryPolicy(1, Duration.ofMillis(1), Duration.ofMillis(1)),
                Time.SYSTEM, Jitter.fixed(0), Metrics.NONE), (partition, r, error) -> deadLettered.add(r.offset()),
                (partition, next, rows, bytes) -> { }, Time.SYSTEM, null, 100, false);

        assertThat(applier.apply(0, 0, log, () -> false)).as("applied up to the record that cannot be read now")
                .extracting(RecordApplier.Result::next, RecordApplier.Result::resync).containsExactly(2L, true);
        assertThat(positions.readLocked(0)).isEqualTo(2);
        assertThat(applier.apply(0, 2, log, () -> false)).as("still down: nothing moves")
                .extracting(RecordApplier.Result::next, RecordApplier.Result::resync).containsExactly(2L, true);
        assertThat(deadLettered).isEmpty();
        assertThat(tries).hasValueGreaterThanOrEqualTo(2);

        down.set(false);
        assertThat(applier.apply(0, positions.readLocked(0), log, () -> false))
                .isEqualTo(new RecordApplier.Result(4, false));
        assertThat(deadLettered).isEmpty();
        assertThat(sink.inReadTransaction(tx -> tx.run("MATCH (i:Item) RETURN i.id ORDER BY i.id", Map.of()))
                .rows()).as("each write applied once").containsExactly(List.of(0L), List.of(1L), List.of(2L),
                        List.of(3L));
    }
}
