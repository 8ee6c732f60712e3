package io.sluice.sink;

import io.sluice.sink.Values.GraphNode;
import io.sluice.sink.Values.GraphPath;
import io.sluice.sink.Values.GraphPoint;
import io.sluice.sink.Values.GraphRelationship;
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
import org.neo4j.values.storable.DurationValue;

/**
 * Converts what the Java driver returns into the same detached values {@link Values} makes of the embedded
 * database's results, so the HTTP layer cannot tell the sinks apart: graph entities become {@link GraphNode} and
 * friends, temporals their ISO-8601 text (durations formatted by Neo4j's own {@link DurationValue}, the way the
 * embedded database prints them), points a {@link GraphPoint}, integers {@code Long}.
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
            case IsoDuration d -> DurationValue.duration(d.months(), d.days(), d.seconds(), d.nanoseconds()).toString();
            case TemporalAccessor t -> t.toString();
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
                map(r.asMap()));
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
        return new GraphPoint(p.srid(), crs.getType(), coords);
    }

    private static List<Object> list(List<?> l) {
        return Values.list(l, BoltValues::detach);
    }

    private static Map<String, Object> map(Map<?, ?> m) {
        return Values.map(m, BoltValues::detach);
    }
}
