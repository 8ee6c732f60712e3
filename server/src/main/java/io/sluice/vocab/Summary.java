package io.sluice.vocab;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What Neo4j said of a statement besides its rows and counters: its notifications, as GQL status objects (each a map
 * of {@code gql_status}, {@code status_description}, for a notification {@code neo4j_code}, {@code title} and
 * {@code description}, and its whole {@code diagnostic_record}: {@code _severity}, {@code _classification},
 * {@code _position}, ...); Neo4j's standard status for it ({@code standard}: {@code 00000} success, {@code 02000}
 * no data, {@code 00001} omitted result, as Neo4j gives it once every row was read; null: not known, a front end
 * derives one from what it sends); and the plan an {@code EXPLAIN} or {@code PROFILE} asked for (null: none), each
 * operator a map of {@code operatorType} (as the embedded API names it: no {@code @database}), {@code args},
 * {@code identifiers}, {@code children} and, profiled, {@code rows}, {@code dbHits}, {@code pageCacheHits},
 * {@code pageCacheMisses}, {@code pageCacheHitRatio}, {@code time} where Neo4j measured them; the root may have
 * {@code text}, the plan's text form (what Neo4j's HTTP APIs call {@code string-representation}). Values are plain Java
 * ones (Long, Double, String, List, Map). The notifications are in the order of Neo4j's status objects, which its
 * Bolt server and Query API keep; {@code raised} is the order Neo4j raised them in (its classic HTTP API's), as
 * indexes into them (null: the same order).
 */
public record Summary(List<Map<String, Object>> notifications, Map<String, Object> plan, boolean profiled,
        String standard, List<Integer> raised) {
    /** Nothing said: no notification, no plan, no standard status known. */
    public static final Summary NONE = new Summary(List.of(), null, false, null);
    private static final Map<String, Summary> STANDARD = Map.of(
            "00000", new Summary(List.of(), null, false, "00000"),
            "00001", new Summary(List.of(), null, false, "00001"),
            "02000", new Summary(List.of(), null, false, "02000"));

    public Summary {
        notifications = List.copyOf(notifications);
        raised = raised == null || raised.size() != notifications.size() ? null : List.copyOf(raised);
    }

    public Summary(List<Map<String, Object>> notifications, Map<String, Object> plan, boolean profiled,
            String standard) {
        this(notifications, plan, profiled, standard, null);
    }

    /** The notifications in the order Neo4j raised them. */
    public List<Map<String, Object>> notificationsAsRaised() {
        if (raised == null) {
            return notifications;
        }
        List<Map<String, Object>> out = new ArrayList<>(notifications.size());
        for (int i : raised) {
            out.add(notifications.get(i));
        }
        return out;
    }

    /** Only Neo4j's standard status {@code code}: shared, allocated once, for the common statement. */
    public static Summary standard(String code) {
        Summary s = code == null ? NONE : STANDARD.get(code);
        return s != null ? s : new Summary(List.of(), null, false, code);
    }

    /** The same notifications without the plan (what a DISCARD of a write reports: Neo4j drops it then). */
    public Summary withoutPlan() {
        return plan == null ? this : new Summary(notifications, null, false, standard, raised);
    }

    /**
     * The notifications in the form Neo4j gave them before GQL statuses (Bolt 4.4 to 5.4, the Query API):
     * {@code code}, {@code description}, {@code severity}, {@code title}, {@code position} (only when it has one)
     * and {@code category}, read off each status and its diagnostic record.
     */
    public List<Map<String, Object>> legacyNotifications() {
        return legacy(notifications);
    }

    /** {@code notifications} ({@link #notifications}' form) in the form Neo4j gave them before GQL statuses. */
    public static List<Map<String, Object>> legacy(List<Map<String, Object>> notifications) {
        List<Map<String, Object>> out = new ArrayList<>(notifications.size());
        for (Map<String, Object> n : notifications) {
            Map<?, ?> d = n.get("diagnostic_record") instanceof Map<?, ?> m ? m : Map.of();
            Map<String, Object> legacy = new LinkedHashMap<>();
            legacy.put("code", n.get("neo4j_code"));
            legacy.put("description", n.get("description"));
            legacy.put("severity", d.get("_severity") != null ? d.get("_severity") : "UNKNOWN");
            legacy.put("title", n.get("title"));
            if (d.get("_position") instanceof Map<?, ?> p && p.get("offset") instanceof Number o && o.longValue() >= 0) {
                Map<String, Object> position = new LinkedHashMap<>();
                position.put("offset", p.get("offset"));
                position.put("line", p.get("line"));
                position.put("column", p.get("column"));
                legacy.put("position", position);
            }
            legacy.put("category", d.get("_classification") != null ? d.get("_classification") : "UNKNOWN");
            out.add(legacy);
        }
        return out;
    }

    /** Whether it says nothing. */
    public boolean isEmpty() {
        return notifications.isEmpty() && plan == null && standard == null;
    }
}
