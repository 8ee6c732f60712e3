package io.sluice.durable;

import io.sluice.sink.SchemaStatements;
import io.sluice.sink.Sink;
import io.sluice.sink.SinkException;
import io.sluice.sink.StatementResult;
import io.sluice.time.Time;
import java.util.Map;

/**
 * The highest applied journal offset, per partition, kept in the graph itself on a
 * {@code (:SluiceOffset {partition})} node under a uniqueness constraint, and written in the same transaction as
 * the batch it covers: the graph and the offset commit or roll back together, which is what makes replay after
 * a crash skip exactly what was applied.
 */
final class OffsetStore {
    static final String SCHEMA =
            "CREATE CONSTRAINT sluice_offset_partition IF NOT EXISTS FOR (o:SluiceOffset) REQUIRE o.partition IS UNIQUE";
    private static final String WRITE = "MERGE (o:SluiceOffset {partition: $p}) "
            + "SET o.offset = CASE WHEN o.offset IS NULL OR o.offset < $o THEN $o ELSE o.offset END";
    // a write that changes the node takes its write lock, held to the end, and the read after it sees the last
    // commit; setting the offset to itself would not: Neo4j 2026.08 plans no write for it (OffsetStoreTest)
    private static final String READ_LOCKED = "MERGE (o:SluiceOffset {partition: $p}) ON CREATE SET o.offset = -1 "
            + "SET o.fence = coalesce(o.fence, 0) + 1 WITH o RETURN o.offset";

    private final Sink sink;
    private final long partition;

    OffsetStore(Sink sink, long partition) {
        this.sink = sink;
        this.partition = partition;
    }

    void createSchema(Time time) throws SinkException {
        SchemaStatements.ensure(sink, SCHEMA, time);
    }

    /**
     * The highest applied offset (-1 when nothing was ever applied), read after taking the offset node's write
     * lock. Every applying transaction holds that lock until it ends, so a transaction whose commit is still in
     * flight (its connection to a remote Neo4j lost, or its sluice process killed) is waited for, and its
     * outcome seen. Creates the node (offset -1) when there is none, which takes the constraint's lock the same
     * way.
     */
    long readLocked() throws SinkException {
        StatementResult r = sink.inTransaction(tx -> tx.run(READ_LOCKED, Map.of("p", partition)));
        return ((Number) r.rows().getFirst().getFirst()).longValue();
    }

    /** Records {@code offset} as applied inside the caller's transaction (the batch's). */
    void write(Sink.SinkTx tx, long offset) throws SinkException {
        tx.runDiscarding(WRITE, Map.of("p", partition, "o", offset));
    }

    /** Records {@code offset} in a transaction of its own (when the batch's last record was dead-lettered). */
    void writeAlone(long offset) throws SinkException {
        sink.inTransaction(tx -> {
            write(tx, offset);
            return null;
        });
    }
}
