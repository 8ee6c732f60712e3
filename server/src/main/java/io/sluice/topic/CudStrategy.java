package io.sluice.topic;

import static io.sluice.topic.CudShape.DETACH;
import static io.sluice.topic.CudShape.ELEMENT_ID;
import static io.sluice.topic.CudShape.FROM;
import static io.sluice.topic.CudShape.IDS;
import static io.sluice.topic.CudShape.LABELS;
import static io.sluice.topic.CudShape.OP;
import static io.sluice.topic.CudShape.PHYSICAL_ID;
import static io.sluice.topic.CudShape.PROPERTIES;
import static io.sluice.topic.CudShape.REL_TYPE;
import static io.sluice.topic.CudShape.ROW_FROM;
import static io.sluice.topic.CudShape.ROW_IDS;
import static io.sluice.topic.CudShape.ROW_PROPS;
import static io.sluice.topic.CudShape.ROW_TO;
import static io.sluice.topic.CudShape.TO;
import static io.sluice.topic.CudShape.TYPE;
import static io.sluice.topic.CudShape.kindOf;

import io.sluice.topic.CudShape.Action;
import io.sluice.topic.CudShape.By;
import io.sluice.topic.CudShape.End;
import io.sluice.topic.CudShape.Identity;
import io.sluice.topic.CudShape.Ids;
import io.sluice.topic.CudShape.Kind;
import io.sluice.topic.CudShape.Lookup;
import io.sluice.topic.CudShape.Shape;
import io.sluice.write.Template;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Neo4j Kafka Connector's CUD strategy: each record's value is one operation that says what to do (create,
 * update, merge or delete) to which node or relationship ({@code docs/reference/connector-cud.md} has the format
 * and where in the connector's source each rule comes from). Sluice's extension: a value that is an array of
 * operations applies them all, in order, atomically.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>A template per shape.</b> What the statement looks like depends on the operation's shape only: type,
 *       op, labels, the names of its id properties (or an {@code _id} / {@code _elementId} lookup), detach, the
 *       relationship type and its ends' labels, id names and lookup ({@code match} / {@code merge}). The values
 *       (ids, properties) go in the row. Labels, types and property keys are written into the Cypher, quoted, so
 *       that lookups use the indexes and constraints on them, as the connector's are. Templates are cached by
 *       shape (up to {@code maxShapes}; past it one is made for each record and not kept), so the rows of one
 *       shape share one template instance and the batcher runs them as one {@code UNWIND}.</li>
 *   <li><b>One row at a time.</b> Each template is {@code CALL (row) { ... }}: the connector runs each message in
 *       a {@code CALL (e)} subquery, so that a message sees what the ones before it wrote and its
 *       {@code LIMIT 1} (a relationship looked up without ids) is per message; the same form keeps both here.</li>
 *   <li><b>The connector's rules.</b> A record is checked as the connector checks it, in its order: the
 *       {@code type} and {@code op}, then its JSON schema ({@code cud.schema.v1.json}: which fields each
 *       operation has and of what type; unknown fields are refused), then the operation's own rules (ids
 *       present, merge only by labels and properties, deleting a relationship only between matched ends). The
 *       messages are the connector's where it has one, with the record's detail where its message would be
 *       bare. What only the database can tell (a node deleted without {@code detach} that still has
 *       relationships, a merge on a null or map value) fails the batch as it fails the connector's.</li>
 *   <li><b>Keys and lock order.</b> A node's row is keyed, and lock-ordered, by its ids; a relationship's by its
 *       ends' ids (from, then to), so rows touching the same pair keep their order and concurrent batches lock
 *       the ends in one order.</li>
 * </ul>
 *
 * <p>Thread-safe: immutable but for the concurrent template cache.
 */
public final class CudStrategy implements Strategy {
    /** How many shapes are cached by default. */
    public static final int DEFAULT_MAX_SHAPES = 1000;

