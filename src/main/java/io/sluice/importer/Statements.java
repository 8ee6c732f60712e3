package io.sluice.importer;

import io.sluice.importer.Column.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * The Cypher an online import runs, one statement per batch, written for the rows {@link RowParser} makes
 * ({@code row.k}, {@code row.s}, {@code row.e}, {@code row.l}, {@code row.t}, {@code row.p}, {@code row.c<n>},
 * and the position {@code row.i}). Each statement also writes the batch's progress mark in the same transaction
 * (see {@link Resume}), so a batch and its mark commit together or not at all:
 * <pre>
 * UNWIND $rows AS row
 * CREATE (n:`User`:`Person` {`userId`: row.k}) SET n += row.p, n.`born` = date(row.c6) SET n:$(row.l)
 * WITH count(*) AS rows
 * CREATE (:SluiceImportMark {import: $mark.import, ..., bad: $mark.bad}) RETURN rows
 *
 * UNWIND $rows AS row
 * OPTIONAL MATCH (a:`User` {`userId`: row.s}) OPTIONAL MATCH (b:`Site` {`url`: row.e})
 * CALL (row, a, b) { WITH * WHERE a IS NOT NULL AND b IS NOT NULL CREATE (a)-[r:`VISITED`]->(b) SET r += row.p }
 * WITH collect(CASE WHEN a IS NULL OR b IS NULL THEN [row.i, a IS NULL, b IS NULL] END) AS dangling
 * CREATE (:SluiceImportMark {..., bad: $mark.bad + size(dangling)}) RETURN dangling
 * </pre>
 * A relationship with a missing end is not an error: it is returned, reported and counted as bad, and the rest of
 * the batch commits. With {@code --merge}, {@code MERGE} replaces {@code CREATE} and an empty field leaves the
 * stored value as it is.
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
        List<String> sets = new ArrayList<>();
        sets.add("n += row.p");
        IdSpace s = g.space();
        if (merge) {
            b.append("MERGE (n:").append(name(s.label())).append(" {").append(name(s.property())).append(": row.k}) ");
            for (String l : g.labels()) {
                if (!l.equals(s.label())) {
                    sets.add("n:" + name(l));
                }
            }
        } else {
            b.append("CREATE (n").append(labels(g.labels()));
            if (s != null) {
                b.append(" {").append(name(s.property())).append(": row.k}");
            }
            b.append(") ");
        }
        sets.addAll(converted(g.header(), "n", merge));
        b.append("SET ").append(String.join(", ", sets));
        if (g.header().first(Kind.LABEL).isPresent()) {
            b.append(" SET n:$(row.l)");
        }
        return b.append(" WITH count(*) AS rows ").append(MARK.formatted("$mark.bad")).append(" RETURN rows").toString();
    }

    static String relationships(GraphPlan.RelGroup g, boolean merge) {
        String type = g.header().first(Kind.TYPE).isPresent() ? "$(row.t)" : name(g.input().type());
        List<String> sets = new ArrayList<>();
        sets.add("r += row.p");
        sets.addAll(converted(g.header(), "r", merge));
        return "UNWIND $rows AS row "
                + "OPTIONAL MATCH (a:" + name(g.start().label()) + " {" + name(g.start().property()) + ": row.s}) "
                + "OPTIONAL MATCH (b:" + name(g.end().label()) + " {" + name(g.end().property()) + ": row.e}) "
                + "CALL (row, a, b) { WITH * WHERE a IS NOT NULL AND b IS NOT NULL "
                + (merge ? "MERGE" : "CREATE") + " (a)-[r:" + type + "]->(b) SET " + String.join(", ", sets) + " } "
                + "WITH collect(CASE WHEN a IS NULL OR b IS NULL THEN [row.i, a IS NULL, b IS NULL] END) AS dangling "
                + MARK.formatted("$mark.bad + size(dangling)") + " RETURN dangling";
    }

    /** A mark alone: for a range whose rows were all rejected. */
    static String markOnly() {
        return MARK.formatted("$mark.bad");
    }

    /** Property assignments for the columns a Cypher function converts (temporal, point). */
    private static List<String> converted(Header h, String var, boolean merge) {
        List<String> out = new ArrayList<>();
        for (Column c : h.of(Kind.PROPERTY)) {
            String fn = c.type().cypherFunction();
            if (fn == null) {
                continue;
            }
            String field = "row.c" + c.index();
            String value = c.array() ? "[v IN " + field + " | " + fn + "(v)]" : fn + "(" + field + ")";
            String target = var + "." + name(c.name());
            out.add(target + " = " + (merge ? "coalesce(" + value + ", " + target + ")" : value));
        }
        return out;
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
