package io.sluice.sink;

import io.sluice.vocab.Summary;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.neo4j.driver.Value;
import org.neo4j.driver.summary.GqlStatusObject;
import org.neo4j.driver.summary.Notification;
import org.neo4j.driver.summary.Plan;
import org.neo4j.driver.summary.QueryProfile;
import org.neo4j.driver.summary.ResultSummary;

/**
 * What the Neo4j server behind {@link BoltSink} said of a statement besides its rows, read from the driver's
 * summary into the {@link Summary} the embedded sink gives ({@link EmbeddedSummaries}): the GQL status objects in
 * the server's order (a notification's code, title and description with it, its diagnostic record as plain values),
 * the standard status apart, and the plan or profile with operators named without their {@code @database} (a front
 * end names them again; a profile's operator time, rarely measured, is not passed on). A statement without
 * notifications or plan allocates nothing.
 */
final class BoltSummaries {
    private static final Set<String> STANDARD = Set.of("00000", "00001", "02000", "02N42");

    private BoltSummaries() {}

    @SuppressWarnings("deprecation") // Notification, as below
    static Summary of(ResultSummary s) {
        List<Map<String, Object>> notifications = List.of();
        String standard = null;
        List<Notification> legacy = null;
        for (GqlStatusObject status : s.gqlStatusObjects()) {
            if (STANDARD.contains(status.gqlStatus())) {
                standard = status.gqlStatus();
                continue;
            }
            if (notifications.isEmpty()) {
                notifications = new ArrayList<>(2);
                legacy = legacy(s);
            }
            notifications.add(status(status, legacy));
        }
        Map<String, Object> plan = null;
        boolean profiled = s.queryProfile().isPresent();
        if (profiled) {
            plan = plan(s.queryProfile().get());
        } else if (s.queryPlan().isPresent()) {
            plan = plan(s.queryPlan().get());
        }
        return notifications.isEmpty() && plan == null ? Summary.standard(standard)
                : new Summary(notifications, plan, profiled, standard);
    }

    @SuppressWarnings("deprecation") // notifications(): the driver's only source of a notification's code and texts
    private static List<Notification> legacy(ResultSummary s) {
        return new ArrayList<>(s.notifications());
    }

    /**
     * A status object as {@link Summary} holds it; a notification's code, title and description from the driver's
     * pre-GQL notification of the same place, severity and category ({@code legacy}, each taken once).
     */
    @SuppressWarnings("deprecation") // Notification, as above
    private static Map<String, Object> status(GqlStatusObject s, List<Notification> legacy) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("gql_status", s.gqlStatus());
        m.put("status_description", s.statusDescription());
        Map<String, Object> record = plain(s.diagnosticRecord());
        for (var it = legacy.iterator(); it.hasNext(); ) {
            Notification n = it.next();
            if (samePlace(n, record)) {
                putIfSet(m, "neo4j_code", n.code());
                putIfSet(m, "title", n.title());
                putIfSet(m, "description", n.description());
                it.remove();
                break;
            }
        }
        m.put("diagnostic_record", record);
        return m;
    }

    /** Whether {@code n} is the notification a status object's diagnostic record describes. */
    @SuppressWarnings("deprecation") // Notification, as above
    private static boolean samePlace(Notification n, Map<String, Object> record) {
        long offset = n.position() == null ? -1 : n.position().offset();
        long recorded = record.get("_position") instanceof Map<?, ?> p && p.get("offset") instanceof Number o
                ? o.longValue() : -1;
        return offset == recorded && n.rawSeverityLevel().orElse("").equals(record.getOrDefault("_severity", ""))
                && n.rawCategory().orElse("").equals(record.getOrDefault("_classification", ""));
    }

    private static void putIfSet(Map<String, Object> m, String key, String value) {
        if (value != null) {
            m.put(key, value);
        }
    }

    /** An operator and its children as {@link EmbeddedSummaries#plan} writes them. */
    private static Map<String, Object> plan(Plan p) {
        Map<String, Object> m = new LinkedHashMap<>();
        String operator = p.operatorType();
        int at = operator.lastIndexOf('@');
        m.put("operatorType", at > 0 ? operator.substring(0, at) : operator);
        m.put("args", plain(p.arguments()));
        m.put("identifiers", List.copyOf(p.identifiers()));
        if (p instanceof QueryProfile profile) {
            profile.dbHits().ifPresent(v -> m.put("dbHits", v));
            if (profile.pageCacheHits().isPresent() || profile.pageCacheMisses().isPresent()) {
                m.put("pageCacheHits", profile.pageCacheHits().orElse(0));
                m.put("pageCacheMisses", profile.pageCacheMisses().orElse(0));
                m.put("pageCacheHitRatio", profile.pageCacheHitRatio().orElse(0));
            }
            profile.rows().ifPresent(v -> m.put("rows", v));
            // time left out: the driver gives it as a Duration whose unit mapping the server's figure cannot be told
        }
        if (!p.children().isEmpty()) {
            List<Object> children = new ArrayList<>(p.children().size());
            for (Plan c : p.children()) {
                children.add(plan(c));
            }
            m.put("children", children);
        }
        return m;
    }

    private static Map<String, Object> plain(Map<String, Value> in) {
        Map<String, Object> out = new LinkedHashMap<>();
        in.forEach((k, v) -> out.put(k, BoltValues.detach(v.asObject())));
        return out;
    }
}
