package io.sluice.online;

import io.sluice.csv.Column;
import io.sluice.csv.Column.Kind;
import io.sluice.csv.Header;
import io.sluice.csv.RowParser;
import java.util.ArrayList;
import java.util.List;

/**
 * The Cypher an online import runs, one statement per batch, written for the rows {@link RowParser} makes
 * ({@code row.k}, {@code row.s}, {@code row.e}, {@code row.l}, {@code row.t}, {@code row.p}, {@code row.c<n>},
 * and the position {@code row.i}). Each statement also writes the batch's progress mark in the same transaction
 * (see {@link Resume}), so a batch and its mark commit together or not at all: for nodes as a second statement of
 * the same request, for relationships in the statement itself, since the mark counts the missing ends:
 * <pre>
 * UNWIND $rows AS row
 * CREATE (n:`User`:`Person` {`userId`: row.k, `name`: row.p1, `born`: date(row.c6)}) SET n:$(row.l)
 * CREATE (:SluiceImportMark {import: $mark.import, ..., bad: $mark.bad})
 *
 * UNWIND $rows AS row
 * OPTIONAL MATCH (a:`User` {`userId`: row.s}) OPTIONAL MATCH (b:`Site` {`url`: row.e})
 * CALL (row, a, b) { WITH * WHERE a IS NOT NULL AND b IS NOT NULL CREATE (a)-[r:`VISITED` {`weight`: row.p3}]->(b) }
 * WITH collect(CASE WHEN a IS NULL OR b IS NULL THEN [row.i, a IS NULL, b IS NULL] END) AS dangling
 * CREATE (:SluiceImportMark {..., bad: $mark.bad + size(dangling)}) RETURN dangling
 * </pre>
 * A relationship with a missing end is not an error: it is returned, reported and counted as bad, and the rest of
 * the batch commits. With {@code --merge}, {@code MERGE} replaces {@code CREATE} and properties are updated with
 * {@code SET n.name = coalesce(row.p1, n.name)}: an empty field leaves the stored value as it is.
 */
final class Statements {
    static final String MARK_LABEL = "SluiceImportMark";
    static final String RUN_LABEL = "SluiceImport";
    /** Properties a mark sets; subtracted from the import's counters. */
    static final int MARK_PROPERTIES = 7;
    private static final String MARK = "CREATE (:" + MARK_LABEL + " {import: $mark.import, group: $mark.group, chunk: $mark.chunk, "
            + "part: $mark.part, lo: $mark.lo, hi: $mark.hi, bad: %s})";

    private Statements() {}

    static String nodes(GraphPlan.NodeGroup g, boolean merge) {
        StringBuilder b = new StringBuilder("UNWIND $rows AS row ");
        IdSpace s = g.space();
        List<String> sets = new ArrayList<>();
        if (merge) {
            b.append("MERGE (n:").append(name(s.label())).append(" {").append(name(s.property())).append(": row.k}) ");
            for (String l : g.labels()) {
                if (!l.equals(s.label())) {
                    sets.add("n:" + name(l));
                }
            }
            sets.addAll(updates(g.header(), "n"));
        } else {
            List<String> props = new ArrayList<>();
            if (s != null) {
                props.add(name(s.property()) + ": row.k");
            }
            props.addAll(literal(g.header()));
            b.append("CREATE (n").append(labels(g.labels()));
            if (!props.isEmpty()) {
                b.append(" {").append(String.join(", ", props)).append('}');
            }
            b.append(") ");
        }
        if (!sets.isEmpty()) {
            b.append("SET ").append(String.join(", ", sets)).append(' ');
        }
        if (g.header().first(Kind.LABEL).isPresent()) {
            b.append("SET n:$(row.l) ");
        }
        return b.toString().strip();
    }

    static String relationships(GraphPlan.RelGroup g, boolean merge) {
        String type = g.header().first(Kind.TYPE).isPresent() ? "$(row.t)" : name(g.input().type());
        String write;
        if (merge) {
            List<String> sets = updates(g.header(), "r");
            write = "MERGE (a)-[r:" + type + "]->(b)" + (sets.isEmpty() ? "" : " SET " + String.join(", ", sets));
        } else {
            List<String> props = literal(g.header());
            write = "CREATE (a)-[r:" + type + (props.isEmpty() ? "" : " {" + String.join(", ", props) + "}") + "]->(b)";
        }
        return "UNWIND $rows AS row "
                + "OPTIONAL MATCH (a:" + name(g.start().label()) + " {" + name(g.start().property()) + ": row.s}) "
                + "OPTIONAL MATCH (b:" + name(g.end().label()) + " {" + name(g.end().property()) + ": row.e}) "
                + "CALL (row, a, b) { WITH * WHERE a IS NOT NULL AND b IS NOT NULL " + write + " } "
                + "WITH collect(CASE WHEN a IS NULL OR b IS NULL THEN [row.i, a IS NULL, b IS NULL] END) AS dangling "
                + MARK.formatted("$mark.bad + size(dangling)") + " RETURN dangling";
    }

    /** A mark alone: for a range whose rows were all rejected. */
    static String markOnly() {
        return MARK.formatted("$mark.bad");
    }

    /** {@code name: row.p3, born: date(row.c4)}: a null value sets nothing, which is what CREATE needs. */
    private static List<String> literal(Header h) {
        List<String> out = new ArrayList<>();
        for (Column c : h.of(Kind.PROPERTY)) {
            out.add(name(c.name()) + ": " + value(c));
        }
        return out;
    }

    /** {@code n.name = coalesce(row.p3, n.name)}: MERGE updates what the row says and keeps the rest. */
    private static List<String> updates(Header h, String var) {
        List<String> out = new ArrayList<>();
        for (Column c : h.of(Kind.PROPERTY)) {
            String target = var + "." + name(c.name());
            out.add(target + " = coalesce(" + value(c) + ", " + target + ")");
        }
        return out;
    }

    /** The Cypher expression of a property's value in {@code row}: the sent form, converted back where it must be. */
    private static String value(Column c) {
        String f = "row." + c.field();
        String fn = c.type().cypherFunction();
        if (fn == null) {
            return f;
        }
        return c.array() ? "[v IN " + f + " | " + fn + "(v)]" : fn + "(" + f + ")";
    }

    /** The uniqueness constraint an ID space's nodes are found by. */
    static String constraint(IdSpace s) {
        String n = ("sluice_import_" + s.label() + "_" + s.property()).replaceAll("[^A-Za-z0-9_]", "_");
        return "CREATE CONSTRAINT " + name(n) + " IF NOT EXISTS FOR (n:" + name(s.label()) + ") REQUIRE n."
                + name(s.property()) + " IS UNIQUE";
    }

    static String markIndex() {
        return "CREATE INDEX sluice_import_mark IF NOT EXISTS FOR (m:" + MARK_LABEL + ") ON (m.import)";
    }

    private static String labels(List<String> labels) {
        StringBuilder b = new StringBuilder();
        labels.forEach(l -> b.append(':').append(name(l)));
        return b.toString();
    }

    /** A label, type or property name, quoted for Cypher. */
    static String name(String n) {
        return "`" + n.replace("`", "``") + "`";
    }
}
