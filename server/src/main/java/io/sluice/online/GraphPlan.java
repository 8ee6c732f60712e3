package io.sluice.online;

import io.sluice.csv.Column;
import io.sluice.csv.Column.Kind;
import io.sluice.csv.CsvFormat;
import io.sluice.csv.EntityKind;
import io.sluice.csv.Header;
import io.sluice.csv.InputGroup;
import io.sluice.csv.RowParser;
import io.sluice.csv.ValueType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What an online import does with each group, worked out from the headers before any row is read.
 *
 * <p>Per ID space, nodes are identified by one (label, property) pair:
 * <ul>
 *   <li>the label is the {@code {label:X}} option of the {@code :ID} column if given (Neo4j's incremental-import
 *       syntax), else the first command-line label that every node group of the space carries, else the space's
 *       name, which is then added as a label to the space's nodes; the global space needs one of the first two;</li>
 *   <li>the property is the ID column's name ({@code userId:ID(User)}), or {@code id} when it has none (offline,
 *       an unnamed ID is not stored; online it must be, to find the node again);</li>
 *   <li>the ID type is the column's {@code {id-type:...}}, else {@code --id-type}.</li>
 * </ul>
 * Relationship groups find their ends through these spaces. A space that no node group declares refers to
 * nodes already in the database: label = the space's name, property {@code id}.
 */
final class GraphPlan {

    /** A node group: its static labels (command line plus the key label), its ID space (null: no ID column). */
    record NodeGroup(int index, InputGroup input, Header header, List<String> labels, IdSpace space) {
        /** Reads the group's rows, its IDs as its space's type. */
        RowParser parser(CsvFormat format) {
            return RowParser.nodes(header, format, space == null ? null : space.idType());
        }
    }

    /** A relationship group and the spaces of its two ends. */
    record RelGroup(int index, InputGroup input, Header header, IdSpace start, IdSpace end) {
        /** Reads the group's rows, its IDs as their spaces' types. */
        RowParser parser(CsvFormat format) {
            return RowParser.relationships(header, format, start.idType(), end.idType(), input.type());
        }
    }

    private final List<NodeGroup> nodeGroups;
    private final List<RelGroup> relGroups;
    private final Map<String, IdSpace> spaces;

    private GraphPlan(List<NodeGroup> nodeGroups, List<RelGroup> relGroups, Map<String, IdSpace> spaces) {
        this.nodeGroups = List.copyOf(nodeGroups);
        this.relGroups = List.copyOf(relGroups);
        this.spaces = Map.copyOf(spaces);
    }

