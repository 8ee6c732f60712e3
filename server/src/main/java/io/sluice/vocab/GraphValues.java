package io.sluice.vocab;

import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.neo4j.values.storable.CoordinateReferenceSystem;
import org.neo4j.values.storable.DurationValue;

/**
 * Neo4j's values that are not plain Java ones, detached from any transaction: what a {@link StatementResult}'s rows
 * hold and what parameters may carry (the sink converts Neo4j's own values to and from them, each front end to
 * and from its wire format).
 */
public final class GraphValues {
    private GraphValues() {}

    /** A node, detached from its transaction. */
    public record GraphNode(long id, String elementId, List<String> labels, Map<String, Object> properties) {}

    /** A relationship, detached from its transaction. */
    public record GraphRelationship(long id, String elementId, String type, String startNodeElementId,
            String endNodeElementId, Map<String, Object> properties, long startNodeId, long endNodeId) {}

    /** A path: its nodes and relationships in order. */
    public record GraphPath(List<GraphNode> nodes, List<GraphRelationship> relationships) {}

    /** A spatial point: its coordinate reference system (by SRID) and its 2 or 3 coordinates. */
    public record GraphPoint(int srid, List<Double> coordinates) {
        public GraphPoint {
            coordinates = List.copyOf(coordinates);
            CoordinateReferenceSystem crs = crsOf(srid);
            if (coordinates.size() != crs.getDimension()) {
                throw new IllegalArgumentException("SRID " + srid + " (" + crs.getName() + ") needs "
                        + crs.getDimension() + " coordinates, got " + coordinates);
            }
        }

        /** Neo4j's name for the kind of the reference system: {@code cartesian}, {@code wgs-84}, ... */
        public String crs() {
            return crsOf(srid).getType();
        }

        /** Neo4j's name of the reference system itself: {@code cartesian}, {@code wgs-84-3d}, ... */
        public String crsName() {
            return crsOf(srid).getName();
        }

        /** Where the reference system is described (spatialreference.org), as Neo4j's classic format links it. */
        public String crsHref() {
            return crsOf(srid).getHref();
        }

        private static CoordinateReferenceSystem crsOf(int srid) {
            try {
                return CoordinateReferenceSystem.get(srid);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("unknown SRID " + srid + "; Neo4j knows 4326, 4979, 7203, 9157");
            }
        }
    }

    /**
     * A Cypher duration in Neo4j's model: months, days, seconds and nanoseconds, each kept apart (a month is not
     * a number of days). {@link #toString} is Neo4j's own text, e.g. {@code P1Y2M3DT4H5M6.7S}.
     */
    public record GraphDuration(long months, long days, long seconds, int nanos) {
        public GraphDuration {
            if (nanos < 0 || nanos > 999_999_999) {
                throw new IllegalArgumentException("nanos must be in 0..999999999, got " + nanos);
            }
        }

        /** Parses Neo4j's duration text (ISO-8601 and Neo4j's extensions), as Neo4j does. */
        public static GraphDuration parse(String text) {
            return of(DurationValue.parse(text));
        }

        public static GraphDuration of(DurationValue d) {
            return new GraphDuration(d.get(ChronoUnit.MONTHS), d.get(ChronoUnit.DAYS), d.get(ChronoUnit.SECONDS),
                    (int) d.get(ChronoUnit.NANOS));
        }

        public DurationValue value() {
            return DurationValue.duration(months, days, seconds, nanos);
        }

        @Override
        public String toString() {
            return value().toString();
        }
    }
}
