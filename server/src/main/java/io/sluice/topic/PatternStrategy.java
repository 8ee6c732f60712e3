package io.sluice.topic;

import io.sluice.config.Sources;
import io.sluice.topic.PatternParser.Mapping;
import io.sluice.topic.PatternParser.NodePattern;
import io.sluice.topic.PatternParser.RelationshipPattern;
import io.sluice.topic.PatternParser.Selection;
import io.sluice.write.Template;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Neo4j Kafka Connector's pattern strategy ({@code neo4j.pattern.topic.*}), with its semantics; what they are,
 * and where in the connector's source each comes from, is docs/reference/connector-pattern.md.
 *
 * <p>Design: a record is first flattened, as the connector flattens it, into one map of dotted paths:
 * {@code __timestamp} (a UTC datetime), {@code __header.<name>...}, {@code __key} or {@code __key.<field>...},
 * {@code __value.<field>...} (nested maps flattened, lists left whole). The pattern's selectors then read that map:
 * keys first (start node, end node, relationship), each from its explicit path, or else from {@code __value.} then
 * {@code __key.}; then properties, which exclude the value fields a key or an earlier inclusion used. A record
 * becomes one row of one of two templates made once from the pattern: a merge, or for a tombstone (a null value) a
 * delete whose keys come from the record's key. A row holds maps, each a flat map of property names:
 * {@code keys} and {@code props} for a node or the relationship, {@code startKeys}, {@code startProps},
 * {@code endKeys}, {@code endProps} for a relationship's nodes. Each row runs in its own {@code CALL (row) { }},
 * as the connector runs each event, so rows of one batch act one after another (a node a later row merges as a
 * start node sees what an earlier row set on it as an end node) and a keyless relationship's {@code LIMIT 1} is
 * per row.
 *
 * <p>Immutable, so thread-safe.
 */
public final class PatternStrategy implements Strategy {
    static final String TIMESTAMP = "__timestamp";
    static final String HEADER = "__header";
    static final String KEY = "__key";
    static final String VALUE = "__value";

    private final PatternParser.Pattern pattern;
    private final Template merge;
    private final Template delete;
    private final List<Check> checks;

    /** Throws IllegalArgumentException, naming the topic and saying what is wrong, for a pattern that is not one. */
    public PatternStrategy(String topic, Sources.PatternStrategy config) {
        try {
            this.pattern = PatternParser.parse(config.pattern());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("topic '" + topic + "': pattern " + config.pattern() + ": "
                    + e.getMessage(), e);
        }
        String name = "pattern:" + topic;
        switch (pattern) {
            case NodePattern n -> {
                // a node's rows sort by its keys: rows of one node keep their order, others touch other nodes
                merge = template(name + ":merge-node", nodeMerge(n, config.mergeNodeProperties()), List.of("keys"),
                        List.of("keys"));
                delete = template(name + ":delete-node", nodeDelete(n), List.of("keys"), List.of("keys"));
            }
            case RelationshipPattern r -> {
                List<String> nodes = List.of("startKeys", "endKeys");
                // unsorted: a node is written as the start of one row and the end of another, and sorting by
                // (start, end) could reorder those writes; deadlocks between partitions are retried instead
                merge = template(name + ":merge-relationship", relationshipMerge(r, config.mergeNodeProperties(),
                        config.mergeRelationshipProperties()), nodes, List.of());
                delete = template(name + ":delete-relationship", relationshipDelete(r), nodes, List.of());
            }
        }
        String what = "pattern " + config.pattern() + " of topic '" + topic + "': ";
        checks = List.of(new Check(what + "merge", merge.unwindCypher(), nodeKeys()),
                new Check(what + "delete (tombstones)", delete.unwindCypher(), List.of()));
    }

    @Override
    public List<Op> ops(Message message) throws Invalid {
        Map<String, Object> flat = flatten(message);
        Set<String> used = new HashSet<>();
        return switch (pattern) {
            case NodePattern n -> nodeOps(n, flat, message.tombstone(), used);
            case RelationshipPattern r -> relationshipOps(r, flat, message.tombstone(), used);
        };
    }

    @Override
    public List<Check> checks() {
        return checks;
    }

    private List<Op> nodeOps(NodePattern n, Map<String, Object> flat, boolean tombstone, Set<String> used)
            throws Invalid {
        Map<String, Object> keys = keys(n.selection(), flat, tombstone, used);
        if (tombstone) {
            // MATCH on a null property finds nothing: the connector's delete does nothing
            return keys.containsValue(null) ? List.of() : List.of(new Op(delete, Map.of("keys", keys)));
        }
        notNull(keys);
        return List.of(new Op(merge, Map.of("keys", keys, "props", properties(n.selection(), flat, used))));
    }

