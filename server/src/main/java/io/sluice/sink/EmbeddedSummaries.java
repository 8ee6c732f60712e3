package io.sluice.sink;

import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.Summary;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.neo4j.graphdb.ExecutionPlanDescription;
import org.neo4j.graphdb.GqlStatusObject;
import org.neo4j.graphdb.Notification;
import org.neo4j.graphdb.QueryExecutionType;
import org.neo4j.graphdb.Result;

/**
 * What the embedded Neo4j said of a statement besides its rows ({@link Summary}): its notifications, from its GQL
 * status objects (Neo4j's own list, in its order, its standard status apart), and
 * the plan an {@code EXPLAIN} or {@code PROFILE} asked for, read after the rows (a profile's figures exist only
 * then). A statement without either, the common case, costs one look at its notifications and allocates nothing
 * (its standard status is then what a front end derives from its rows, as Neo4j derives it).
 */
final class EmbeddedSummaries {
    /** The statuses every result carries and a front end derives from what it sends (success, no data, ...). */
    private static final Set<String> STANDARD = Set.of("00000", "00001", "02000", "02N42");

    private EmbeddedSummaries() {}

    @SuppressWarnings("removal") // getNotifications: the cheap test of whether there is any
    static Summary of(Result r) {
        QueryExecutionType type = r.getQueryExecutionType();
        if (!type.requestedExecutionPlanDescription() && !r.getNotifications().iterator().hasNext()) {
            return Summary.NONE; // the common statement: its standard status is what a front end derives
        }
        Summary said = notices(r);
        if (!type.requestedExecutionPlanDescription()) {
            return said;
        }
        ExecutionPlanDescription root = r.getExecutionPlanDescription();
        Map<String, Object> plan = plan(root);
        // the root's text form, which Neo4j's HTTP APIs put among its arguments (its Bolt server does not)
        plan.put("text", root.toString());
        return new Summary(said.notifications(), plan, type.isProfiled(), said.standard(), said.raised());
    }

    /** The statuses of {@code r} only (its notifications, standard status, raised order), not its plan. */
    static Summary notices(Result r) {
        List<Map<String, Object>> notifications = List.of();
        Map<Object, Integer> index = null;
        String standard = null;
        for (GqlStatusObject s : r.getGqlStatusObjects()) {
            if (STANDARD.contains(s.gqlStatus())) {
                standard = s.gqlStatus();
                continue;
            }
            if (notifications.isEmpty()) {
                notifications = new ArrayList<>(2);
                index = new IdentityHashMap<>();
            }
            index.put(s, notifications.size());
            notifications.add(status(s));
        }
        return notifications.isEmpty() ? Summary.standard(standard)
                : new Summary(notifications, null, false, standard, raised(r, index, notifications.size()));
    }

    /**
     * The order Neo4j raised the notifications in ({@code getNotifications}, which its classic HTTP API keeps), as
     * indexes into the status objects' order; null when that is the same or cannot be told (the two lists hold the
     * same objects in the embedded API).
     */
    @SuppressWarnings("removal") // getNotifications: the raised order, which only it keeps
    private static List<Integer> raised(Result r, Map<Object, Integer> index, int count) {
        if (count < 2) {
            return null;
        }
        List<Integer> order = new ArrayList<>(count);
        for (Notification n : r.getNotifications()) {
            Integer i = index.get(n);
            if (i == null) {
                return null;
            }
            order.add(i);
        }
        return order.size() == count ? order : null;
    }

