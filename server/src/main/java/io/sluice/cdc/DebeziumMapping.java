package io.sluice.cdc;

import io.sluice.config.Debezium;
import io.sluice.config.Debezium.Reference;
import io.sluice.config.Debezium.Table;
import io.sluice.topic.Message;
import io.sluice.topic.Strategy;
import io.sluice.write.Template;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A Debezium connector's tables as the graph (docs/SOURCES.md, "Debezium"): each change event becomes rows of a
 * few templates per table, compiled once from the configuration, so a batch of one table's changes runs as one
 * {@code UNWIND} per template.
 *
 * <h2>Design</h2>
 * A table mapped as nodes: a row is the node with its label and key ({@code MERGE} on the key, under the uniqueness
 * constraint {@link #schema} creates), its properties the row's columns, renamed or dropped as configured, replaced
 * as a whole ({@code SET n = ...}: a column set to NULL, or dropped from the table, leaves the node). Each foreign
 * key is a relationship to the referenced table's node, found by its key and {@code MERGE}d when it is not there yet
 * (a row of another table that arrives later fills it in: the graph converges whatever order the tables' topics are
 * read in); a changed foreign key moves the relationship, a NULL one removes it. A delete removes the node and its
 * relationships, or marks it. A join table's row is a relationship between the two referenced nodes, identified by
 * the join table's key (kept as its properties, under a relationship uniqueness constraint).
 *
 * <p>A primary key that changes arrives from Debezium as a delete of the old key and a create of the new one with the
 * same change position ({@code lsn}). Given both ({@link #ops(List)}: a whole source transaction) the node is moved
 * to its new key, keeping its identity and relationships; seen apart (row by row) they are a delete and a create,
 * and the referencing rows, which the database's cascade changes in the same transaction, bring the relationships
 * back. Debezium's placeholder for an unchanged TOASTed column ({@code __debezium_unavailable_value}) is never
 * written: a row carrying it updates the other properties and keeps that one.
 *
 * <p>Immutable and thread-safe.
 */
public final class DebeziumMapping implements Strategy {
    /** What Debezium sends for an unchanged TOASTed value (its {@code unavailable.value.placeholder} default). */
    static final String UNAVAILABLE = "__debezium_unavailable_value";

    private final Debezium config;
    private final Map<String, Compiled> tables = new HashMap<>();

    public DebeziumMapping(Debezium config) {
        this.config = config;
        config.tables().forEach((name, t) -> tables.put(name, new Compiled(name, t)));
    }

    public Debezium config() {
        return config;
    }

    @Override
    public List<Op> ops(Message message) throws Invalid {
        ChangeEvent e = ChangeEvent.of(message.value());
        return e == null ? List.of() : ops(e);
    }

    /** One event's rows. */
    public List<Op> ops(ChangeEvent e) throws Invalid {
        if (e.invalid() != null) {
            throw new Invalid(e.table() + ": " + e.invalid());
        }
        Compiled t = tables.get(e.table());
        if (t == null) {
            throw new Invalid("table " + e.table() + " is not mapped (debezium " + config.prefix() + ".tables)");
        }
        List<Op> out = new ArrayList<>(2);
        t.ops(e, out);
        return out;
    }

    /**
     * A source transaction's rows, its events in order: as {@link #ops(ChangeEvent)} each, but a primary key's
     * change (a delete, then a create of the same table at the same log position) moves the node.
     */
    public List<Op> ops(List<ChangeEvent> events) throws Invalid {
        List<Op> out = new ArrayList<>(events.size() + 4);
        for (ChangeEvent e : events) {
            if (e.invalid() != null) { // the whole transaction goes by on_error, not the rest without it
                throw new Invalid(e.table() + " (event " + e.totalOrder() + " of transaction " + e.txId() + "): "
                        + e.invalid());
            }
        }
        for (int i = 0; i < events.size(); i++) {
            ChangeEvent e = events.get(i);
            Compiled t = tables.get(e.table());
            if (t == null) {
                throw new Invalid("table " + e.table() + " is not mapped (debezium " + config.prefix() + ".tables)");
            }
            if (e.op() == ChangeEvent.Op.DELETE && t.table.join() == null && e.lsn() != null
                    && i + 1 < events.size()) {
                ChangeEvent next = events.get(i + 1);
                if (next.op() == ChangeEvent.Op.CREATE && next.table().equals(e.table())
                        && Objects.equals(next.lsn(), e.lsn())) {
                    out.add(new Op(t.move, Map.of("key", t.key(e.before()), "newKey", t.key(next.after()))));
                    continue; // the create that follows fills it in
                }
            }
            t.ops(e, out);
        }
        return out;
    }

    @Override
    public List<Check> checks() {
        List<Check> out = new ArrayList<>();
        for (Compiled t : tables.values()) {
            List<NodeKey> keys = new ArrayList<>();
            if (t.table.join() == null) {
                keys.add(new NodeKey(t.table.label(), t.keyProperties()));
            }
            for (Reference r : t.table.references()) {
                Compiled target = tables.get(r.table());
                keys.add(new NodeKey(target.table.label(), target.keyProperties()));
            }
            for (Template x : t.templates()) {
                out.add(new Check(x.name(), x.unwindCypher(),
                        keys));
            }
        }
        return out;
    }

    /**
     * The constraints the mapping's lookups rest on, created at start ({@code IF NOT EXISTS}): a uniqueness
     * constraint on each node table's label and key, and on each join table's relationship type and key.
     */
    public List<String> schema() {
        List<String> out = new ArrayList<>();
        for (Compiled t : tables.values()) {
            List<String> props = t.keyProperties().stream().map(p -> "x." + quote(p)).toList();
            String name = "sluice_" + config.prefix() + "_" + t.name;
            name = name.replaceAll("[^A-Za-z0-9_]", "_");
            if (t.table.join() == null) {
                out.add("CREATE CONSTRAINT " + name + " IF NOT EXISTS FOR (x:" + quote(t.table.label())
                        + ") REQUIRE (" + String.join(", ", props) + ") IS UNIQUE");
            } else {
                out.add("CREATE CONSTRAINT " + name + " IF NOT EXISTS FOR ()-[x:" + quote(t.table.join().type())
                        + "]-() REQUIRE (" + String.join(", ", props) + ") IS UNIQUE");
            }
        }
        out.sort(null);
        return out;
    }

    static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }

    /** One table's templates and how a row becomes theirs. */
    private final class Compiled {
        final String name;
        final Table table;
        final Template upsert;
        /** The upsert that keeps the properties a row does not carry (it holds Debezium's TOAST placeholder). */
        final Template patch;
        final Template delete;
        final Template move;
        final Template truncate;
        final Set<String> referencing;

        Compiled(String name, Table table) {
            this.name = name;
            this.table = table;
            Set<String> fk = new java.util.HashSet<>();
            for (Reference r : table.references()) {
                if (!r.keep()) {
                    fk.addAll(r.columns());
                }
            }
            table.key().forEach(fk::remove); // a key column is always a property
            this.referencing = Set.copyOf(fk);
            String what = "debezium " + config.prefix() + " " + name + ": ";
            if (table.join() == null) {
                String label = quote(table.label());
                String find = "(n:" + label + " " + keyMap("row.key") + ")";
                boolean alone = table.relationships().isEmpty();
                upsert = template(what + "upsert", "MERGE " + find + " SET n = row.props" + references(), alone);
                patch = template(what + "patch", "MERGE " + find + " SET n += row.props" + references(), alone);
                delete = template(what + "delete", switch (config.deletes()) {
                    case REMOVE -> "MATCH " + find + " DETACH DELETE n";
                    case MARK -> "MATCH " + find + " SET n." + quote(config.deletedProperty()) + " = true";
                }, true);
                move = template(what + "key change", "MATCH " + find + " OPTIONAL MATCH (m:" + label + " "
                        + keyMap("row.newKey") + ") WITH n, m, row CALL (n, m, row) { WITH n, m, row WHERE m IS NULL"
                        + " SET n += row.newKey } CALL (n, m) { WITH n, m WHERE m IS NOT NULL DETACH DELETE n }");
                truncate = template(what + "truncate", "MATCH (n:" + label + ") DETACH DELETE n");
            } else {
                Debezium.Join j = table.join();
                String type = quote(j.type());
                String ends = "MERGE (a:" + quote(tables(j.from().table()).label()) + " "
                        + refMap(j.from().table(), "row.from") + ") MERGE (b:" + quote(tables(j.to().table()).label())
                        + " " + refMap(j.to().table(), "row.to") + ")";
                String moved = " WITH a, b, row CALL (a, b, row) { MATCH (x)-[old:" + type + " " + keyMap("row.key") + "]->(y)"
                        + " WHERE x <> a OR y <> b DELETE old }";
                upsert = template(what + "upsert", ends + moved + " MERGE (a)-[r:" + type + " " + keyMap("row.key")
                        + "]->(b) SET r = row.props");
                patch = template(what + "patch", ends + moved + " MERGE (a)-[r:" + type + " " + keyMap("row.key")
                        + "]->(b) SET r += row.props");
                delete = template(what + "delete", "MATCH ()-[r:" + type + " " + keyMap("row.key") + "]->()"
                        + " DELETE r", true);
                move = delete;
                truncate = template(what + "truncate", "MATCH ()-[r:" + type + "]->() DELETE r");
            }
        }

        List<Template> templates() {
            return table.join() == null ? List.of(upsert, patch, delete, move, truncate)
                    : List.of(upsert, patch, delete, truncate);
        }

        /** Each foreign key: the old relationship gone when it no longer matches, the new one merged. */
        private String references() {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < table.relationships().size(); i++) {
                Reference r = table.relationships().get(i);
                Table target = tables(r.table());
                String label = quote(target.label());
                String field = "row.fk" + i;
                String rel = "[old:" + quote(r.type()) + "]";
                String pattern = r.outgoing() ? "(n)-" + rel + "->(m:" + label + ")" : "(n)<-" + rel + "-(m:" + label
                        + ")";
                List<String> differs = new ArrayList<>();
                for (String k : keyPropertiesOf(target)) {
                    differs.add("m." + quote(k) + " <> " + field + "." + quote(k));
                }
                b.append(" WITH n, row CALL (n, row) { MATCH ").append(pattern).append(" WHERE ").append(field)
                        .append(" IS NULL OR ").append(String.join(" OR ", differs)).append(" DELETE old }");
                String merged = r.outgoing() ? "(n)-[:" + quote(r.type()) + "]->(m)"
                        : "(n)<-[:" + quote(r.type()) + "]-(m)";
                b.append(" CALL (n, row) { WITH n, row WHERE ").append(field).append(" IS NOT NULL MERGE (m:")
                        .append(label).append(" ").append(refMap(r.table(), field)).append(") MERGE ")
                        .append(merged).append(" }");
            }
            return b.toString();
        }

        private Table tables(String name) {
            return config.tables().get(name);
        }

        /** {@code {k: row.key.k, ...}} over this table's key properties. */
        private String keyMap(String field) {
            return map(keyProperties(), field);
        }

        /** The referenced table's key properties read from {@code field}. */
        private String refMap(String referenced, String field) {
            return map(keyPropertiesOf(tables(referenced)), field);
        }

        private static String map(List<String> props, String field) {
            List<String> parts = new ArrayList<>();
            for (String p : props) {
                parts.add(quote(p) + ": " + field + "." + quote(p));
            }
            return "{" + String.join(", ", parts) + "}";
        }

        List<String> keyProperties() {
            return keyPropertiesOf(table);
        }

        private static List<String> keyPropertiesOf(Table t) {
            return t.key().stream().map(t::property).toList();
        }

        /**
         * Each row's statement whole, one row after another ({@code CALL (row) {...}}): rows of one key in one
         * {@code UNWIND} (two changes of a row in a batch) would otherwise run clause by clause across the rows (every
         * row's old relationship deleted before any row's new one is merged), and end in no row's state. A statement
         * of one {@code MERGE} or {@code MATCH} and what it does to that entity alone (a node table without foreign
         * keys: its upserts; any table's deletes) ends in the last row's state either way, and runs without the
         * subquery, as the raw {@code UNWIND} would (bench-debezium).
         */
        private Template template(String name, String cypher) {
            return template(name, cypher, false);
        }

        /** {@code single}: the statement finds one entity and changes it alone; no subquery needed. */
        private Template template(String name, String cypher, boolean single) {
            String perRow = single ? cypher : "CALL (row) { " + cypher + " }";
            return new Template(name, perRow, "UNWIND $" + Template.ROWS_PARAM + " AS row " + perRow, List.of(),
                    Set.of(), Map.of(), List.of());
        }

        void ops(ChangeEvent e, List<Op> out) throws Invalid {
            switch (e.op()) {
                case CREATE, READ, UPDATE -> {
                    if (e.op() == ChangeEvent.Op.UPDATE && e.before() != null && !sameKey(e.before(), e.after())) {
                        // the key changed in place (a table whose identity is not its primary key): move it
                        out.add(new Op(move, Map.of("key", key(e.before()), "newKey", key(e.after()))));
                    }
                    upsert(e.after(), out);
                }
                case DELETE -> out.add(new Op(delete, Map.of("key", key(e.before()))));
                case TRUNCATE -> out.add(new Op(truncate, Map.of()));
            }
        }

        private boolean sameKey(Map<String, Object> before, Map<String, Object> after) {
            for (String k : table.key()) {
                if (before.containsKey(k) && !Objects.equals(before.get(k), after.get(k))) {
                    return false;
                }
            }
            return true;
        }

        private void upsert(Map<String, Object> after, List<Op> out) throws Invalid {
            Map<String, Object> props = new LinkedHashMap<>();
            boolean partial = false;
            for (Map.Entry<String, Object> c : after.entrySet()) {
                String column = c.getKey();
                if (table.drop().contains(column) || referencing.contains(column)) {
                    continue;
                }
                if (isUnavailable(c.getValue())) {
                    partial = true;
                    continue;
                }
                props.put(table.property(column), c.getValue());
            }
            Map<String, Object> row = new HashMap<>();
            row.put("key", key(after));
            row.put("props", props);
            if (table.join() == null) {
                for (int i = 0; i < table.relationships().size(); i++) {
                    row.put("fk" + i, reference(table.relationships().get(i), after));
                }
            } else {
                Map<String, Object> from = reference(table.join().from(), after);
                Map<String, Object> to = reference(table.join().to(), after);
                if (from == null || to == null) { // no relationship without both ends
                    out.add(new Op(delete, Map.of("key", key(after))));
                    return;
                }
                row.put("from", from);
                row.put("to", to);
            }
            out.add(new Op(partial ? patch : upsert, row));
        }

        private static boolean isUnavailable(Object v) {
            return UNAVAILABLE.equals(v) || v instanceof byte[] b
                    && java.util.Arrays.equals(b, UNAVAILABLE.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }

        /** The referenced row's key, as its node's properties; null when a column is NULL (no reference). */
        private Map<String, Object> reference(Reference r, Map<String, Object> row) throws Invalid {
            Table target = tables(r.table());
            Map<String, Object> key = new LinkedHashMap<>();
            for (int i = 0; i < r.columns().size(); i++) {
                String column = r.columns().get(i);
                if (!row.containsKey(column)) {
                    throw new Invalid(name + " has no column " + column + " (a foreign key to " + r.table() + ")");
                }
                Object v = row.get(column);
                if (v == null) {
                    return null;
                }
                key.put(target.property(target.key().get(i)), v);
            }
            return key;
        }

        Map<String, Object> key(Map<String, Object> row) throws Invalid {
            Map<String, Object> key = new LinkedHashMap<>();
            for (String column : table.key()) {
                Object v = row.get(column);
                if (v == null) {
                    throw new Invalid(name + ": key column " + column + " is " + (row.containsKey(column) ? "null"
                            : "missing") + " (debezium " + config.prefix() + ".tables." + name + ".key names the"
                            + " table's primary key columns)");
                }
                key.put(table.property(column), v);
            }
            return key;
        }
    }
}