    private List<Op> relationshipOps(RelationshipPattern r, Map<String, Object> flat, boolean tombstone,
            Set<String> used) throws Invalid {
        Map<String, Object> startKeys = keys(r.start().selection(), flat, tombstone, used);
        Map<String, Object> endKeys = keys(r.end().selection(), flat, tombstone, used);
        Map<String, Object> keys = keys(r.selection(), flat, tombstone, used);
        if (tombstone) {
            boolean matchesNothing = startKeys.containsValue(null) || endKeys.containsValue(null)
                    || keys.containsValue(null);
            return matchesNothing ? List.of()
                    : List.of(new Op(delete, Map.of("startKeys", startKeys, "endKeys", endKeys, "keys", keys)));
        }
        notNull(startKeys);
        notNull(endKeys);
        notNull(keys);
        Map<String, Object> startProps = properties(r.start().selection(), flat, used);
        Map<String, Object> endProps = properties(r.end().selection(), flat, used);
        return List.of(new Op(merge, Map.of("startKeys", startKeys, "startProps", startProps, "endKeys", endKeys,
                "endProps", endProps, "keys", keys, "props", properties(r.selection(), flat, used))));
    }

    /** The record as the connector's flattenMessage makes it: one map of dotted paths. */
    static Map<String, Object> flatten(Message message) throws Invalid {
        Map<String, Object> flat = new LinkedHashMap<>();
        flat.put(TIMESTAMP, OffsetDateTime.ofInstant(Instant.ofEpochMilli(message.timestamp()), ZoneOffset.UTC));
        flatten(HEADER, message.headers(), flat);
        flatten(KEY, message.key(), flat);
        if (message.value() != null) {
            if (!(message.value() instanceof Map<?, ?>)) {
                throw new Invalid("Message value must be convertible to a Map.");
            }
            flatten(VALUE, message.value(), flat);
        }
        return flat;
    }

    private static void flatten(String path, Object value, Map<String, Object> into) {
        if (value instanceof Map<?, ?> map) {
            for (var e : map.entrySet()) {
                flatten(path + "." + e.getKey(), e.getValue(), into);
            }
        } else {
            into.put(path, value);
        }
    }

    /** A selection's key values by property name, each from its path (PatternEventTransformer.extractKeys). */
    private static Map<String, Object> keys(Selection s, Map<String, Object> flat, boolean tombstone,
            Set<String> used) throws Invalid {
        Map<String, Object> keys = new LinkedHashMap<>();
        for (Mapping m : s.keys()) {
            keys.put(m.to(), keyValue(m.from(), flat, tombstone, used));
        }
        return keys;
    }

    private static Object keyValue(String from, Map<String, Object> flat, boolean tombstone, Set<String> used)
            throws Invalid {
        if (explicit(from)) {
            // a tombstone has no value: its keys named in the value are read from its key
            String path = tombstone && from.startsWith(VALUE + ".") ? KEY + from.substring(VALUE.length()) : from;
            if (flat.containsKey(path)) {
                used.add(path);
                return flat.get(path);
            }
            throw new Invalid(path.startsWith(KEY + ".") ? "Key '" + after(path) + "' could not be located in the keys."
                    : path.startsWith(HEADER + ".") ? "Key '" + after(path) + "' could not be located in the headers."
                    : "Key '" + after(path) + "' could not be located in the values.");
        }
        for (String prefix : List.of(VALUE, KEY)) {
            String path = prefix + "." + from;
            if (flat.containsKey(path)) {
                used.add(path);
                return flat.get(path);
            }
        }
        throw new Invalid("Key '" + from + "' could not be located in the message.");
    }

    /** MERGE fails on a null property; the connector leaves that to Neo4j, which fails the whole batch. */
    private static void notNull(Map<String, Object> keys) throws Invalid {
        for (var e : keys.entrySet()) {
            if (e.getValue() == null) {
                throw new Invalid("Key '" + e.getKey() + "' is null: nothing can be merged on a null key.");
            }
        }
    }

    /**
     * A selection's properties (PatternEventTransformer.computeProperties): with {@code *}, every value field no key
     * or earlier inclusion used; then each inclusion, a leaf by its name or a map's leaves under its name as a
     * prefix; then the exclusions, of a property or of every property under it.
     */
    private static Map<String, Object> properties(Selection s, Map<String, Object> flat, Set<String> used) {
        Map<String, Object> props = new LinkedHashMap<>();
        if (s.all()) {
            for (var e : flat.entrySet()) {
                if (e.getKey().startsWith(VALUE + ".") && !used.contains(e.getKey())) {
                    props.put(e.getKey().substring(VALUE.length() + 1), e.getValue());
                }
            }
        }
        for (Mapping m : s.includes()) {
            String path = explicit(m.from()) ? m.from() : VALUE + "." + m.from();
            if (flat.containsKey(path)) {
                used.add(path);
                props.put(m.to(), flat.get(path));
                continue;
            }
            for (var e : flat.entrySet()) {
                if (e.getKey().startsWith(path + ".")) {
                    used.add(e.getKey());
                    props.put(m.to() + e.getKey().substring(path.length()), e.getValue());
                }
            }
        }
        for (String x : s.excludes()) {
            if (props.containsKey(x)) {
                props.remove(x);
            } else {
                props.keySet().removeIf(k -> k.startsWith(x + "."));
            }
        }
        return props;
    }