    /**
     * The notifications of a plan ({@code EXPLAIN}) sluice made of a statement ({@code s}, from either sink), without
     * the plan, positions moved back by the {@code shift} characters sluice put in front of the statement (on its
     * first line), without Neo4j's complaint that the parameters were not given (they were not: it was a plan), and
     * without what depends on the data rather than the statement (the {@code UNRECOGNIZED} class: an unknown label,
     * relationship type or property key), which the plan, made once and cached, would keep saying.
     */
    static Summary planNotices(Summary s, int shift) {
        if (s.notifications().isEmpty()) {
            return Summary.NONE;
        }
        List<Map<String, Object>> moved = new ArrayList<>(s.notifications().size());
        for (Map<String, Object> n : s.notifications()) {
            if (Neo4jStatus.Statement.PARAMETER_NOT_PROVIDED.equals(n.get("neo4j_code"))) {
                continue; // sluice planned it without the parameters; the statement ran with them
            }
            if (n.get("diagnostic_record") instanceof Map<?, ?> d && "UNRECOGNIZED".equals(d.get("_classification"))) {
                continue; // an unknown label, type or property: true of the data when planned, perhaps not now
            }
            Map<String, Object> m = new LinkedHashMap<>(n);
            if (n.get("diagnostic_record") instanceof Map<?, ?> d && d.get("_position") instanceof Map<?, ?> p
                    && p.get("offset") instanceof Number offset && offset.longValue() >= shift) {
                Map<String, Object> record = new LinkedHashMap<>();
                d.forEach((k, v) -> record.put(String.valueOf(k), v));
                Map<String, Object> position = new LinkedHashMap<>();
                p.forEach((k, v) -> position.put(String.valueOf(k), v));
                position.put("offset", offset.longValue() - shift);
                if (p.get("line") instanceof Number line && line.longValue() == 1
                        && p.get("column") instanceof Number column) {
                    position.put("column", column.longValue() - shift);
                }
                record.put("_position", position);
                m.put("diagnostic_record", record);
            }
            moved.add(m);
        }
        if (moved.isEmpty()) {
            return Summary.NONE;
        }
        // the raised order, less what was left out
        List<Integer> raised = null;
        if (s.raised() != null && moved.size() == s.notifications().size()) {
            raised = s.raised();
        }
        return new Summary(moved, null, false, null, raised);
    }

    /** A GQL status object as {@link Summary} holds it; a notification's code, title and description with it. */
    @SuppressWarnings("removal") // Notification, Neo4j's only source of a notification's code, title and description
    private static Map<String, Object> status(GqlStatusObject s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("gql_status", s.gqlStatus());
        m.put("status_description", s.statusDescription());
        if (s instanceof Notification n) {
            putIfSet(m, "neo4j_code", n.getCode());
            putIfSet(m, "title", n.getTitle());
            putIfSet(m, "description", n.getDescription());
        }
        m.put("diagnostic_record", plain(s.diagnosticRecord()));
        return m;
    }

    private static void putIfSet(Map<String, Object> m, String key, String value) {
        if (value != null) {
            m.put(key, value);
        }
    }

    /** An operator and its children, with its profiler's figures where Neo4j measured them. */
    static Map<String, Object> plan(ExecutionPlanDescription p) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("operatorType", p.getName());
        m.put("args", plain(p.getArguments()));
        m.put("identifiers", List.copyOf(p.getIdentifiers()));
        if (p.hasProfilerStatistics()) {
            ExecutionPlanDescription.ProfilerStatistics s = p.getProfilerStatistics();
            if (s.hasDbHits()) {
                m.put("dbHits", s.getDbHits());
            }
            if (s.hasPageCacheStats()) {
                m.put("pageCacheHits", s.getPageCacheHits());
                m.put("pageCacheMisses", s.getPageCacheMisses());
                m.put("pageCacheHitRatio", s.getPageCacheHitRatio());
            }
            if (s.hasRows()) {
                m.put("rows", s.getRows());
            }
            if (s.hasTime()) {
                m.put("time", s.getTime());
            }
        }
        if (!p.getChildren().isEmpty()) {
            List<Object> children = new ArrayList<>(p.getChildren().size());
            for (ExecutionPlanDescription c : p.getChildren()) {
                children.add(plan(c));
            }
            m.put("children", children);
        }
        return m;
    }

    /** A map of Neo4j's values as plain ones: whole numbers as Long, others as Double, collections as lists. */
    private static Map<String, Object> plain(Map<String, ?> in) {
        Map<String, Object> out = new LinkedHashMap<>();
        in.forEach((k, v) -> out.put(k, plainValue(v)));
        return out;
    }

    private static Object plainValue(Object v) {
        return switch (v) {
            case null -> null;
            case Integer i -> i.longValue();
            case Short s -> s.longValue();
            case Byte b -> b.longValue();
            case Float f -> f.doubleValue();
            case Map<?, ?> m -> {
                Map<String, Object> out = new LinkedHashMap<>();
                m.forEach((k, x) -> out.put(String.valueOf(k), plainValue(x)));
                yield out;
            }
            case Iterable<?> it -> {
                List<Object> out = new ArrayList<>();
                it.forEach(x -> out.add(plainValue(x)));
                yield out;
            }
            case Object[] a -> {
                List<Object> out = new ArrayList<>(a.length);
                for (Object x : a) {
                    out.add(plainValue(x));
                }
                yield out;
            }
            default -> v instanceof Number || v instanceof String || v instanceof Boolean ? v : String.valueOf(v);
        };
    }
}