    private final String topic;
    private final int maxShapes;
    private final ConcurrentHashMap<Shape, Template> templates = new ConcurrentHashMap<>();

    public CudStrategy(String topic) {
        this(topic, DEFAULT_MAX_SHAPES);
    }

    /** {@code topic} names the templates; at most {@code maxShapes} templates are cached. */
    public CudStrategy(String topic, int maxShapes) {
        if (maxShapes < 0) {
            throw new IllegalArgumentException("maxShapes must be 0 or more, got " + maxShapes);
        }
        this.topic = topic;
        this.maxShapes = maxShapes;
    }

    @Override
    public List<Op> ops(Message message) throws Invalid {
        Object value = message.value();
        if (value == null) {
            throw new Invalid("a tombstone (null value) is not a CUD operation: the CUD strategy has nothing to"
                    + " apply for it");
        }
        if (value instanceof Map<?, ?> operation) {
            return List.of(op(operation));
        }
        if (value instanceof List<?> operations) {
            return ops(operations);
        }
        throw new Invalid("Message value must be convertible to a Map (a CUD operation) or be an array of"
                + " them, got " + kindOf(value) + ".");
    }

    /**
     * CUD shapes come from the records, so there is nothing to check before consuming: no statement to compile,
     * no key known in advance to need a constraint.
     */
    @Override
    public List<Check> checks() {
        return List.of();
    }

    /** How many shapes are cached (for tests). */
    int cachedShapes() {
        return templates.size();
    }

    private List<Op> ops(List<?> operations) throws Invalid {
        List<Op> ops = new ArrayList<>(operations.size());
        for (int i = 0; i < operations.size(); i++) {
            try {
                if (!(operations.get(i) instanceof Map<?, ?> operation)) {
                    throw new Invalid("Message value must be convertible to a Map, got "
                            + kindOf(operations.get(i)) + ".");
                }
                ops.add(op(operation));
            } catch (Invalid e) {
                throw new Invalid("operation " + i + " of " + operations.size() + ": " + e.getMessage());
            }
        }
        return ops;
    }

    private Op op(Map<?, ?> value) throws Invalid {
        Kind kind = kind(value.get(TYPE));
        Action action = action(value.get(OP));
        CudSchema.conform(value, kind, action);
        return kind == Kind.NODE ? node(action, value) : relationship(action, value);
    }

    // ---- reading an operation ----

    private static Kind kind(Object type) throws Invalid {
        if (type == null) {
            throw new Invalid("CUD file type must be specified.");
        }
        if (!(type instanceof String s)) {
            throw new Invalid("Unsupported data type ('" + type + "') in CUD file type.");
        }
        for (Kind k : Kind.values()) {
            if (k.name().equalsIgnoreCase(s)) {
                return k;
            }
        }
        throw new Invalid("CUD file type must be specified: node or relationship, got '" + s + "'.");
    }

    private static Action action(Object op) throws Invalid {
        if (op == null) {
            throw new Invalid("CUD file operation must be specified.");
        }
        if (!(op instanceof String s)) {
            throw new Invalid("Unsupported data type ('" + op + "') for CUD file operation");
        }
        for (Action a : Action.values()) {
            if (a.name().equalsIgnoreCase(s)) {
                return a;
            }
        }
        throw new Invalid("CUD file operation must be specified: create, update, merge or delete, got '" + s
                + "'.");
    }