    private static boolean explicit(String from) {
        return from.startsWith(VALUE + ".") || from.startsWith(KEY + ".") || from.startsWith(HEADER + ".")
                || from.equals(TIMESTAMP);
    }

    private static String after(String path) {
        return path.substring(path.indexOf('.') + 1);
    }

    private List<NodeKey> nodeKeys() {
        List<NodePattern> nodes = switch (pattern) {
            case NodePattern n -> List.of(n);
            case RelationshipPattern r -> List.of(r.start(), r.end());
        };
        Set<NodeKey> keys = new LinkedHashSet<>();
        for (NodePattern n : nodes) {
            // the connector is content with a constraint on any one label: the first is the one asked for
            if (!n.labels().isEmpty()) {
                keys.add(new NodeKey(n.labels().getFirst(), keyNames(n.selection())));
            }
        }
        return List.copyOf(keys);
    }

    private static Template template(String name, String cypher, List<String> nodeKeys, List<String> lockOrder) {
        return new Template(name, cypher, "UNWIND $" + Template.ROWS_PARAM + " AS row " + cypher, nodeKeys, Set.of(),
                Map.of(), lockOrder);
    }

    private static String nodeMerge(NodePattern n, boolean mergeProperties) {
        return "CALL (row) { MERGE (n" + labels(n) + " " + keyMap(n.selection(), "keys") + ")"
                + set("n", "props", "keys", mergeProperties) + " }";
    }

    private static String nodeDelete(NodePattern n) {
        return "CALL (row) { MATCH (n" + labels(n) + " " + keyMap(n.selection(), "keys") + ") DETACH DELETE n }";
    }

    private static String relationshipMerge(RelationshipPattern r, boolean mergeNodes, boolean mergeRelationship) {
        return "CALL (row) { MERGE (s" + labels(r.start()) + " " + keyMap(r.start().selection(), "startKeys") + ")"
                + set("s", "startProps", "startKeys", mergeNodes)
                + " WITH row, s MERGE (e" + labels(r.end()) + " " + keyMap(r.end().selection(), "endKeys") + ")"
                + set("e", "endProps", "endKeys", mergeNodes)
                + " WITH row, s, e MERGE (s)-[r:" + quote(r.type()) + relationshipKeys(r) + "]->(e)"
                + (r.selection().keys().isEmpty() ? " WITH row, r LIMIT 1" : "")
                + set("r", "props", "keys", mergeRelationship) + " }";
    }

    private static String relationshipDelete(RelationshipPattern r) {
        return "CALL (row) { MATCH (s" + labels(r.start()) + " " + keyMap(r.start().selection(), "startKeys") + ")"
                + " MATCH (e" + labels(r.end()) + " " + keyMap(r.end().selection(), "endKeys") + ")"
                + " MATCH (s)-[r:" + quote(r.type()) + relationshipKeys(r) + "]->(e)"
                + (r.selection().keys().isEmpty() ? " WITH r LIMIT 1" : "") + " DELETE r }";
    }

    /** Merge: {@code +=} the properties. Replace: {@code =} them, then {@code +=} the keys back. */
    private static String set(String variable, String props, String keys, boolean merge) {
        return merge ? " SET " + variable + " += row." + props
                : " SET " + variable + " = row." + props + " SET " + variable + " += row." + keys;
    }

    private static String relationshipKeys(RelationshipPattern r) {
        return r.selection().keys().isEmpty() ? "" : " " + keyMap(r.selection(), "keys");
    }

    private static String labels(NodePattern n) {
        StringBuilder b = new StringBuilder();
        for (String label : n.labels()) {
            b.append(':').append(quote(label));
        }
        return b.toString();
    }

    private static String keyMap(Selection s, String field) {
        List<String> entries = new ArrayList<>();
        for (String k : keyNames(s)) {
            entries.add(quote(k) + ": row." + field + "." + quote(k));
        }
        return "{" + String.join(", ", entries) + "}";
    }

    /** The key property names, once each (two keys may set one property: the connector keeps the last). */
    private static List<String> keyNames(Selection s) {
        Set<String> names = new LinkedHashSet<>();
        for (Mapping m : s.keys()) {
            names.add(m.to());
        }
        return List.copyOf(names);
    }

    /** A name as Cypher quotes it: in backticks, a backtick doubled. */
    static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }
}
