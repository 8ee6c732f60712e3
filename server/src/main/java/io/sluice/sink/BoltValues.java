package io.sluice.sink;

import io.sluice.vocab.GraphValues.GraphDuration;
import io.sluice.vocab.GraphValues.GraphNode;
import io.sluice.vocab.GraphValues.GraphPath;
import io.sluice.vocab.GraphValues.GraphPoint;
import io.sluice.vocab.GraphValues.GraphRelationship;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.neo4j.driver.types.IsoDuration;
import org.neo4j.driver.types.Node;
import org.neo4j.driver.types.Path;
import org.neo4j.driver.types.Point;
import org.neo4j.driver.types.Relationship;
import org.neo4j.values.storable.CoordinateReferenceSystem;

/**
 * Converts what the Java driver returns into the same detached values {@link Values} makes of the embedded
 * database's results, so the HTTP layer cannot tell the sinks apart: graph entities become {@link GraphNode} and
 * friends, temporals the same java.time classes, durations a {@link GraphDuration}, points a {@link GraphPoint},
 * integers {@code Long}; and sluice's value records in parameters into the driver's types.
 */
final class BoltValues {
    private BoltValues() {}

    /** Converts one value of a record, as the driver's {@code Value.asObject()} returns it. */
    static Object detach(Object v) {
        return switch (v) {
            case null -> null;
            case String s -> s;
            case Number n -> n;
            case Boolean b -> b;
            case Node n -> node(n);
            case Relationship r -> relationship(r);
            case Path p -> path(p);
            case Point p -> point(p);
            case IsoDuration d -> new GraphDuration(d.months(), d.days(), d.seconds(), d.nanoseconds());
            case TemporalAccessor t -> Values.temporal(t);
            case List<?> l -> list(l);
            case Map<?, ?> m -> map(m);
            case byte[] b -> b;
            default -> v.toString();
        };
    }

    @SuppressWarnings("deprecation") // the numeric id is still part of Neo4j's classic HTTP format
    private static GraphNode node(Node n) {
        List<String> labels = new ArrayList<>();
        n.labels().forEach(labels::add);
        return new GraphNode(n.id(), n.elementId(), labels, map(n.asMap()));
    }

    @SuppressWarnings("deprecation")
    private static GraphRelationship relationship(Relationship r) {
        return new GraphRelationship(r.id(), r.elementId(), r.type(), r.startNodeElementId(), r.endNodeElementId(),
                map(r.asMap()), r.startNodeId(), r.endNodeId());
    }

    private static GraphPath path(Path p) {
        List<GraphNode> nodes = new ArrayList<>();
        p.nodes().forEach(n -> nodes.add(node(n)));
        List<GraphRelationship> rels = new ArrayList<>();
        p.relationships().forEach(r -> rels.add(relationship(r)));
        return new GraphPath(nodes, rels);
    }

    private static GraphPoint point(Point p) {
        CoordinateReferenceSystem crs = CoordinateReferenceSystem.get(p.srid());
        List<Double> coords = crs.getDimension() == 3 ? List.of(p.x(), p.y(), p.z()) : List.of(p.x(), p.y());
        return new GraphPoint(p.srid(), coords);
    }

    /** The parameters with sluice's value records made into the driver's types. */
    static Map<String, Object> params(Map<String, Object> params) {
        return Values.params(params, BoltValues::param);
    }

    private static Object param(Object v) {
        return switch (v) {
            case GraphDuration d -> org.neo4j.driver.Values.isoDuration(d.months(), d.days(), d.seconds(), d.nanos())
                    .asIsoDuration();
            case GraphPoint p -> p.coordinates().size() == 3
                    ? org.neo4j.driver.Values.point(p.srid(), p.coordinates().get(0), p.coordinates().get(1),
                            p.coordinates().get(2)).asPoint()
                    : org.neo4j.driver.Values.point(p.srid(), p.coordinates().get(0), p.coordinates().get(1)).asPoint();
            default -> v;
        };
    }

    private static List<Object> list(List<?> l) {
        return Values.list(l, BoltValues::detach);
    }

    private static Map<String, Object> map(Map<?, ?> m) {
        return Values.map(m, BoltValues::detach);
    }
}
