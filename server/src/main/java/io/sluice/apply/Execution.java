package io.sluice.apply;

import io.sluice.batch.Pending;
import io.sluice.cypher.Coalescing;
import io.sluice.sink.Sink.SinkTx;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.StatementResult;
import io.sluice.write.Statement;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest.CypherRequest;
import io.sluice.write.WriteRequest.Sequence;
import io.sluice.write.WriteRequest.TemplateRequest;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a group of requests inside one open transaction. Template rows are coalesced: all rows of one
 * template, in arrival order, go into a single {@code UNWIND $rows AS row ...}. Raw Cypher requests run
 * statement by statement, in arrival order, each result materialised for its request; except that adjacent
 * requests that each run the same one statement, and whose clients need no result from it (see
 * {@link #coalescible}), run together as that statement's coalesced form ({@link Coalescing}: once per
 * request, in order, in one statement) when it has one. Templates run in order of their first appearance, then
 * raw Cypher; order holds per template and across raw requests, which is what the ordering promise (per key;
 * for raw Cypher, per connection) needs.
 *
 * <p>Lock order: with several appliers, concurrent transactions of one template touch disjoint keys (partitions)
 * but may share the other nodes they MERGE or MATCH (the sites users visit). Sorting each batch's rows by those
 * nodes' keys ({@link Template#lockOrder()}) makes every transaction take those locks in one global order, so
 * no wait cycle (deadlock) can form. Within one transaction the order of a key's rows is observable
 * ({@code SET u.last = row.seq}), so a key's rows never change places among themselves: every row sorts by the
 * lock values of its key's first row (a stable sort), and a key that recurs with other lock values keeps its rows
 * in arrival order, at its first row's place. Only those later rows lock out of the global order (a user who
 * visits site c, then site b): the sort removes most wait cycles from a batch in which keys repeat, the deadlock
 * retry the rest. (It used to skip such a batch entirely; a batch of a few hundred rows nearly always has a key
 * twice, and concurrent consumers of one topic deadlocked hundreds of times a run: issue 28's bench.)
 */
final class Execution {
    private Execution() {}

    /** Told, before each statement, whose requests it runs (what a lock watch sets aside if it blocks). */
    @FunctionalInterface
    interface Step {
        Step NONE = requests -> {};

        void at(List<Pending> requests);
    }

    /**
     * {@code keepResults} false: raw statements run discarding their results (each request gets empty ones).
     * {@code forms}: the coalesced forms of statements, by text ({@link #formsFor}); those without one run as
     * they are. {@code step} is told whose requests each statement runs.
     */
    static Map<Pending, List<StatementResult>> run(SinkTx tx, List<Pending> group, boolean lockOrder,
            boolean keepResults, Map<String, String> forms, Step step) throws GraphException {
        Map<Template, List<Map<String, Object>>> templateRows = new LinkedHashMap<>();
        Map<Template, List<Pending>> templateRequests = new HashMap<>();
        List<Pending> cypher = new ArrayList<>();
        for (Pending p : group) {
            switch (p.request()) {
                case TemplateRequest t -> {
                    templateRows.computeIfAbsent(t.template(), k -> new ArrayList<>()).addAll(t.rowList());
                    addOnce(templateRequests.computeIfAbsent(t.template(), k -> new ArrayList<>()), p);
                }
                case Sequence s -> {
                    for (TemplateRequest t : s.parts()) {
                        templateRows.computeIfAbsent(t.template(), k -> new ArrayList<>()).addAll(t.rowList());
                        addOnce(templateRequests.computeIfAbsent(t.template(), k -> new ArrayList<>()), p);
                    }
                }
                case CypherRequest c -> cypher.add(p);
            }
        }
        for (var e : templateRows.entrySet()) {
            List<Map<String, Object>> rows = lockOrder ? lockOrdered(e.getKey(), e.getValue()) : e.getValue();
            step.at(templateRequests.get(e.getKey()));
            tx.runDiscarding(e.getKey().unwindCypher(), Map.of(Template.ROWS_PARAM, rows));
        }
        Map<Pending, List<StatementResult>> results = new IdentityHashMap<>();
        for (int i = 0; i < cypher.size(); ) {
            String statement = coalescible(cypher.get(i), keepResults);
            String form = statement == null ? null : forms.get(statement);
            int end = i + 1;
            while (form != null && end < cypher.size() && statement.equals(coalescible(cypher.get(end), keepResults))) {
                end++;
            }
            if (end - i > 1) { // a request alone runs as it is: a failing one gets its own statement's error
                List<Map<String, Object>> rows = new ArrayList<>(end - i);
                for (Pending p : cypher.subList(i, end)) {
                    rows.add(((CypherRequest) p.request()).statements().getFirst().params());
                }
                step.at(cypher.subList(i, end));
                tx.runDiscarding(form, Map.of(Coalescing.ROWS, rows));
                for (Pending p : cypher.subList(i, end)) {
                    results.put(p, List.of(StatementResult.UNREAD)); // what it returns: no columns, no rows
                }
            } else {
                step.at(List.of(cypher.get(i)));
                results.put(cypher.get(i), runAsSent(tx, (CypherRequest) cypher.get(i).request(), keepResults));
            }
            i = end;
        }
        return results;
    }

    /** A sequence's parts share a template: its request is one of that template's once. */
    private static void addOnce(List<Pending> requests, Pending p) {
        if (requests.isEmpty() || requests.getLast() != p) {
            requests.add(p);
        }
    }

    /**
     * Runs each request of {@code group} as statements of its own, in order, telling {@code step} whose they are:
     * the requests a blocked statement held together, run again so that the one that waits is found alone.
     */
    static Map<Pending, List<StatementResult>> runEach(SinkTx tx, List<Pending> group, boolean lockOrder,
            boolean keepResults, Step step) throws GraphException {
        Map<Pending, List<StatementResult>> results = new IdentityHashMap<>();
        for (Pending p : group) {
            step.at(List.of(p));
            switch (p.request()) {
                case TemplateRequest t -> runTemplate(tx, t, lockOrder);
                case Sequence s -> {
                    for (TemplateRequest t : s.parts()) {
                        runTemplate(tx, t, lockOrder);
                    }
                }
                case CypherRequest c -> results.put(p, runAsSent(tx, c, keepResults));
            }
        }
        return results;
    }

    private static void runTemplate(SinkTx tx, TemplateRequest t, boolean lockOrder) throws GraphException {
        List<Map<String, Object>> rows = lockOrder ? lockOrdered(t.template(), t.rowList()) : t.rowList();
        tx.runDiscarding(t.template().unwindCypher(), Map.of(Template.ROWS_PARAM, rows));
    }

    /**
     * Runs a group in its order across templates (an application topic's records, in offset order): each run of
     * consecutive rows of one template is one {@code UNWIND} (sorted by its lock order when that reorders no key),
     * raw requests run as sent between them. Only rows next to each other coalesce, so a topic whose records
     * alternate between shapes runs in short statements; one whose records share a shape runs as one.
     */
    static Map<Pending, List<StatementResult>> runInOrder(SinkTx tx, List<Pending> group, boolean lockOrder,
            boolean keepResults) throws GraphException {
        Map<Pending, List<StatementResult>> results = new IdentityHashMap<>();
        Run run = new Run(tx, lockOrder);
        for (Pending p : group) {
            switch (p.request()) {
                case TemplateRequest t -> run.add(t);
                case Sequence s -> {
                    for (TemplateRequest t : s.parts()) {
                        run.add(t);
                    }
                }
                case CypherRequest c -> {
                    run.flush();
                    results.put(p, runAsSent(tx, c, keepResults));
                }
            }
        }
        run.flush();
        return results;
    }

    /** The rows of one template gathered so far, run as one statement when another template's row comes. */
    private static final class Run {
        private final SinkTx tx;
        private final boolean lockOrder;
        private Template template;
        private List<Map<String, Object>> rows = new ArrayList<>();

        Run(SinkTx tx, boolean lockOrder) {
            this.tx = tx;
            this.lockOrder = lockOrder;
        }

        void add(TemplateRequest t) throws GraphException {
            if (template != null && template != t.template() && !template.equals(t.template())) {
                flush();
            }
            template = t.template();
            rows.addAll(t.rowList());
        }

        void flush() throws GraphException {
            if (template != null && !rows.isEmpty()) {
                tx.runDiscarding(template.unwindCypher(), Map.of(Template.ROWS_PARAM,
                        lockOrder ? lockOrdered(template, rows) : rows));
                rows = new ArrayList<>();
            }
            template = null;
        }
    }

    private static List<StatementResult> runAsSent(SinkTx tx, CypherRequest c, boolean keepResults)
            throws GraphException {
        List<StatementResult> rs = new ArrayList<>(c.statements().size());
        for (Statement s : c.statements()) {
            if (keepResults) {
                rs.add(tx.run(s.cypher(), s.params()));
            } else {
                tx.runDiscarding(s.cypher(), s.params());
                rs.add(StatementResult.UNREAD);
            }
        }
        return rs;
    }

    /**
     * The statement of a request that may be coalesced with others, or null: a raw request of one statement (a
     * request of several is atomic and runs as it is) whose client needs nothing from its result but success:
     * it asked for no update counters, or nobody reads the result ({@code keepResults} false: async). Whether
     * it returns rows its form's planning tells ({@link Coalescing}).
     */
    static String coalescible(Pending p, boolean keepResults) {
        if (p.request() instanceof CypherRequest c && c.statements().size() == 1 && (!keepResults || !c.counters())) {
            return c.statements().getFirst().cypher();
        }
        return null;
    }

    /**
     * The coalesced forms of the statements two or more adjacent raw requests of {@code group} run alike; a
     * statement's form is made and planned the first time (outside the batch's transaction, so a form that does
     * not plan cannot fail it), then cached by {@code coalescing}. Statements that never repeat side by side
     * are never planned twice.
     */
    static Map<String, String> formsFor(List<Pending> group, boolean keepResults, Coalescing coalescing) {
        Map<String, String> forms = new HashMap<>();
        String previous = null;
        for (Pending p : group) {
            if (!(p.request() instanceof CypherRequest)) {
                continue; // templates run apart: they do not separate raw requests
            }
            String statement = coalescible(p, keepResults);
            if (statement != null && statement.equals(previous) && !forms.containsKey(statement)) {
                coalescing.form(statement).ifPresent(f -> forms.put(statement, f));
            }
            previous = statement;
        }
        return forms;
    }

    /** The rows sorted (stably) by the template's lock-order fields, or as they are when that would reorder a key. */
    static List<Map<String, Object>> lockOrdered(Template t, List<Map<String, Object>> rows) {
        if (t.lockOrder().isEmpty() || rows.size() < 2) {
            return rows;
        }
        // each row sorts by the lock values of its key's first row: a key's rows keep their order among themselves
        List<List<Object>> sortBy = new ArrayList<>(rows.size());
        Map<List<Object>, List<Object>> lockOfKey = t.key().isEmpty() ? null : new HashMap<>();
        for (Map<String, Object> row : rows) {
            List<Object> lock = values(row, t.lockOrder());
            sortBy.add(lockOfKey == null ? lock : lockOfKey.computeIfAbsent(values(row, t.key()), k -> lock));
        }
        Integer[] order = new Integer[rows.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> compareLists(sortBy.get(a), sortBy.get(b))); // stable (TimSort)
        List<Map<String, Object>> sorted = new ArrayList<>(rows.size());
        for (int i : order) {
            sorted.add(rows.get(i));
        }
        return sorted;
    }

    private static List<Object> values(Map<String, Object> row, List<String> fields) {
        List<Object> v = new ArrayList<>(fields.size());
        for (String f : fields) {
            v.add(row.get(f));
        }
        return v;
    }

    /**
     * A total order over the values rows carry (JSON's, and the {@code Integer}s a Java caller may put in): null,
     * then booleans, numbers, strings, lists, maps, then anything else by class name. Numbers compare by exact
     * value whatever their types: a long is not rounded to a double to meet one (2^53 + 1 as a long is above
     * 2^53 as a double, which equals 2^53 as a long), -0.0 equals 0, NaN comes after every other number. Lists
     * compare element by element, a prefix first; maps by their entries in key order. Transitive, so a sort
     * by it is one global order every transaction agrees on.
     */
    static int compare(Object a, Object b) {
        if (a == b) {
            return 0;
        }
        int byKind = Integer.compare(kind(a), kind(b));
        if (byKind != 0) {
            return byKind;
        }
        return switch (a) {
            case Boolean x -> Boolean.compare(x, (Boolean) b);
            case Number x -> compareNumbers(x, (Number) b);
            case String x -> x.compareTo((String) b);
            case List<?> x -> compareLists(x, (List<?>) b);
            case Map<?, ?> x -> compareMaps(x, (Map<?, ?>) b);
            default -> compareOthers(a, b);
        };
    }

    private static int kind(Object v) {
        return switch (v) {
            case null -> 0;
            case Boolean x -> 1;
            case Number x when isIntegral(x) || isFloating(x) || isBig(x) -> 2;
            case String x -> 3;
            case List<?> x -> 4;
            case Map<?, ?> x -> 5;
            default -> 6;
        };
    }

    private static boolean isIntegral(Number n) {
        return n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte;
    }

    private static boolean isFloating(Number n) {
        return n instanceof Double || n instanceof Float;
    }

    private static boolean isBig(Number n) {
        return n instanceof BigInteger || n instanceof BigDecimal;
    }

    /** By exact value; without allocation for longs and doubles, the types JSON decodes to. */
    private static int compareNumbers(Number a, Number b) {
        if (isIntegral(a) && isIntegral(b)) {
            return Long.compare(a.longValue(), b.longValue());
        }
        if (isFloating(a) && isFloating(b)) {
            return compareDoubles(a.doubleValue(), b.doubleValue());
        }
        if (isIntegral(a) && isFloating(b)) {
            return compareLongDouble(a.longValue(), b.doubleValue());
        }
        if (isFloating(a) && isIntegral(b)) {
            return -compareLongDouble(b.longValue(), a.doubleValue());
        }
        return compareBig(a, b);
    }

    /** -0.0 equals 0.0 (as it equals the long 0); NaN after everything. */
    private static int compareDoubles(double x, double y) {
        if (x < y) {
            return -1;
        }
        if (x > y) {
            return 1;
        }
        return Boolean.compare(Double.isNaN(x), Double.isNaN(y)); // equal, or at least one NaN
    }

    private static int compareLongDouble(long l, double d) {
        if (Double.isNaN(d) || d >= 0x1p63) {
            return -1; // NaN, +Infinity and doubles from 2^63 up are above every long
        }
        if (d < -0x1p63) {
            return 1;
        }
        long t = (long) d; // d's integer part, exactly: |d| <= 2^63 here
        if (l != t) {
            return Long.compare(l, t);
        }
        double whole = t; // exact: an integer part of a double is a double
        return d > whole ? -1 : d < whole ? 1 : 0;
    }

    /** A BigInteger or BigDecimal on one side: exact decimals, with the infinities and NaN of doubles around them. */
    private static int compareBig(Number a, Number b) {
        int sa = special(a);
        int sb = special(b);
        if (sa != 0 || sb != 0) {
            return Integer.compare(sa, sb);
        }
        return decimal(a).compareTo(decimal(b));
    }

    /** -1 for -Infinity, 1 for +Infinity, 2 for NaN, 0 for a finite number. */
    private static int special(Number n) {
        if (!isFloating(n)) {
            return 0;
        }
        double d = n.doubleValue();
        return Double.isNaN(d) ? 2 : d == Double.POSITIVE_INFINITY ? 1 : d == Double.NEGATIVE_INFINITY ? -1 : 0;
    }

    private static BigDecimal decimal(Number n) {
        return switch (n) {
            case BigDecimal x -> x;
            case BigInteger x -> new BigDecimal(x);
            default -> isFloating(n) ? new BigDecimal(n.doubleValue()) : BigDecimal.valueOf(n.longValue());
        };
    }

    private static int compareLists(List<?> a, List<?> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = compare(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    private static int compareMaps(Map<?, ?> a, Map<?, ?> b) {
        return compareLists(entries(a), entries(b));
    }

    /** A map as [k1, v1, k2, v2, ...] in key order. */
    private static List<Object> entries(Map<?, ?> m) {
        List<Object> keys = new ArrayList<>(m.keySet());
        keys.sort(Execution::compare);
        List<Object> out = new ArrayList<>(2 * keys.size());
        for (Object k : keys) {
            out.add(k);
            out.add(m.get(k));
        }
        return out;
    }

    /** Values JSON cannot carry: by class name, then naturally if comparable, else by hash (a total preorder). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static int compareOthers(Object a, Object b) {
        int byClass = a.getClass().getName().compareTo(b.getClass().getName());
        if (byClass != 0) {
            return byClass;
        }
        if (a instanceof Comparable c) {
            return c.compareTo(b);
        }
        return Integer.compare(a.hashCode(), b.hashCode());
    }
}