    private Op node(Action action, Map<?, ?> value) throws Invalid {
        List<String> labels = labels(value.get(LABELS));
        if (action == Action.CREATE) {
            return op(new Shape(Kind.NODE, action, labels, null, false, null, null, null),
                    Map.of(ROW_PROPS, properties(value)));
        }
        Map<?, ?> given = (Map<?, ?>) value.get(IDS);
        if (given.isEmpty()) {
            throw new Invalid("Node must contain at least one ID property.");
        }
        Ids ids = ids(given, IDS);
        if (action == Action.MERGE && ids.identity().by() != By.PROPERTIES) {
            throw new Invalid("Failed to transform message: can only use labels and properties as a matcher for"
                    + " merge node action.");
        }
        boolean detach = action == Action.DELETE && Boolean.TRUE.equals(value.get(DETACH));
        Shape shape = new Shape(Kind.NODE, action, ids.identity().by() == By.PROPERTIES ? labels : List.of(),
                ids.identity(), detach, null, null, null);
        return op(shape, action == Action.DELETE ? Map.of(ROW_IDS, ids.values())
                : Map.of(ROW_IDS, ids.values(), ROW_PROPS, properties(value)));
    }

    private Op relationship(Action action, Map<?, ?> value) throws Invalid {
        String type = (String) value.get(REL_TYPE);
        if (type.isEmpty()) {
            throw new Invalid("'" + REL_TYPE + "' must be specified.");
        }
        Map<?, ?> from = (Map<?, ?>) value.get(FROM);
        Map<?, ?> to = (Map<?, ?>) value.get(TO);
        if (action == Action.DELETE && (lookup(from) != Lookup.MATCH || lookup(to) != Lookup.MATCH)) {
            throw new Invalid("'" + FROM + "' and '" + TO + "' must have '" + OP + "' as 'MATCH' for relationship"
                    + " deletion operations.");
        }
        if (((Map<?, ?>) from.get(IDS)).isEmpty() || ((Map<?, ?>) to.get(IDS)).isEmpty()) {
            throw new Invalid("'" + FROM + "' and '" + TO + "' must contain at least one ID property.");
        }
        Ids fromIds = ids((Map<?, ?>) from.get(IDS), FROM + "." + IDS);
        End fromEnd = end(from, fromIds, "start");
        Ids toIds = ids((Map<?, ?>) to.get(IDS), TO + "." + IDS);
        End toEnd = end(to, toIds, "end");
        if (action == Action.UPDATE) {
            requireMatch(fromEnd, "start");
            requireMatch(toEnd, "end");
        }
        if (action == Action.CREATE) {
            return op(new Shape(Kind.RELATIONSHIP, action, List.of(), null, false, type, fromEnd, toEnd),
                    Map.of(ROW_FROM, fromIds.values(), ROW_TO, toIds.values(), ROW_PROPS, properties(value)));
        }
        Map<?, ?> given = value.get(IDS) == null ? Map.of() : (Map<?, ?>) value.get(IDS);
        Ids ids = given.isEmpty() ? new Ids(new Identity(By.PROPERTIES, List.of()), Map.of()) : ids(given, IDS);
        if (action == Action.MERGE && ids.identity().by() != By.PROPERTIES) {
            throw new Invalid("a relationship merge cannot find its relationship by " + ids.identity().keys().getFirst()
                    + ": MERGE creates what it does not find, and it cannot create one with a given id; use update");
        }
        Shape shape = new Shape(Kind.RELATIONSHIP, action, List.of(), ids.identity(), false, type, fromEnd, toEnd);
        Map<String, Object> row = new LinkedHashMap<>();
        row.put(ROW_FROM, fromIds.values());
        row.put(ROW_TO, toIds.values());
        row.put(ROW_IDS, ids.values());
        if (action != Action.DELETE) {
            row.put(ROW_PROPS, properties(value));
        }
        return op(shape, row);
    }

    /** A relationship's end; a merged one must be found by labels (at least one) and properties. */
    private static End end(Map<?, ?> ref, Ids ids, String which) throws Invalid {
        Lookup lookup = lookup(ref);
        List<String> labels = labels(ref.get(LABELS));
        if (lookup == Lookup.MERGE) {
            if (ids.identity().by() != By.PROPERTIES) {
                throw new Invalid("Failed to transform message: can only use labels and properties as a matcher for"
                        + " MERGE lookup mode (" + which + " node).");
            }
            if (labels.isEmpty()) {
                throw new Invalid("Failed to transform message: match labels must not be empty (" + which
                        + " node is merged).");
            }
        }
        return new End(lookup, ids.identity().by() == By.PROPERTIES ? labels : List.of(), ids.identity());
    }