    /**
     * @param headers one per group, in the order of {@code groups}
     * @param warn    receives warnings (a relationship space with no node group)
     */
    static GraphPlan build(List<InputGroup> groups, List<Header> headers, CsvFormat format, boolean merge,
            Consumer<String> warn) {
        if (format.idType() == CsvFormat.IdType.ACTUAL) {
            throw new IllegalArgumentException("--id-type=actual is for the offline import only (--into)");
        }
        ValueType defaultIdType = format.idType() == CsvFormat.IdType.INTEGER ? ValueType.LONG : ValueType.STRING;
        Map<String, List<Integer>> bySpace = new LinkedHashMap<>();
        for (int i = 0; i < groups.size(); i++) {
            if (groups.get(i).kind() == EntityKind.NODES) {
                List<Column> ids = headers.get(i).of(Kind.ID);
                if (ids.size() > 1) {
                    throw new IllegalArgumentException("header of " + headers.get(i).source()
                            + ": composite IDs (several :ID columns) are for the offline import only");
                }
                if (ids.isEmpty() && merge) {
                    throw new IllegalArgumentException(groups.get(i).describe() + ": --merge needs an :ID column to merge on");
                }
                if (!ids.isEmpty()) {
                    bySpace.computeIfAbsent(ids.getFirst().space(), k -> new ArrayList<>()).add(i);
                }
            }
        }
        Map<String, IdSpace> spaces = new LinkedHashMap<>();
        bySpace.forEach((name, members) -> spaces.put(name, declared(name, members, groups, headers, defaultIdType)));
        List<NodeGroup> nodes = new ArrayList<>();
        List<RelGroup> rels = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            InputGroup g = groups.get(i);
            Header h = headers.get(i);
            if (g.kind() == EntityKind.NODES) {
                IdSpace s = h.first(Kind.ID).map(c -> spaces.get(c.space())).orElse(null);
                Set<String> labels = new LinkedHashSet<>();
                if (s != null) {
                    labels.add(s.label());
                }
                labels.addAll(g.labels());
                nodes.add(new NodeGroup(i, g, h, List.copyOf(labels), s));
            } else {
                if (g.type() == null && h.first(Kind.TYPE).isEmpty()) {
                    throw new IllegalArgumentException(g.describe() + ": no relationship type: give one as TYPE=files or in a :TYPE column");
                }
                rels.add(new RelGroup(i, g, h, end(h, Kind.START_ID, spaces, defaultIdType, warn),
                        end(h, Kind.END_ID, spaces, defaultIdType, warn)));
            }
        }
        checkDistinct(spaces);
        return new GraphPlan(nodes, rels, spaces);
    }

    private static IdSpace declared(String name, List<Integer> members, List<InputGroup> groups, List<Header> headers,
            ValueType defaultIdType) {
        String label = null;
        String property = null;
        ValueType type = null;
        Set<String> common = null;
        for (int i : members) {
            Column id = headers.get(i).first(Kind.ID).orElseThrow();
            String hint = id.options().get("label");
            label = agree(label, hint, name, "{label:...}");
            property = agree(property, id.name() == null ? "id" : id.name(), name, "ID property name");
            type = agree(type, id.type() == null ? defaultIdType : id.type(), name, "{id-type:...}");
            if (id.name() == null && headers.get(i).of(Kind.PROPERTY).stream().anyMatch(c -> c.name().equals("id"))) {
                throw new IllegalArgumentException("header of " + headers.get(i).source()
                        + ": the unnamed :ID column is stored as property 'id' online, which another column already is; name the ID column");
            }
            Set<String> own = new LinkedHashSet<>(groups.get(i).labels());
            if (common == null) {
                common = own;
            } else {
                common.retainAll(own);
            }
        }
        if (label == null) {
            if (common != null && !common.isEmpty()) {
                label = common.iterator().next();
            } else if (!name.isEmpty()) {
                label = name;
            } else {
                throw new IllegalArgumentException("the nodes of the global ID space have no label in common to find them by; "
                        + "give one on the command line (--nodes=Label=files) or as {label:Label} on the :ID column");
            }
        }
        return new IdSpace(name, label, property, type, true);
    }

    private static <T> T agree(T current, T next, String space, String what) {
        if (next == null) {
            return current;
        }
        if (current != null && !current.equals(next)) {
            throw new IllegalArgumentException("the node groups of " + (space.isEmpty() ? "the global ID space" : "ID space '"
                    + space + "'") + " disagree on the " + what + ": '" + current + "' and '" + next + "'");
        }
        return next;
    }

    private static IdSpace end(Header h, Kind kind, Map<String, IdSpace> spaces, ValueType defaultIdType,
            Consumer<String> warn) {
        Column c = h.first(kind).orElseThrow();
        String name = c.space();
        IdSpace s = spaces.get(name);
        if (s != null) {
            return s;
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("header of " + h.source() + ": :" + kind
                    + " refers to the global ID space, which no node group of this import declares; name an ID space, e.g. :"
                    + kind + "(User), to match nodes already in the database by label User and property id");
        }
        IdSpace implicit = new IdSpace(name, name, "id", c.type() == null ? defaultIdType : c.type(), false);
        warn.accept("ID space '" + name + "' has no node group in this import: its nodes are looked up in the database as (:"
                + name + " {id})");
        spaces.put(name, implicit);
        return implicit;
    }

    private static void checkDistinct(Map<String, IdSpace> spaces) {
        Map<String, String> seen = new LinkedHashMap<>();
        for (IdSpace s : spaces.values()) {
            String key = s.label() + "\u0000" + s.property();
            String other = seen.put(key, s.name());
            if (other != null && !Objects.equals(other, s.name())) {
                throw new IllegalArgumentException("ID spaces '" + other + "' and '" + s.name() + "' both identify nodes by (:"
                        + s.label() + " {" + s.property() + "}); give one of them another label with {label:...} on its :ID column");
            }
        }
    }

    List<NodeGroup> nodeGroups() {
        return nodeGroups;
    }

    List<RelGroup> relGroups() {
        return relGroups;
    }

    /** The spaces whose nodes this import creates or merges: each gets a uniqueness constraint. */
    List<IdSpace> declaredSpaces() {
        return spaces.values().stream().filter(IdSpace::fromNodes).toList();
    }

    List<IdSpace> spaces() {
        return List.copyOf(spaces.values());
    }
}
