package io.sluice.bolt;

import io.sluice.bolt.Handshake.Version;
import io.sluice.vocab.NoticeFilter;
import io.sluice.vocab.Summary;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A statement's notifications and plan as Neo4j's Bolt server puts them in the final SUCCESS of a PULL or DISCARD
 * (its {@code DefaultMetadataHandler} and, for 4.4 to 5.4, {@code AbstractLegacyMetadataHandler}): Bolt 5.6 and
 * later get {@code statuses}, the notifications, each with its diagnostic record less the entries that equal their
 * defaults, and the standard status (Neo4j's for the statement, else derived from what was sent: {@code 00001}
 * for a statement without columns, {@code 02000} when no row came, else {@code 00000}), in the order Neo4j's
 * server sends them: by class, no data ({@code 02}) first, then warnings ({@code 01}), success ({@code 00}),
 * information ({@code 03}), in Neo4j's order within a class; earlier versions get
 * {@code notifications} (code, title, description, severity, category, position), only when there are some. A plan
 * goes under {@code plan}, or {@code profile} when profiled, each operator named {@code Operator@database} as
 * Neo4j's query router names it. Pure functions.
 */
final class Notices {
    /** The diagnostic record's entries Neo4j leaves out when they hold these values. */
    private static final Map<String, Object> DEFAULTS = Map.of("OPERATION", "", "OPERATION_CODE", "0",
            "CURRENT_SCHEMA", "/", "_position", Map.of("offset", -1L, "line", -1L, "column", -1L));

    private Notices() {}

    /**
     * Puts {@code summary}'s notifications (or 5.6+'s statuses) and plan into {@code meta}, for {@code version};
     * {@code columns}: whether the statement has any, {@code served}: whether any row came of it (sent or
     * discarded), {@code cancelled}: a read discarded unread, which Neo4j never ran ({@code 02N42}); only the
     * notifications {@code notices} lets through.
     */
    static void put(Map<String, Object> meta, Summary summary, Version version, String db, boolean columns,
            boolean served, boolean cancelled, NoticeFilter notices) {
        List<Map<String, Object>> wanted = notices.of(summary);
        if (version.atLeast(Version.V5_6)) {
            List<Map<String, Object>> statuses = new ArrayList<>(1 + wanted.size());
            for (Map<String, Object> n : wanted) {
                statuses.add(status(n));
            }
            String code = cancelled ? "02N42" : summary.standard() != null ? summary.standard() : !columns ? "00001"
                    : !served ? "02000" : "00000";
            statuses.add(Map.of("gql_status", code, "status_description", DESCRIPTIONS.getOrDefault(code, "")));
            statuses.sort(Comparator.comparingInt(s -> rank((String) s.get("gql_status")))); // stable
            meta.put("statuses", statuses);
        } else if (!wanted.isEmpty()) {
            meta.put("notifications", Summary.legacy(wanted));
        }
        if (summary.plan() != null) {
            meta.put(summary.profiled() ? "profile" : "plan", located(summary.plan(), db));
        }
    }

    /** The standard statuses' descriptions, as Neo4j words them. */
    private static final Map<String, String> DESCRIPTIONS = Map.of(
            "00000", "note: successful completion",
            "00001", "note: successful completion - omitted result",
            "02000", "note: no data",
            "02N42", "note: no data - unknown subcondition. Unknown GQLSTATUS from old server.");

    /** Where a status goes among a statement's: by its class, as Neo4j's server orders them. */
    private static int rank(String status) {
        return switch (status.substring(0, 2)) {
            case "02" -> 0;
            case "01" -> 1;
            case "00" -> 2;
            case "03" -> 3;
            default -> 4;
        };
    }

    /** 5.6+: the status with its diagnostic record less its defaults (left out when nothing remains). */
    private static Map<String, Object> status(Map<String, Object> n) {
        Map<String, Object> s = new LinkedHashMap<>(n);
        Map<String, Object> record = new LinkedHashMap<>();
        if (n.get("diagnostic_record") instanceof Map<?, ?> d) {
            d.forEach((k, v) -> {
                if (!Objects.equals(v, DEFAULTS.get(String.valueOf(k)))) {
                    record.put(String.valueOf(k), v);
                }
            });
        }
        s.remove("diagnostic_record");
        if (!record.isEmpty()) {
            s.put("diagnostic_record", record);
        }
        return s;
    }

    /** The plan with every operator named as Neo4j's server names it: {@code Operator@database}. */
    private static Map<String, Object> located(Map<String, Object> plan, String db) {
        Map<String, Object> out = new LinkedHashMap<>(plan);
        out.remove("text"); // Neo4j's Bolt server sends no text form
        out.put("operatorType", plan.get("operatorType") + "@" + db);
        if (plan.get("children") instanceof List<?> children) {
            List<Object> located = new ArrayList<>(children.size());
            for (Object c : children) {
                located.add(located(cast((Map<?, ?>) c), db));
            }
            out.put("children", located);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Map<?, ?> m) {
        return (Map<String, Object>) m;
    }
}
