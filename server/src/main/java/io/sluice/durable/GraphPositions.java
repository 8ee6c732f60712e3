package io.sluice.durable;

import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.sink.SchemaStatements;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.StatementResult;
import io.sluice.time.Time;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each partition of a log of records stands, kept in the graph: {@code (:SluicePosition {source, partition,
 * next})}, {@code next} the offset of the next record to apply (0 at the start), under a composite uniqueness
 * constraint (what Community has; a node key would need Enterprise). {@code source} names the log: {@code journal}
 * for the local journal, {@code kafka:<topic>} for the Kafka journal's topic, {@code topic:<topic>} for an
 * application topic (source.SourcePositions). It is written in the same transaction as the batch it
 * covers, so the graph and the position commit or roll back together: replay after a crash skips exactly what was
 * applied. One convention for every log.
 *
 * <p>The fence. Before a batch's position is written, its transaction takes the node's write lock with a write that
 * changes the node ({@code fence + 1}: setting a property to itself plans no write in Neo4j 2026.08 and locks
 * nothing) and then compares the stored position with the one this applier expects. Another applier of the
 * partition (after a Kafka rebalance, a zombie that has not heard of its revocation yet, a killed process whose
 * last commit is still in flight on a remote server) blocks on that lock until this transaction ends, then sees
 * the new position and is {@link #FENCED}: its batch rolls back. So two appliers never both apply a record.
 *
 * <p>Positions kept by earlier versions ({@code (:SluiceOffset {partition, offset})}, the last applied offset, and
 * {@code (:SluiceKafkaOffset {topic, partition, offset})}, the next) are adopted once, when a partition's node is
 * first created: {@link Legacy}. Thread-safe.
 */
public final class GraphPositions {
    /** A batch whose partition another applier has moved on: rolled back, applied by no one twice. */
    public static final String FENCED = Neo4jStatus.Sluice.PARTITION_FENCED;

    private static final String SCHEMA = "CREATE CONSTRAINT sluice_position IF NOT EXISTS "
            + "FOR (o:SluicePosition) REQUIRE (o.source, o.partition) IS UNIQUE";
    private static final String LOCK_AND_READ = "MATCH (o:SluicePosition {source: $s, partition: $p}) "
            + "SET o.fence = coalesce(o.fence, 0) + 1 WITH o RETURN o.next";
    private static final String WRITE = "MATCH (o:SluicePosition {source: $s, partition: $p}) SET o.next = $n";
    private static final String ALL = "MATCH (o:SluicePosition {source: $s}) RETURN o.partition, o.next";

    /**
     * Where a partition starts when its node is created: Cypher that finds an earlier version's node as {@code l}
     * and its position as {@code legacy} ({@code OPTIONAL MATCH (l ...) WITH l, ... AS legacy}, with {@code $p}, the
     * partition, and {@code params}), null for none; 0 when it finds nothing. The earlier node is deleted once a
     * position of this version exists for it, so it is adopted once, by one log, never again by another (a new
     * journal directory, say).
     */
    public record Legacy(String match, Map<String, Object> params) {
        public static final Legacy NONE = new Legacy(null, Map.of());

        /** The local journal's {@code (:SluiceOffset {partition}).offset}: the last applied offset. */
        public static final Legacy LOCAL_JOURNAL = new Legacy(
                "OPTIONAL MATCH (l:SluiceOffset {partition: $p}) WITH l, l.offset + 1 AS legacy", Map.of());

        /** The Kafka journal's {@code (:SluiceKafkaOffset {topic, partition}).offset}: the next offset. */
        public static Legacy kafkaJournal(String topic) {
            return new Legacy("OPTIONAL MATCH (l:SluiceKafkaOffset {topic: $legacyTopic, partition: $p})"
                    + " WITH l, l.offset AS legacy", Map.of("legacyTopic", topic));
        }
    }

    private final Sink sink;
    private final String source;
    private final String ensure;
    private final Map<String, Object> legacyParams;

    public GraphPositions(Sink sink, String source, Legacy legacy) {
        this.sink = sink;
        this.source = source;
        this.ensure = (legacy.match() == null ? "" : legacy.match() + " ")
                + "MERGE (o:SluicePosition {source: $s, partition: $p}) ON CREATE SET o.next = "
                + (legacy.match() == null ? "0" : "coalesce(legacy, 0) WITH l DELETE l");
        this.legacyParams = legacy.params();
    }

    /** Which log these positions are of. */
    public String source() {
        return source;
    }

    /** The positions' constraint; {@code time} paces the retries when instances starting together collide. */
    public void createSchema(Time time) throws GraphException {
        SchemaStatements.ensure(sink, SCHEMA, time);
    }

    /**
     * Creates the partition's node when there is none (adopting an earlier version's position); takes no lock on
     * a node that exists. For an owner that reads every partition's position before it applies any (the lag).
     */
    public void ensure(int partition) throws GraphException {
        sink.inTransaction(tx -> {
            tx.runDiscarding(ensure, ensureParams(partition));
            return null;
        });
    }

    private Map<String, Object> ensureParams(int partition) {
        Map<String, Object> params = new HashMap<>(legacyParams);
        params.putAll(key(partition));
        return params;
    }

    /**
     * The partition's next offset to apply, creating its node when there is none; read under the node's lock, so a
     * batch another applier is still committing is waited for and its outcome seen.
     */
    public long readLocked(int partition) throws GraphException {
        return sink.inTransaction(tx -> {
            tx.runDiscarding(ensure, ensureParams(partition));
            return read(tx.run(LOCK_AND_READ, key(partition)));
        });
    }

    /**
     * Inside a batch's transaction: locks the node, checks it still says {@code expected} (else {@link #FENCED},
     * which rolls the batch back), and moves it to {@code next}.
     */
    public void advance(Sink.SinkTx tx, int partition, long expected, long next) throws GraphException {
        StatementResult locked = tx.run(LOCK_AND_READ, key(partition));
        if (locked.rows().isEmpty()) { // deleted under a running applier: nothing to fence against, nothing applied
            throw new GraphException(new Neo4jError(FENCED, "the position of partition " + partition + " of " + source
                    + " is gone from the graph; this batch is rolled back"), null, true);
        }
        long stored = read(locked);
        if (stored != expected) {
            // outcome "unknown" to the batch runner: no retry, no bisection; the applier re-reads where it stands
            throw new GraphException(new Neo4jError(FENCED, "partition " + partition + " of " + source + " is at "
                    + stored + ", not " + expected + ": another applier applied it; this batch is rolled back"), null,
                    true);
        }
        Map<String, Object> params = new HashMap<>(key(partition));
        params.put("n", next);
        tx.runDiscarding(WRITE, params);
    }

    /** Moves {@code partition} to {@code next} in a transaction of its own (its last records were dead-lettered). */
    public void advanceAlone(int partition, long expected, long next) throws GraphException {
        advanceAlone(partition, expected, next, tx -> { });
    }

    /** The same, with more of the log's state written in that transaction ({@code also}). */
    public void advanceAlone(int partition, long expected, long next, Also also) throws GraphException {
        sink.inTransaction(tx -> {
            advance(tx, partition, expected, next);
            also.write(tx);
            return null;
        });
    }

    /** What else a position's own transaction writes. */
    @FunctionalInterface
    public interface Also {
        void write(Sink.SinkTx tx) throws GraphException;
    }

    /** Every partition's next offset to apply, as committed (no lock). */
    public Map<Integer, Long> all() throws GraphException {
        StatementResult r = sink.inReadTransaction(tx -> tx.run(ALL, Map.of("s", source)));
        Map<Integer, Long> out = new HashMap<>();
        for (List<Object> row : r.rows()) {
            out.put(((Number) row.get(0)).intValue(), ((Number) row.get(1)).longValue());
        }
        return out;
    }

    private Map<String, Object> key(int partition) {
        return Map.of("s", source, "p", (long) partition);
    }

    private static long read(StatementResult r) {
        return ((Number) r.rows().getFirst().getFirst()).longValue();
    }
}