    private static void requireMatch(End end, String which) throws Invalid {
        if (end.lookup() != Lookup.MATCH) {
            throw new Invalid("Failed to transform message: " + which + " node must use MATCH lookup mode for"
                    + " update relationship action.");
        }
    }

    private static Lookup lookup(Map<?, ?> ref) {
        Object op = ref.get(OP);
        return op != null && ((String) op).equalsIgnoreCase("merge") ? Lookup.MERGE : Lookup.MATCH;
    }

    /** The labels, distinct and sorted (the connector reads them as a set and writes them sorted). */
    private static List<String> labels(Object labels) throws Invalid {
        if (labels == null) {
            return List.of();
        }
        TreeSet<String> sorted = new TreeSet<>();
        for (Object label : (List<?>) labels) {
            if (((String) label).isEmpty()) {
                throw new Invalid("$." + LABELS + ": a label must not be empty");
            }
            sorted.add((String) label);
        }
        return List.copyOf(sorted);
    }

    /**
     * The ids: {@code _id} (a number) or else {@code _elementId} (a string) when present, the other ids then
     * ignored, as the connector does; else the properties, none of them null (a null never matches; MERGE
     * refuses it).
     */
    private static Ids ids(Map<?, ?> ids, String path) throws Invalid {
        if (ids.containsKey(PHYSICAL_ID)) {
            if (!(ids.get(PHYSICAL_ID) instanceof Number id)) {
                throw new Invalid("Map element '" + PHYSICAL_ID + "' is not an instance of Number ($." + path + "."
                        + PHYSICAL_ID + " is " + kindOf(ids.get(PHYSICAL_ID)) + ")");
            }
            return new Ids(new Identity(By.ID, List.of(PHYSICAL_ID)), Map.of(PHYSICAL_ID, id.longValue()));
        }
        if (ids.containsKey(ELEMENT_ID)) {
            if (!(ids.get(ELEMENT_ID) instanceof String id)) {
                throw new Invalid("Map element '" + ELEMENT_ID + "' is not an instance of String ($." + path + "."
                        + ELEMENT_ID + " is " + kindOf(ids.get(ELEMENT_ID)) + ")");
            }
            return new Ids(new Identity(By.ELEMENT_ID, List.of(ELEMENT_ID)), Map.of(ELEMENT_ID, id));
        }
        Map<String, Object> values = new LinkedHashMap<>();
        for (var e : ids.entrySet()) {
            String key = (String) e.getKey();
            if (key.isEmpty()) {
                throw new Invalid("$." + path + ": an id property name must not be empty");
            }
            if (e.getValue() == null) {
                throw new Invalid("Values of '" + IDS + "' must not be null ($." + path + "." + key + " is null)");
            }
            values.put(key, e.getValue());
        }
        return new Ids(new Identity(By.PROPERTIES, List.copyOf(new TreeSet<>(values.keySet()))), values);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> properties(Map<?, ?> value) {
        return (Map<String, Object>) value.get(PROPERTIES);
    }

    // ---- templates ----

    private Op op(Shape shape, Map<String, Object> row) {
        return new Op(template(shape), row);
    }

    private Template template(Shape shape) {
        Template t = templates.get(shape);
        if (t != null) {
            return t;
        }
        if (templates.size() >= maxShapes) {
            return build(shape);
        }
        return templates.computeIfAbsent(shape, this::build);
    }

    private Template build(Shape s) {
        String cypher = "CALL (row) { " + CudCypher.of(s) + " }";
        return new Template("cud " + topic + ": " + CudCypher.describe(s), cypher, "UNWIND $" + Template.ROWS_PARAM
                + " AS row " + cypher, CudCypher.key(s), Set.of(), Map.of(), CudCypher.lockOrder(s));
    }
}
