package io.sluice.kafka;

import io.sluice.sink.Neo4jError;
import io.sluice.sink.Neo4jStatus;
import io.sluice.sink.SchemaStatements;
import io.sluice.sink.Sink;
import io.sluice.sink.SinkException;
import io.sluice.sink.StatementResult;
import io.sluice.time.Time;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each Kafka partition's application stands, kept in the graph: {@code (:SluiceKafkaOffset {topic,
 * partition, offset})}, {@code offset} the next record to apply, under a composite uniqueness constraint (what
 * Community has; a node key would need Enterprise). It is written in the same transaction as the batch it covers.
 *
 * <p>The fence. Before a batch's offset is written, its transaction takes the offset node's write lock with a write
 * that changes the node ({@code fence + 1}: setting a property to itself plans no write in Neo4j and locks nothing)
 * and then compares the stored offset with the one this owner expects. Another owner of the partition (after a
 * rebalance, or a zombie that has not heard of its revocation yet) blocks on that lock until this transaction
 * ends, then sees the new offset and is {@link #FENCED}: its batch rolls back. So two owners can never both apply
 * a record, whatever Kafka's group membership says at the moment.
 */
final class GraphOffsets {
    /** A batch whose partition another owner has moved on: rolled back, applied by no one twice. */
    static final String FENCED = Neo4jStatus.Sluice.PARTITION_FENCED;

    private static final String SCHEMA = "CREATE CONSTRAINT sluice_kafka_offset IF NOT EXISTS "
            + "FOR (o:SluiceKafkaOffset) REQUIRE (o.topic, o.partition) IS UNIQUE";
    private static final String ENSURE = "MERGE (o:SluiceKafkaOffset {topic: $t, partition: $p}) "
            + "ON CREATE SET o.offset = 0";
    private static final String LOCK_AND_READ = "MATCH (o:SluiceKafkaOffset {topic: $t, partition: $p}) "
            + "SET o.fence = coalesce(o.fence, 0) + 1 WITH o RETURN o.offset";
    private static final String WRITE = "MATCH (o:SluiceKafkaOffset {topic: $t, partition: $p}) SET o.offset = $o";
    private static final String ALL = "MATCH (o:SluiceKafkaOffset {topic: $t}) RETURN o.partition, o.offset";

    private final Sink sink;
    private final String topic;

    GraphOffsets(Sink sink, String topic) {
        this.sink = sink;
        this.topic = topic;
    }

    /** The offsets' constraint; {@code time} paces the retries when instances starting together collide. */
    void createSchema(Time time) throws SinkException {
        SchemaStatements.ensure(sink, SCHEMA, time);
    }

    /**
     * The partition's next offset to apply, creating its node (0) when there is none; read under the node's lock,
     * so a batch another owner is still committing is waited for and its outcome seen.
     */
    long readLocked(int partition) throws SinkException {
        return sink.inTransaction(tx -> {
            tx.runDiscarding(ENSURE, Map.of("t", topic, "p", (long) partition));
            return read(tx.run(LOCK_AND_READ, Map.of("t", topic, "p", (long) partition)));
        });
    }

    /**
     * Inside a batch's transaction: locks the node, checks it still says {@code expected} (else {@link #FENCED},
     * which rolls the batch back), and moves it to {@code next}.
     */
    void advance(Sink.SinkTx tx, int partition, long expected, long next) throws SinkException {
        long stored = read(tx.run(LOCK_AND_READ, Map.of("t", topic, "p", (long) partition)));
        if (stored != expected) {
            // outcome "unknown" to the batch runner: no retry, no bisection; the applier re-reads where it stands
            throw new SinkException(new Neo4jError(FENCED, "partition " + partition + " of " + topic + " is at "
                    + stored + ", not " + expected + ": another owner applied it; this batch is rolled back"), null, true);
        }
        tx.runDiscarding(WRITE, Map.of("t", topic, "p", (long) partition, "o", next));
    }

    /** Moves {@code partition} to {@code next} in a transaction of its own (its last records were dead-lettered). */
    void advanceAlone(int partition, long expected, long next) throws SinkException {
        sink.inTransaction(tx -> {
            advance(tx, partition, expected, next);
            return null;
        });
    }

    /** Every partition's next offset to apply, as committed (no lock). */
    Map<Integer, Long> all() throws SinkException {
        StatementResult r = sink.inReadTransaction(tx -> tx.run(ALL, Map.of("t", topic)));
        Map<Integer, Long> out = new HashMap<>();
        for (List<Object> row : r.rows()) {
            out.put(((Number) row.get(0)).intValue(), ((Number) row.get(1)).longValue());
        }
        return out;
    }

    private static long read(StatementResult r) {
        return ((Number) r.rows().getFirst().getFirst()).longValue();
    }
}
