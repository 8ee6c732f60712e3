package io.sluice.topic;

import io.sluice.config.Sources;
import io.sluice.write.Template;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The connector's Cypher strategy: each record runs the topic's statements with the record bound as the connector
 * binds it ({@code event} and {@code __value} the value, {@code __key}, {@code __header}, {@code __timestamp} a UTC
 * date-time; each name renamable, an empty one unbound), and sluice's additions: several statements per topic, run
 * in order, and a statement chosen per record by a header or field ({@link Sources.Route}).
 *
 * <h2>Design</h2>
 * Each choice of statements is one template, made once: {@code UNWIND $rows AS row CALL (row) { WITH <bindings>
 * <statement> } FINISH}; several statements are subqueries of one per-record {@code CALL}. The per-record
 * {@code CALL} keeps records apart as the connector's does (an aggregation or a {@code MATCH} that finds nothing
 * affects its own record only) and in order (each record sees the ones before it, all its statements run before
 * the next record's), and a batch's records of one choice run as one statement. A row carries the record ({@code k},
 * {@code v}, {@code h}, {@code t}), its key again for the lock order's check ({@code key}) and, with
 * {@code lock_order}, the values found at those paths ({@code lock}): rows of one transaction are sorted by them
 * when that reorders no two records of one key.
 */
public final class CypherStrategy implements Strategy {
    private final String topic;
    private final Sources.Cypher config;
    private final Template always;
    private final Map<String, Template> cases;
    private final Template otherwise;
    private final List<String[]> lockPaths;
    private final String[] routePath;

    public CypherStrategy(String topic, Sources.Cypher config) {
        this.topic = topic;
        this.config = config;
        this.lockPaths = new ArrayList<>();
        for (String p : config.lockOrder()) {
            lockPaths.add(path(p));
        }
        List<String> key = List.of("key");
        List<String> lockOrder = lockPaths.isEmpty() ? List.of() : List.of("lock");
        if (config.route() == null) {
            always = template("topic:" + topic, config.statements(), config.bind(), key, lockOrder);
            cases = Map.of();
            otherwise = null;
            routePath = null;
        } else {
            always = null;
            routePath = path(config.route().by());
            Map<String, Template> c = new LinkedHashMap<>();
            config.route().cases().forEach((name, statements) -> c.put(name,
                    template("topic:" + topic + ":" + name, statements, config.bind(), key, lockOrder)));
            cases = Map.copyOf(c);
            otherwise = config.route().otherwise().isEmpty() ? null
                    : template("topic:" + topic + ":otherwise", config.route().otherwise(), config.bind(), key,
                            lockOrder);
        }
    }

    private static String[] path(String p) {
        String[] parts = p.split("\\.");
        if (!parts[0].matches("__(key|value|header|timestamp)")) {
            throw new IllegalArgumentException("path '" + p + "' must start with __key, __value, __header or"
                    + " __timestamp");
        }
        return parts;
    }

    /** The template that runs {@code statements} for each row, in order. */
    static Template template(String name, List<String> statements, Sources.Binding bind, List<String> key,
            List<String> lockOrder) {
        String with = bindings(bind);
        StringBuilder c = new StringBuilder();
        if (statements.size() == 1) {
            c.append("CALL (row) { WITH ").append(with).append(' ').append(statements.getFirst().strip()).append("\n} ");
        } else {
            // one subquery per record, the statements inside it: side by side, Neo4j may run every record through
            // the first before any through the second (an Eager between them), which would reorder records. Each
            // statement's rows counted to one, so that one which returns none (or several) runs the next once.
            c.append("CALL (row) { ");
            for (int i = 0; i < statements.size(); i++) {
                c.append("CALL (row) { CALL (row) { WITH ").append(with).append(' ')
                        .append(statements.get(i).strip()).append("\n} RETURN count(*) AS __sluice_").append(i)
                        .append(" } ");
            }
            c.append("RETURN 0 AS __sluice } ");
        }
        c.append("FINISH");
        return new Template(name, c.toString(), "UNWIND $" + Template.ROWS_PARAM + " AS row " + c, key, Set.of(),
                Map.of(), lockOrder);
    }

    private static String bindings(Sources.Binding b) {
        List<String> w = new ArrayList<>();
        if (b.event()) {
            w.add("row.v AS event");
        }
        if (!b.timestamp().isEmpty()) {
            w.add("row.t AS " + b.timestamp());
        }
        if (!b.header().isEmpty()) {
            w.add("row.h AS " + b.header());
        }
        if (!b.key().isEmpty()) {
            w.add("row.k AS " + b.key());
        }
        if (!b.value().isEmpty()) {
            w.add("row.v AS " + b.value());
        }
        return String.join(", ", w);
    }

    @Override
    public List<Op> ops(Message m) throws Invalid {
        Template t = always;
        if (t == null) {
            Object chosen = at(m, routePath);
            t = chosen == null ? null : cases.get(String.valueOf(chosen));
            if (t == null) {
                t = otherwise;
            }
            if (t == null) {
                throw new Invalid("no route of topic '" + topic + "' for " + config.route().by() + " = "
                        + (chosen == null ? "null (absent)" : "'" + chosen + "'") + "; the cases are "
                        + cases.keySet());
            }
        }
        Map<String, Object> row = new HashMap<>(8);
        row.put("k", m.key());
        row.put("v", m.value());
        row.put("h", m.headers());
        row.put("t", Instant.ofEpochMilli(m.timestamp()).atOffset(ZoneOffset.UTC));
        // the lock order's check compares keys by value: bytes as their hex text (an array equals only itself)
        row.put("key", m.key() instanceof byte[] b ? HexFormat.of().formatHex(b) : m.key());
        if (!lockPaths.isEmpty()) {
            List<Object> lock = new ArrayList<>(lockPaths.size());
            for (String[] p : lockPaths) {
                lock.add(at(m, p));
            }
            row.put("lock", lock);
        }
        return List.of(new Op(t, row));
    }

    /** The value at a path of the record ({@code __value.a.b}), null where there is none. */
    static Object at(Message m, String[] path) {
        Object v = switch (path[0]) {
            case "__key" -> m.key();
            case "__value" -> m.value();
            case "__header" -> m.headers();
            default -> m.timestamp();
        };
        for (int i = 1; i < path.length && v != null; i++) {
            v = v instanceof Map<?, ?> map ? map.get(path[i]) : null;
        }
        return v;
    }

    @Override
    public List<Check> checks() {
        List<Check> out = new ArrayList<>();
        if (always != null) {
            out.add(new Check("topic '" + topic + "'", always.unwindCypher(), List.of()));
        }
        cases.forEach((name, t) -> out.add(new Check("topic '" + topic + "', route " + name, t.unwindCypher(),
                List.of())));
        if (otherwise != null) {
            out.add(new Check("topic '" + topic + "', otherwise", otherwise.unwindCypher(), List.of()));
        }
        return out;
    }
}
