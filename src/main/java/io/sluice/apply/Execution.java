package io.sluice.apply;

import io.sluice.batch.Pending;
import io.sluice.sink.SinkException;
import io.sluice.sink.Sink.SinkTx;
import io.sluice.sink.StatementResult;
import io.sluice.write.Statement;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest.CypherRequest;
import io.sluice.write.WriteRequest.TemplateRequest;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a group of requests inside one open transaction. Template rows are coalesced: all rows of one
 * template, in arrival order, go into a single {@code UNWIND $rows AS row ...}. Raw Cypher requests run
 * statement by statement, in arrival order, each result materialised for its request. Templates run in order
 * of their first appearance, then raw Cypher; order holds per template and per raw request, which is what
 * the ordering promise (per key) needs.
 *
 * <p>Lock order: with several appliers, concurrent transactions of one template touch disjoint keys (partitions)
 * but may share the other nodes they MERGE or MATCH (the sites users visit). Sorting each batch's rows by those
 * nodes' keys ({@link Template#lockOrder()}) makes every transaction take those locks in one global order, so
 * no wait cycle (deadlock) can form. The sort is stable and is skipped for a batch in which one key occurs
 * twice with different lock values, because within one transaction the order of a key's rows is observable
 * ({@code SET u.last = row.seq}); such a batch keeps arrival order and relies on the deadlock retry.
 */
final class Execution {
    private Execution() {}

    /** {@code keepResults} false: raw statements run discarding their results (each request gets empty ones). */
    static Map<Pending, List<StatementResult>> run(SinkTx tx, List<Pending> group, boolean lockOrder,
            boolean keepResults) throws SinkException {
        Map<Template, List<Map<String, Object>>> templateRows = new LinkedHashMap<>();
        List<Pending> cypher = new ArrayList<>();
        for (Pending p : group) {
            switch (p.request()) {
                case TemplateRequest t -> templateRows.computeIfAbsent(t.template(), k -> new ArrayList<>())
                        .addAll(t.rowList());
                case CypherRequest c -> cypher.add(p);
            }
        }
        for (var e : templateRows.entrySet()) {
            List<Map<String, Object>> rows = lockOrder ? lockOrdered(e.getKey(), e.getValue()) : e.getValue();
            tx.runDiscarding(e.getKey().unwindCypher(), Map.of(Template.ROWS_PARAM, rows));
        }
        Map<Pending, List<StatementResult>> results = new IdentityHashMap<>();
        for (Pending p : cypher) {
            CypherRequest c = (CypherRequest) p.request();
            List<StatementResult> rs = new ArrayList<>(c.statements().size());
            for (Statement s : c.statements()) {
                if (keepResults) {
                    rs.add(tx.run(s.cypher(), s.params()));
                } else {
                    tx.runDiscarding(s.cypher(), s.params());
                    rs.add(StatementResult.EMPTY);
                }
            }
            results.put(p, rs);
        }
        return results;
    }

    /** The rows sorted (stably) by the template's lock-order fields, or as they are when that would reorder a key. */
    static List<Map<String, Object>> lockOrdered(Template t, List<Map<String, Object>> rows) {
        if (t.lockOrder().isEmpty() || rows.size() < 2) {
            return rows;
        }
        if (!t.key().isEmpty()) {
            Map<List<Object>, List<Object>> lockOfKey = new java.util.HashMap<>();
            for (Map<String, Object> row : rows) {
                List<Object> previous = lockOfKey.putIfAbsent(values(row, t.key()), values(row, t.lockOrder()));
                if (previous != null && !previous.equals(values(row, t.lockOrder()))) {
                    return rows;
                }
            }
        }
        List<Map<String, Object>> sorted = new ArrayList<>(rows);
        sorted.sort((a, b) -> {
            for (String f : t.lockOrder()) {
                int c = compare(a.get(f), b.get(f));
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        });
        return sorted;
    }

    private static List<Object> values(Map<String, Object> row, List<String> fields) {
        List<Object> v = new ArrayList<>(fields.size());
        for (String f : fields) {
            v.add(row.get(f));
        }
        return v;
    }

    /** A total order over JSON values: nulls first, then by type, then naturally within a type. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static int compare(Object a, Object b) {
        if (a == b) {
            return 0;
        }
        if (a == null || b == null) {
            return a == null ? -1 : 1;
        }
        if (a instanceof Number x && b instanceof Number y) {
            return (x instanceof Long && y instanceof Long) ? Long.compare((Long) x, (Long) y)
                    : Double.compare(x.doubleValue(), y.doubleValue());
        }
        if (a.getClass() != b.getClass()) {
            return a.getClass().getName().compareTo(b.getClass().getName());
        }
        if (a instanceof Comparable c) {
            return c.compareTo(b);
        }
        return Integer.compare(a.hashCode(), b.hashCode());
    }
}
