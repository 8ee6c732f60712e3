package io.sluice.durable;

import io.sluice.sink.Sink;
import io.sluice.sink.SinkException;
import io.sluice.sink.StatementResult;
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
    private static final String READ = "MATCH (o:SluiceOffset {partition: $p}) RETURN o.offset";

    private final Sink sink;
    private final long partition;

    OffsetStore(Sink sink, long partition) {
        this.sink = sink;
        this.partition = partition;
    }

    void createSchema() throws SinkException {
        try {
            sink.runImplicit(SCHEMA, Map.of());
        } catch (SinkException e) {
            if (!e.error().code().contains("AlreadyExists")) {
                throw e;
            }
        }
    }

    /** The highest applied offset, or -1 when nothing was ever applied. */
    long read() throws SinkException {
        StatementResult r = sink.inReadTransaction(tx -> tx.run(READ, Map.of("p", partition)));
        return r.rows().isEmpty() ? -1 : ((Number) r.rows().getFirst().getFirst()).longValue();
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
