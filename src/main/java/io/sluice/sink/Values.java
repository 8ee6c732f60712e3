package io.sluice.sink;

import java.time.temporal.TemporalAccessor;
import java.time.temporal.TemporalAmount;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.neo4j.graphdb.Entity;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.spatial.Point;

/**
 * Converts what Neo4j returns into plain values that outlive the transaction and serialise to JSON: graph
 * entities become the records below, temporal values their ISO-8601 text, points a {@link GraphPoint}.
 */
public final class Values {
    private Values() {}

    /** A node, detached from its transaction. */
    public record GraphNode(long id, String elementId, List<String> labels, Map<String, Object> properties) {}

    /** A relationship, detached from its transaction. */
    public record GraphRelationship(long id, String elementId, String type, String startNodeElementId,
            String endNodeElementId, Map<String, Object> properties) {}

    /** A path: its nodes and relationships in order. */
    public record GraphPath(List<GraphNode> nodes, List<GraphRelationship> relationships) {}

    /** A spatial point: its coordinate reference system and coordinates. */
    public record GraphPoint(int srid, String crs, List<Double> coordinates) {}

    /** Converts one value returned by the embedded database. Must run inside the transaction. */
    public static Object detach(Object v) {
        return switch (v) {
            case null -> null;
            case String s -> s;
            case Number n -> n;
            case Boolean b -> b;
            case Node n -> node(n);
            case Relationship r -> relationship(r);
            case org.neo4j.graphdb.Path p -> path(p);
            case Point p -> point(p);
            case TemporalAccessor t -> t.toString();
            case TemporalAmount t -> t.toString();
            case List<?> l -> list(l);
            case Map<?, ?> m -> map(m);
            case Object[] a -> list(List.of(a));
            case byte[] b -> b;
            default -> v.getClass().isArray() ? primitiveArray(v) : v.toString();
        };
    }

    @SuppressWarnings("removal") // the numeric id is still part of Neo4j's classic HTTP format
    private static GraphNode node(Node n) {
        List<String> labels = new ArrayList<>();
        for (Label l : n.getLabels()) {
            labels.add(l.name());
        }
        return new GraphNode(n.getId(), n.getElementId(), labels, properties(n));
    }

    @SuppressWarnings("removal")
    private static GraphRelationship relationship(Relationship r) {
        return new GraphRelationship(r.getId(), r.getElementId(), r.getType().name(),
                r.getStartNode().getElementId(), r.getEndNode().getElementId(), properties(r));
    }

    private static GraphPath path(org.neo4j.graphdb.Path p) {
        List<GraphNode> nodes = new ArrayList<>();
        p.nodes().forEach(n -> nodes.add(node(n)));
        List<GraphRelationship> rels = new ArrayList<>();
        p.relationships().forEach(r -> rels.add(relationship(r)));
        return new GraphPath(nodes, rels);
    }

    private static GraphPoint point(Point p) {
        List<Double> coords = new ArrayList<>();
        for (double d : p.getCoordinate().getCoordinate()) {
            coords.add(d);
        }
        return new GraphPoint(p.getCRS().getCode(), p.getCRS().getType(), coords);
    }

    private static Map<String, Object> properties(Entity e) {
        return map(e.getAllProperties());
    }

    private static List<Object> list(List<?> l) {
        return list(l, Values::detach);
    }

    private static Map<String, Object> map(Map<?, ?> m) {
        return map(m, Values::detach);
    }

    /** A list's elements, each converted by {@code detach} (this class's, or {@link BoltValues}'s). */
    static List<Object> list(List<?> l, java.util.function.UnaryOperator<Object> detach) {
        List<Object> out = new ArrayList<>(l.size());
        for (Object o : l) {
            out.add(detach.apply(o));
        }
        return out;
    }

    /** A map with string keys, its values converted by {@code detach}, in its order. */
    static Map<String, Object> map(Map<?, ?> m, java.util.function.UnaryOperator<Object> detach) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, val) -> out.put(String.valueOf(k), detach.apply(val)));
        return out;
    }

    private static List<Object> primitiveArray(Object array) {
        int n = java.lang.reflect.Array.getLength(array);
        List<Object> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(detach(java.lang.reflect.Array.get(array, i)));
        }
        return out;
    }
}
