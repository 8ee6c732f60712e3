package io.sluice.format;

import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import java.util.List;
import java.util.Map;

/**
 * The version of what sluice keeps in the graph (its positions: {@code (:SluicePosition {source, partition, next})}),
 * in one node, {@code (:SluiceFormat {name: 'sluice'})}, checked at start before anything is applied: the graph may
 * be a Neo4j server shared by a fleet of sluice instances of different versions (docs/OPERATIONS.md, "Upgrade").
 *
 * <h2>Design</h2>
 * Format 1: positions without the node (sluice 0.1), and the older {@code SluiceOffset} and {@code SluiceKafkaOffset}
 * nodes {@code GraphPositions} still adopts. Format 2: the same positions, marked. A graph without the node but with
 * positions is format 1 and is marked (said once, in the log); a graph with neither is new; a graph marked with a
 * newer format is refused ({@link DataFormat.Refused}) before any position is read or moved. The mark is written
 * with {@code MERGE} in one transaction, so instances starting together mark it once.
 */
public final class GraphFormat {
    /** The layout of sluice's nodes this sluice writes and reads. */
    public static final int CURRENT = 2;
    private static final String READ = "OPTIONAL MATCH (f:SluiceFormat {name: 'sluice'}) "
            + "RETURN f.format AS format, f.written_by AS writtenBy";
    private static final String OLDER = "MATCH (o) WHERE o:SluicePosition OR o:SluiceOffset OR o:SluiceKafkaOffset "
            + "RETURN count(o) AS n";
    private static final String SCHEMA = "CREATE CONSTRAINT sluice_format IF NOT EXISTS FOR (f:SluiceFormat) "
            + "REQUIRE f.name IS UNIQUE";
    private static final String MARK = "MERGE (f:SluiceFormat {name: 'sluice'}) "
            + "ON CREATE SET f.format = $format, f.written_by = $by, f.upgraded_from = $from "
            + "RETURN f.format AS format, f.written_by AS writtenBy";

    private GraphFormat() {}

    /**
     * Checks the graph's format, marking a new or older graph when {@code mark} (not in a dry run); returns what it
     * found and did, in words. Throws {@link DataFormat.Refused} for a newer format.
     */
    public static String check(Sink sink, String writtenBy, boolean mark) throws GraphException, DataFormat.Refused {
        List<Object> found = sink.inReadTransaction(tx -> tx.run(READ, Map.of())).rows().getFirst();
        if (found.getFirst() != null) {
            return checked(((Number) found.getFirst()).intValue(), found.get(1), writtenBy);
        }
        long older = ((Number) sink.inReadTransaction(tx -> tx.run(OLDER, Map.of())).rows().getFirst().getFirst())
                .longValue();
        int from = older > 0 ? 1 : 0;
        if (!mark) {
            return from == 0 ? "the graph holds no sluice positions yet" : "the graph's positions are format 1"
                    + " (sluice 0.1, " + older + " position nodes): a start marks them as format " + CURRENT;
        }
        sink.runImplicit(SCHEMA, Map.of()); // one node, however many instances start at once
        List<Object> now = sink.inTransaction(tx -> tx.run(MARK, Map.of("format", (long) CURRENT, "by", writtenBy,
                "from", (long) from))).rows().getFirst();
        int format = ((Number) now.getFirst()).intValue();
        if (format != CURRENT) { // another instance marked it first, in another format
            return checked(format, now.get(1), writtenBy);
        }
        return from == 0 ? "the graph: new, format " + CURRENT
                : "the graph: positions of format 1 (sluice 0.1, " + older + " position nodes) upgraded to format "
                        + CURRENT + " (used as they are; (:SluiceFormat) written)";
    }

    private static String checked(int format, Object writtenBy, String self) throws DataFormat.Refused {
        if (format > CURRENT) {
            throw new DataFormat.Refused("the graph's sluice nodes are in format " + format + ", written by "
                    + (writtenBy == null ? "a newer sluice" : writtenBy) + "; this sluice (" + self + ") reads formats"
                    + " up to " + CURRENT + ". Run that version or a newer one (docs/OPERATIONS.md, \"Rollback\")");
        }
        return "the graph: format " + format;
    }
}
