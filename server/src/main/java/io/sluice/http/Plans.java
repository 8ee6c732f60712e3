package io.sluice.http;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A statement's plan ({@link io.sluice.vocab.Summary#plan()}) as Neo4j's two HTTP APIs write it, each operator named
 * {@code Operator@database} as Neo4j names it (compared with Neo4j's own answers in {@code DifferentialTest}):
 * <ul>
 *   <li>the Query API: {@code queryPlan} after {@code EXPLAIN}, {@code profiledQueryPlan} after {@code PROFILE}; an
 *   operator is {@code operatorType}, {@code arguments} (the root's with the plan's text form,
 *   {@code string-representation}, where the sink gave one: the embedded one does), {@code identifiers}, profiled its figures as the Java
 *   driver reads them ({@code dbHits}, {@code records}, the page cache's three, zero where Neo4j measured none, and
 *   {@code hasPageCacheStats} when any is not zero), then {@code children};</li>
 *   <li>the classic API: the statement's {@code plan}, {@code {"root": operator}}, an operator being its
 *   {@code operatorType}, its arguments flattened into it (a profile's figures are among them), {@code identifiers}
 *   and {@code children}.</li>
 * </ul>
 * Pure functions.
 */
final class Plans {
    private Plans() {}

    /** The Query API's operator tree; {@code typed}: its arguments' values in typed JSON (the rest is plain). */
    static Map<String, Object> query(Map<String, Object> plan, boolean profiled, String db, boolean typed) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("operatorType", plan.get("operatorType") + "@" + db);
        Map<String, Object> arguments = new LinkedHashMap<>();
        if (plan.get("args") instanceof Map<?, ?> args) {
            args.forEach((k, v) -> arguments.put(String.valueOf(k), typed ? TypedJson.encode(v) : v));
        }
        if (plan.get("text") instanceof String text) {
            arguments.put("string-representation", typed ? TypedJson.encode(text) : text);
        }
        out.put("arguments", arguments);
        out.put("identifiers", plan.getOrDefault("identifiers", List.of()));
        if (profiled) {
            long hits = number(plan, "pageCacheHits");
            long misses = number(plan, "pageCacheMisses");
            double ratio = plan.get("pageCacheHitRatio") instanceof Number n ? n.doubleValue() : 0.0;
            out.put("dbHits", number(plan, "dbHits"));
            out.put("records", number(plan, "rows"));
            out.put("pageCacheHits", hits);
            out.put("pageCacheMisses", misses);
            out.put("pageCacheHitRatio", ratio);
            out.put("hasPageCacheStats", hits > 0 || misses > 0 || ratio > 0);
        }
        List<Object> children = new ArrayList<>();
        for (Map<String, Object> c : children(plan)) {
            children.add(query(c, profiled, db, typed));
        }
        out.put("children", children);
        return out;
    }

    /** The classic API's {@code plan}: {@code {"root": operator}}. */
    static Map<String, Object> classic(Map<String, Object> plan, String db) {
        return Map.of("root", classicOperator(plan, db));
    }

    private static Map<String, Object> classicOperator(Map<String, Object> plan, String db) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("operatorType", plan.get("operatorType") + "@" + db);
        if (plan.get("args") instanceof Map<?, ?> args) {
            args.forEach((k, v) -> out.put(String.valueOf(k), v));
        }
        if (plan.get("text") instanceof String text) {
            out.put("string-representation", text);
        }
        out.put("identifiers", plan.getOrDefault("identifiers", List.of()));
        List<Object> children = new ArrayList<>();
        for (Map<String, Object> c : children(plan)) {
            children.add(classicOperator(c, db));
        }
        out.put("children", children);
        return out;
    }

    private static long number(Map<String, Object> plan, String key) {
        return plan.get(key) instanceof Number n ? n.longValue() : 0L;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> children(Map<String, Object> plan) {
        return plan.get("children") instanceof List<?> l ? (List<Map<String, Object>>) l : List.of();
    }
}
