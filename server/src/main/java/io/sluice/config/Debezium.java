package io.sluice.config;

import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code sources.kafka.debezium}: one Debezium connector's change streams (docs/SOURCES.md, "Debezium"). The
 * connector's {@code prefix} (its {@code topic.prefix}): table {@code schema.table} is read from topic
 * {@code <prefix>.<schema>.<table>}; with {@code transactions} on, its transaction metadata from
 * {@code transactionTopic} ({@code <prefix>.transaction}) and each source transaction applied whole. {@code tables}:
 * how each table becomes nodes or relationships; {@code deletes}: whether a deleted row's node is removed (with its
 * relationships) or marked ({@code deletedProperty} set to true).
 */
public record Debezium(String prefix, Format keyFormat, Format valueFormat, boolean transactions,
        String transactionTopic, Deletes deletes, String deletedProperty, Map<String, Table> tables) {

    private static final String NAME = "[A-Za-z_][A-Za-z0-9_]*";

    public Debezium {
        if (prefix == null || prefix.isBlank()) {
            throw new IllegalArgumentException("sources.kafka.debezium needs prefix: the connector's topic.prefix");
        }
        transactionTopic = transactionTopic == null || transactionTopic.isBlank() ? prefix + ".transaction"
                : transactionTopic;
        if (!deletedProperty.matches(NAME)) {
            throw new IllegalArgumentException("debezium " + prefix + ": deleted_property '" + deletedProperty
                    + "' is not a property name");
        }
        tables = Collections.unmodifiableMap(new LinkedHashMap<>(tables));
        if (tables.isEmpty()) {
            throw new IllegalArgumentException("debezium " + prefix + ": tables maps no table");
        }
        if (keyFormat == Format.BYTES || keyFormat == Format.STRING
                || valueFormat == Format.BYTES || valueFormat == Format.STRING) {
            throw new IllegalArgumentException("debezium " + prefix + ": change events are read as json,"
                    + " json-schema or avro");
        }
        Set<String> types = new HashSet<>();
        Set<String> labels = new HashSet<>();
        Set<String> foreignKeyTypes = new HashSet<>();
        for (Table t : tables.values()) {
            t.relationships().forEach(r -> foreignKeyTypes.add(r.type()));
        }
        for (Map.Entry<String, Table> e : tables.entrySet()) {
            if (e.getValue().label() != null && !labels.add(e.getValue().label())) {
                throw new IllegalArgumentException("debezium " + prefix + ": two tables are label "
                        + e.getValue().label() + " (their keys, deletes and truncates would mix)");
            }
            if (e.getValue().join() != null && foreignKeyTypes.contains(e.getValue().join().type())) {
                throw new IllegalArgumentException("debezium " + prefix + ": join table " + e.getKey() + "'s type "
                        + e.getValue().join().type() + " is also a foreign key's: give each its own type");
            }
            String name = e.getKey();
            Table t = e.getValue();
            if (!name.matches("[^.]+\\.[^.]+")) {
                throw new IllegalArgumentException("debezium " + prefix + ": table '" + name + "' is not"
                        + " schema.table");
            }
            for (Reference r : t.references()) {
                Table target = tables.get(r.table());
                if (target == null || target.join() != null) {
                    throw new IllegalArgumentException("debezium " + prefix + ": " + name + " refers to " + r.table()
                            + ", which tables does not map as nodes");
                }
                if (r.columns().size() != target.key().size()) {
                    throw new IllegalArgumentException("debezium " + prefix + ": " + name + "'s columns "
                            + r.columns() + " refer to " + r.table() + ", whose key has " + target.key().size()
                            + " column" + (target.key().size() == 1 ? "" : "s") + " " + target.key());
                }
            }
            if (t.join() != null && !types.add(t.join().type())) {
                throw new IllegalArgumentException("debezium " + prefix + ": two join tables make relationships"
                        + " of type " + t.join().type() + " (their keys would collide)");
            }
        }
    }

    /** The topic a table's changes are on. */
    public String topicOf(String table) {
        return prefix + "." + table;
    }

    /** Every topic read: the tables' and, with transactions, the metadata's. */
    public List<String> topics() {
        List<String> out = new ArrayList<>();
        tables.keySet().forEach(t -> out.add(topicOf(t)));
        if (transactions) {
            out.add(transactionTopic);
        }
        return out;
    }

    @JsonCreator
    static Debezium fromYaml(@JsonProperty("prefix") String prefix,
            @JsonProperty("key_format") Format keyFormat,
            @JsonProperty("value_format") Format valueFormat,
            @JsonProperty("transactions") Boolean transactions,
            @JsonProperty("transaction_topic") String transactionTopic,
            @JsonProperty("deletes") Deletes deletes,
            @JsonProperty("deleted_property") String deletedProperty,
            @JsonProperty("tables") Map<String, Table> tables) {
        return new Debezium(prefix, requireNonNullElse(keyFormat, Format.JSON_SCHEMA),
                requireNonNullElse(valueFormat, Format.JSON_SCHEMA), Boolean.TRUE.equals(transactions),
                transactionTopic, requireNonNullElse(deletes, Deletes.REMOVE),
                requireNonNullElse(deletedProperty, "deleted"), requireNonNullElse(tables, Map.of()));
    }

    /** What a deleted row does to its node. */
    public enum Deletes {
        /** The node goes, with its relationships. */
        REMOVE,
        /** The node stays, its {@code deleted_property} set to true (a row inserted again with its key clears it). */
        MARK;

        @JsonCreator
        public static Deletes of(String name) {
            return switch (name) {
                case "remove" -> REMOVE;
                case "mark" -> MARK;
                default -> throw new IllegalArgumentException("unknown deletes '" + name + "'; known: remove, mark");
            };
        }

        public String yamlName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One table: as nodes ({@code label}, keyed by the {@code key} columns, each foreign key in
     * {@code relationships} a relationship to the referenced table's node), or, with {@code join}, as relationships
     * (its key identifies each). {@code rename}: column to property name; {@code drop}: columns left out; any other
     * column is kept under its own name.
     */
    public record Table(String label, List<String> key, Map<String, String> rename, Set<String> drop,
            List<Reference> relationships, Join join) {
        public Table {
            key = List.copyOf(key);
            rename = Collections.unmodifiableMap(new LinkedHashMap<>(rename));
            drop = Collections.unmodifiableSet(new LinkedHashSet<>(drop));
            relationships = List.copyOf(relationships);
            if (join == null && (label == null || !label.matches(NAME))) {
                throw new IllegalArgumentException("a table needs label (a label name), or join");
            }
            if (join != null && (label != null || !relationships.isEmpty())) {
                throw new IllegalArgumentException("a join table has no label or relationships of its own");
            }
            if (key.isEmpty()) {
                throw new IllegalArgumentException("a table's key names no column");
            }
            for (String k : key) {
                if (drop.contains(k)) {
                    throw new IllegalArgumentException("key column " + k + " cannot be dropped");
                }
            }
            for (String p : rename.values()) {
                if (!p.matches(NAME)) {
                    throw new IllegalArgumentException("rename: '" + p + "' is not a property name");
                }
            }
            Set<String> types = new HashSet<>();
            for (Reference r : relationships) {
                if (!types.add(r.type() + "/" + r.table() + "/" + r.outgoing())) {
                    throw new IllegalArgumentException("two relationships " + r.type() + " to " + r.table()
                            + " in one direction: give each foreign key its own type");
                }
            }
        }

        /** Every reference: the relationships' and a join's two ends. */
        public List<Reference> references() {
            if (join == null) {
                return relationships;
            }
            return List.of(join.from(), join.to());
        }

        /** A column's property name. */
        public String property(String column) {
            return rename.getOrDefault(column, column);
        }

        @JsonCreator
        static Table fromYaml(@JsonProperty("label") String label, @JsonProperty("key") List<String> key,
                @JsonProperty("rename") Map<String, String> rename, @JsonProperty("drop") List<String> drop,
                @JsonProperty("relationships") List<Reference> relationships, @JsonProperty("join") Join join) {
            List<String> k = key;
            if (k == null) {
                k = join == null ? List.of("id")
                        : concat(join.from().columns(), join.to().columns());
            }
            return new Table(label, k, requireNonNullElse(rename, Map.of()),
                    new LinkedHashSet<>(requireNonNullElse(drop, List.of())),
                    requireNonNullElse(relationships, List.of()), join);
        }

        private static List<String> concat(List<String> a, List<String> b) {
            List<String> out = new ArrayList<>(a);
            out.addAll(b);
            return out;
        }
    }

    /**
     * A foreign key: its {@code columns} (in the order of the referenced {@code table}'s key), the relationship's
     * {@code type}, its direction ({@code outgoing}: from the row's node to the referenced one), and whether the
     * columns also stay properties ({@code keep}).
     */
    public record Reference(List<String> columns, String table, String type, boolean outgoing, boolean keep) {
        public Reference {
            columns = List.copyOf(columns);
            if (columns.isEmpty()) {
                throw new IllegalArgumentException("a relationship names no columns");
            }
            if (table == null || table.isBlank()) {
                throw new IllegalArgumentException("a relationship needs to: the referenced table");
            }
            if (type == null || !type.matches(NAME)) {
                throw new IllegalArgumentException("a relationship needs type (a relationship type name)");
            }
        }

        @JsonCreator
        static Reference fromYaml(@JsonProperty("columns") List<String> columns, @JsonProperty("column") String column,
                @JsonProperty("to") String to, @JsonProperty("table") String table,
                @JsonProperty("type") String type, @JsonProperty("direction") String direction,
                @JsonProperty("keep") Boolean keep) {
            List<String> c = columns != null ? columns : column != null ? List.of(column) : List.of();
            boolean out = switch (requireNonNullElse(direction, "out")) {
                case "out" -> true;
                case "in" -> false;
                default -> throw new IllegalArgumentException("direction '" + direction + "': out or in");
            };
            return new Reference(c, to != null ? to : table, type, out, Boolean.TRUE.equals(keep));
        }
    }

    /** A join table: each row a relationship of {@code type} from the {@code from} row's node to the {@code to} one. */
    public record Join(Reference from, Reference to, String type) {
        public Join {
            if (from == null || to == null) {
                throw new IllegalArgumentException("join needs from and to");
            }
            if (type == null || !type.matches(NAME)) {
                throw new IllegalArgumentException("join needs type (a relationship type name)");
            }
        }

        @JsonCreator
        static Join fromYaml(@JsonProperty("from") End from, @JsonProperty("to") End to,
                @JsonProperty("type") String type) {
            if (from == null || to == null) {
                throw new IllegalArgumentException("join needs from and to");
            }
            return new Join(from.reference(type), to.reference(type), type);
        }

        /** One end as the file gives it: {@code {columns | column, table}}. */
        record End(List<String> columns, String table) {
            @JsonCreator
            static End fromYaml(@JsonProperty("columns") List<String> columns,
                    @JsonProperty("column") String column, @JsonProperty("table") String table) {
                return new End(columns != null ? columns : column != null ? List.of(column) : List.of(), table);
            }

            Reference reference(String type) {
                return new Reference(columns, table, type, true, false);
            }
        }
    }
}
