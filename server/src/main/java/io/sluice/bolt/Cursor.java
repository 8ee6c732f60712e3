package io.sluice.bolt;

import io.sluice.bolt.Handshake.Version;
import io.sluice.vocab.Counter;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.NoticeFilter;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A statement's materialised result being pulled: its rows, what Neo4j calls its type, its counters; or the
 * error its PULL reports. Confined to the worker.
 */
final class Cursor {
    private final StatementResult result;
    private final String type;
    private final boolean autoCommit;
    private final Neo4jError failure;
    private final Map<String, Object> extra;
    private int at;

    private Cursor(StatementResult result, String type, boolean autoCommit, Neo4jError failure,
            Map<String, Object> extra) {
        this.result = result == null ? StatementResult.EMPTY : result;
        this.type = type;
        this.autoCommit = autoCommit;
        this.failure = failure;
        this.extra = extra;
    }

    static Cursor of(StatementResult r, QueryKind kind, boolean autoCommit,
            Neo4jError failure) {
        StatementResult res = r == null ? StatementResult.EMPTY : r;
        return new Cursor(res, QueryKind.typeOf(kind, !res.columns().isEmpty()), autoCommit,
                failure, null);
    }

    /** A statement on the system database: a read when it returns something, else a system command. */
    static Cursor system(StatementResult r) {
        return new Cursor(r, r.columns().isEmpty() ? "s" : "r", true, null, null);
    }

    /** A write the journal took (async): no records; the journal's position in the summary. */
    static Cursor accepted(Map<String, Object> journal) {
        return new Cursor(null, "w", true, null, Map.of("sluice", journal));
    }

    List<String> fields() {
        return result.columns();
    }

    boolean hasNext() {
        return at < result.rows().size();
    }

    List<Object> next() {
        return result.rows().get(at++);
    }

    boolean autoCommit() {
        return autoCommit;
    }

    /**
     * Whether its final SUCCESS carries a bookmark: an auto-commit statement's that committed; not an async
     * write's (the journal has it; the graph, which a bookmark speaks of, not yet).
     */
    boolean bookmarked() {
        return autoCommit && extra == null;
    }

    Neo4jError failure() {
        return failure;
    }

    /** How a result's rows ended: pulled, discarded after running, or (a read) cancelled unrun by a DISCARD. */
    enum End { PULLED, DISCARDED, CANCELLED }

    /** Whether nothing of it has been pulled or discarded yet. */
    boolean untouched() {
        return at == 0;
    }

    /** Whether Neo4j plans it as a read ({@code r}). */
    boolean read() {
        return "r".equals(type);
    }

    /**
     * The final SUCCESS: Neo4j's keys in Neo4j's order, its notifications and plan as {@code version} takes them
     * ({@link Notices}: a discarded result's without its plan, as Neo4j's; only those {@code notices} lets through);
     * {@code bookmark} null: none (in a transaction).
     */
    Map<String, Object> summary(String bookmark, String db, Version version, End end, NoticeFilter notices) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (bookmark != null) {
            m.put("bookmark", bookmark);
        }
        Map<String, Object> stats = stats(result.counters());
        if (!stats.isEmpty()) {
            m.put("stats", stats);
        }
        m.put("type", type);
        m.put("t_last", 0L);
        m.put("db", db);
        Notices.put(m, end == End.DISCARDED ? result.summary().withoutPlan() : result.summary(), version, db,
                !result.columns().isEmpty(), at > 0, end == End.CANCELLED, notices);
        if (extra != null) {
            m.putAll(extra);
        }
        return m;
    }

    /** Neo4j's counters as Bolt names them ({@code nodes-created}), the ones that are not zero. */
    private static Map<String, Object> stats(Map<String, Object> counters) {
        Map<String, Object> out = new LinkedHashMap<>();
        counters.forEach((k, v) -> {
            if (v instanceof Number n && n.longValue() != 0) {
                out.put(Counter.boltKey(k), n.longValue());
            } else if (v instanceof Boolean b && b) {
                out.put(Counter.boltKey(k), true);
            }
        });
        return out;
    }
}
