package io.sluice.topic;

import static io.sluice.topic.CudShape.ELEMENT_ID;
import static io.sluice.topic.CudShape.PHYSICAL_ID;
import static io.sluice.topic.CudShape.ROW_FROM;
import static io.sluice.topic.CudShape.ROW_IDS;
import static io.sluice.topic.CudShape.ROW_PROPS;
import static io.sluice.topic.CudShape.ROW_TO;

import io.sluice.topic.CudShape.Action;
import io.sluice.topic.CudShape.End;
import io.sluice.topic.CudShape.Identity;
import io.sluice.topic.CudShape.Kind;
import io.sluice.topic.CudShape.Lookup;
import io.sluice.topic.CudShape.Shape;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;

/**
 * The Cypher each CUD shape compiles to, for one row bound to {@code row} (the values: {@code row.ids},
 * {@code row.props}, a relationship's {@code row.from} and {@code row.to}), with labels, types and keys written in,
 * quoted, so that lookups use their indexes and constraints; and the template's name, key and lock order.
 */
final class CudCypher {
    private CudCypher() {}

    /** The statement of shape {@code s}. */
    static String of(Shape s) {
        return s.kind() == Kind.NODE ? nodeCypher(s) : relationshipCypher(s);
    }

    static List<String> key(Shape s) {
        if (s.kind() == Kind.RELATIONSHIP) {
            return List.of(ROW_FROM, ROW_TO);
        }
        return s.action() == Action.CREATE ? List.of() : List.of(ROW_IDS);
    }

    /**
     * None: a batch's CUD rows keep their offset order. Sorting them by ids could move an operation before one it
     * depends on (an update that changes a node's id property, then a merge on the new id), and a relationship's
     * ends are written through several rows in roles that sorting would interleave; deadlocks between partitions
     * are retried instead (they are transient).
     */
    static List<String> lockOrder(Shape s) {
        return List.of();
    }

    static String nodeCypher(Shape s) {
        return switch (s.action()) {
            case CREATE -> "CREATE (n" + labelsOf(s.labels()) + ") SET n += row." + ROW_PROPS;
            case UPDATE -> find("MATCH", "n", s.labels(), s.identity(), ROW_IDS) + " SET n += row." + ROW_PROPS;
            case MERGE -> find("MERGE", "n", s.labels(), s.identity(), ROW_IDS) + " SET n += row." + ROW_PROPS;
            case DELETE -> find("MATCH", "n", s.labels(), s.identity(), ROW_IDS) + (s.detach() ? " DETACH" : "")
                    + " DELETE n";
        };
    }

    static String relationshipCypher(Shape s) {
        String ends = find(s.from().lookup().name(), "src", s.from().labels(), s.from().identity(), ROW_FROM) + " "
                + find(s.to().lookup().name(), "dst", s.to().labels(), s.to().identity(), ROW_TO) + " ";
        String type = ":" + quote(s.relType());
        if (s.action() == Action.CREATE) {
            return ends + "CREATE (src)-[r" + type + "]->(dst) SET r += row." + ROW_PROPS;
        }
        String clause = s.action() == Action.MERGE ? "MERGE" : "MATCH";
        Identity id = s.identity();
        String found = switch (id.by()) {
            case ID -> "MATCH (src)-[r]->(dst) WHERE id(r) = " + field(ROW_IDS, PHYSICAL_ID);
            case ELEMENT_ID -> "MATCH (src)-[r]->(dst) WHERE elementId(r) = " + field(ROW_IDS, ELEMENT_ID);
            case PROPERTIES -> id.keys().isEmpty()
                    ? clause + " (src)-[r" + type + "]->(dst) WITH r, row LIMIT 1"
                    : clause + " (src)-[r" + type + propertiesOf(id.keys(), ROW_IDS) + "]->(dst)";
        };
        return ends + found + (s.action() == Action.DELETE ? " DELETE r" : " SET r += row." + ROW_PROPS);
    }

    /** {@code clause (v:Labels {k: row.field.k})}, or by {@code id(v)} / {@code elementId(v)}. */
    private static String find(String clause, String v, List<String> labels, Identity id, String field) {
        return switch (id.by()) {
            case ID -> clause + " (" + v + ") WHERE id(" + v + ") = " + field(field, PHYSICAL_ID);
            case ELEMENT_ID -> clause + " (" + v + ") WHERE elementId(" + v + ") = " + field(field, ELEMENT_ID);
            case PROPERTIES -> clause + " (" + v + labelsOf(labels) + propertiesOf(id.keys(), field) + ")";
        };
    }

    private static String labelsOf(List<String> labels) {
        StringBuilder b = new StringBuilder();
        for (String l : labels) {
            b.append(':').append(quote(l));
        }
        return b.toString();
    }

    private static String propertiesOf(List<String> keys, String field) {
        if (keys.isEmpty()) {
            return "";
        }
        List<String> pairs = new ArrayList<>(keys.size());
        for (String k : keys) {
            pairs.add(quote(k) + ": " + field(field, k));
        }
        return " {" + String.join(", ", pairs) + "}";
    }

    private static String field(String field, String key) {
        return "row." + field + "." + quote(key);
    }

    /** A name in backquotes, a backquote in it doubled. */
    static String quote(String name) {
        return "`" + name.replace("`", "``") + "`";
    }

    /** The template's name: the operation and its pattern, e.g. {@code node merge (:Person {id})}. */
    static String describe(Shape s) {
        String op = s.kind().name().toLowerCase(Locale.ROOT) + " " + s.action().name().toLowerCase(Locale.ROOT);
        if (s.kind() == Kind.NODE) {
            return op + " " + pattern(s.labels(), s.identity()) + (s.detach() ? " detach" : "");
        }
        String rel = s.identity() == null ? "" : " " + identityOf(s.identity());
        return op + " " + end(s.from()) + "-[:" + s.relType() + rel + "]->" + end(s.to());
    }

    private static String end(End e) {
        return (e.lookup() == Lookup.MERGE ? "merge " : "") + pattern(e.labels(), e.identity());
    }

    private static String pattern(List<String> labels, Identity id) {
        return "(" + String.join("", labels.stream().map(l -> ":" + l).toList())
                + (id == null ? "" : (labels.isEmpty() ? "" : " ") + identityOf(id)) + ")";
    }

    private static String identityOf(Identity id) {
        return "{" + String.join(", ", new LinkedHashSet<>(id.keys())) + "}";
    }
}
