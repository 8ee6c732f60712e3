package io.sluice.sink;

import io.sluice.vocab.GraphValues.GraphDuration;
import io.sluice.vocab.GraphValues.GraphNode;
import io.sluice.vocab.GraphValues.GraphPath;
import io.sluice.vocab.GraphValues.GraphPoint;
import io.sluice.vocab.GraphValues.GraphRelationship;
import java.lang.reflect.Array;
import java.time.Duration;
import java.time.Period;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.neo4j.graphdb.Entity;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Path;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.spatial.Point;
import org.neo4j.values.storable.CoordinateReferenceSystem;
import org.neo4j.values.storable.DurationValue;

/**
 * Converts what Neo4j returns into plain values that outlive the transaction, keeping their Cypher type: graph
 * entities, points and durations become the records below; dates and times the java.time class of their Cypher
 * type ({@code DATE} LocalDate, {@code ZONED TIME} OffsetTime, {@code LOCAL TIME} LocalTime, {@code ZONED DATETIME}
 * OffsetDateTime for a fixed offset or ZonedDateTime for a region id, {@code LOCAL DATETIME} LocalDateTime);
 * byte arrays stay {@code byte[]}, integers {@code Long}, floats {@code Double}.
 *
 * <p>The same records go the other way as parameters: {@link #embeddedParams} turns them back into what the
 * embedded database accepts ({@link BoltValues#params} into what the driver accepts).
 */
public final class Values {
    private Values() {}

    /** Converts one value returned by the embedded database. Must run inside the transaction. */
    public static Object detach(Object v) {
        return switch (v) {
            case null -> null;
            case String s -> s;
            case Number n -> n;
            case Boolean b -> b;
            case Node n -> node(n);
            case Relationship r -> relationship(r);
            case Path p -> path(p);
            case Point p -> point(p);
            case DurationValue d -> GraphDuration.of(d);
            case TemporalAccessor t -> temporal(t);
            case Duration d -> GraphDuration.of(DurationValue.duration(d));
            case Period d -> GraphDuration.of(DurationValue.duration(d));
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
                r.getStartNode().getElementId(), r.getEndNode().getElementId(), properties(r), r.getStartNode().getId(),
                r.getEndNode().getId());
    }

    private static GraphPath path(Path p) {
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
        return new GraphPoint(p.getCRS().getCode(), coords);
    }

    /** A zoned datetime with a fixed offset is an OffsetDateTime, as Neo4j's typed JSON calls it. */
    static Object temporal(TemporalAccessor t) {
        if (t instanceof ZonedDateTime z && z.getZone() instanceof ZoneOffset) {
            return z.toOffsetDateTime();
        }
        return t;
    }

    /** The parameters with sluice's value records made into what the embedded database accepts. */
    public static Map<String, Object> embeddedParams(Map<String, Object> params) {
        return params(params, Values::embeddedParam);
    }

    private static Object embeddedParam(Object v) {
        return switch (v) {
            case GraphDuration d -> d.value();
            case GraphPoint p -> org.neo4j.values.storable.Values.pointValue(CoordinateReferenceSystem.get(p.srid()),
                    p.coordinates().stream().mapToDouble(Double::doubleValue).toArray());
            default -> v;
        };
    }

    /**
     * {@code params} with every value (also inside lists and maps) passed through {@code leaf}; the same map
     * when nothing changed, so ordinary parameters cost one walk and no copy.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> params(Map<String, Object> params, UnaryOperator<Object> leaf) {
        return (Map<String, Object>) convert(params, leaf);
    }

    private static Object convert(Object v, UnaryOperator<Object> leaf) {
        switch (v) {
            case Map<?, ?> m -> {
                Map<Object, Object> out = null;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    Object c = convert(e.getValue(), leaf);
                    if (c != e.getValue() && out == null) {
                        out = new LinkedHashMap<>(m);
                    }
                    if (out != null) {
                        out.put(e.getKey(), c);
                    }
                }
                return out == null ? m : out;
            }
            case List<?> l -> {
                List<Object> out = null;
                for (int i = 0; i < l.size(); i++) {
                    Object c = convert(l.get(i), leaf);
                    if (c != l.get(i) && out == null) {
                        out = new ArrayList<>(l);
                    }
                    if (out != null) {
                        out.set(i, c);
                    }
                }
                return out == null ? l : out;
            }
            case null -> {
                return null;
            }
            default -> {
                return leaf.apply(v);
            }
        }
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
    static List<Object> list(List<?> l, UnaryOperator<Object> detach) {
        List<Object> out = new ArrayList<>(l.size());
        for (Object o : l) {
            out.add(detach.apply(o));
        }
        return out;
    }

    /** A map with string keys, its values converted by {@code detach}, in its order. */
    static Map<String, Object> map(Map<?, ?> m, UnaryOperator<Object> detach) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((k, val) -> out.put(String.valueOf(k), detach.apply(val)));
        return out;
    }

    private static List<Object> primitiveArray(Object array) {
        int n = Array.getLength(array);
        List<Object> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(detach(Array.get(array, i)));
        }
        return out;
    }
}
