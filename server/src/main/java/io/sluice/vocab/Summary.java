package io.sluice.vocab;

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
 * {@code pageCacheMisses}, {@code pageCacheHitRatio}, {@code time} where Neo4j measured them. Values are plain Java
 * ones (Long, Double, String, List, Map).
 */
public record Summary(List<Map<String, Object>> notifications, Map<String, Object> plan, boolean profiled,
        String standard) {
    /** Nothing said: no notification, no plan, no standard status known. */
    public static final Summary NONE = new Summary(List.of(), null, false, null);
    private static final Map<String, Summary> STANDARD = Map.of(
            "00000", new Summary(List.of(), null, false, "00000"),
            "00001", new Summary(List.of(), null, false, "00001"),
            "02000", new Summary(List.of(), null, false, "02000"));

    public Summary {
        notifications = List.copyOf(notifications);
    }

    /** Only Neo4j's standard status {@code code}: shared, allocated once, for the common statement. */
    public static Summary standard(String code) {
        Summary s = code == null ? NONE : STANDARD.get(code);
        return s != null ? s : new Summary(List.of(), null, false, code);
    }

    /** The same notifications without the plan (what a DISCARD of a write reports: Neo4j drops it then). */
    public Summary withoutPlan() {
        return plan == null ? this : new Summary(notifications, null, false, standard);
    }

    /** Whether it says nothing. */
    public boolean isEmpty() {
        return notifications.isEmpty() && plan == null && standard == null;
    }
}
