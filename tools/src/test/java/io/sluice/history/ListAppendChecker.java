package io.sluice.history;

import io.sluice.history.History.Op;
import io.sluice.history.History.Status;
import io.sluice.history.History.Txn;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Elle's list-append checker (Kingsbury and Alvaro, "Elle: Inferring Isolation Anomalies from Experimental
 * Observations", VLDB 2020), for serializability.
 *
 * <p>The final state of a list is the total order of the appends to it (the version order). From it and the
 * committed transactions' reads it checks the anomalies that need no graph (a read that is not a prefix of the final
 * list, aborted reads G1a, intermediate reads G1b, duplicate elements, lost appends, internal inconsistency), then
 * builds the dependency graph between committed transactions (and the indeterminate ones whose appends are visible):
 * ww (T1 appended the element before T2's on the same key), wr (T2 read a list whose last element T1 appended), rw
 * (T1 read a list without the next element, which T2 appended: an anti-dependency), and searches it for cycles: G0
 * (ww only), G1c (ww and wr), G-single (exactly one rw), G2 (more). A serializable history has none of them.
 */
public final class ListAppendChecker {
    private ListAppendChecker() {}

    public enum Dep { WW, WR, RW }

    /** A dependency {@code from -dep-> to}, with the key and the values that show it. */
    public record Edge(Txn from, Dep dep, Txn to, int key, String why) {
        @Override
        public String toString() {
            return from.name() + " -" + dep.name().toLowerCase() + "-> " + to.name() + "   (k" + key + ": " + why + ")";
        }
    }

    /** One anomaly: its kind (G0, G1c, G-single, G2, G1a, G1b, ...), what was seen, the transactions, the cycle. */
    public record Anomaly(String kind, String explanation, List<Txn> txns, List<Edge> cycle) {
        public String describe() {
            StringBuilder b = new StringBuilder(kind).append(": ").append(explanation).append('\n');
            if (!cycle.isEmpty()) {
                b.append("  cycle:\n");
                cycle.forEach(e -> b.append("    ").append(e).append('\n'));
            }
            b.append("  transactions:\n");
            txns.forEach(t -> b.append("    ").append(t).append('\n'));
            return b.toString();
        }
    }

    public record Result(History history, Model model, List<Anomaly> anomalies, int ok, int failed, int info, int infoVisible,
                         int edges) {
        public boolean valid() {
            return anomalies.isEmpty();
        }

        public String summary() {
            return "seed " + history.seed() + ", checked for " + model + ": " + ok + " committed, " + failed + " failed, " + info
                    + " indeterminate (" + infoVisible + " of them visible) attempts; " + edges + " dependency edges; "
                    + (valid() ? "no anomaly" : anomalies.size() + " anomalies: "
                    + anomalies.stream().map(Anomaly::kind).collect(Collectors.groupingBy(k -> k, LinkedHashMap::new,
                    Collectors.counting())));
        }

        /** The summary, then the anomalies (at most {@code max}) concretely, then the seed again. */
        public String report(int max) {
            StringBuilder b = new StringBuilder(summary()).append('\n');
            anomalies.stream().limit(max).forEach(a -> b.append(a.describe()));
            if (anomalies.size() > max) {
                b.append("... and ").append(anomalies.size() - max).append(" more\n");
            }
            if (!valid()) {
                b.append("replay the workload with -Dsluice.history.seed=").append(history.seed()).append('\n');
            }
            return b.toString();
        }
    }

    /** Cap on the rw edges tried as the single anti-dependency of a cycle, per strongly connected component. */
    private static final int G_SINGLE_TRIES = 2000;

    /**
     * What to hold the history to: serializability (every cycle, and repeatable reads inside a transaction), or
     * read committed (Adya's PL-2: G0, G1a, G1b, G1c; anti-dependency cycles and non-repeatable reads allowed), which
     * is what Neo4j gives reads that take no lock.
     */
    public enum Model { SERIALIZABLE, READ_COMMITTED }

    public static Result check(History h) {
        return check(h, Model.SERIALIZABLE);
    }

    public static Result check(History h, Model model) {
        List<Anomaly> anomalies = new ArrayList<>();
        Map<Long, Txn> writer = new HashMap<>();
        Map<Long, Integer> writerKey = new HashMap<>();
        Map<Txn, Map<Integer, List<Long>>> appends = new HashMap<>();
        int ok = 0, failed = 0, info = 0;
        for (Txn t : h.txns()) {
            switch (t.status()) {
                case OK -> ok++;
                case FAIL -> failed++;
                case INFO -> info++;
            }
            for (Op op : t.ops()) {
                if (op.append()) {
                    Txn before = writer.put(op.value(), t);
                    writerKey.put(op.value(), op.key());
                    if (before != null && before != t) {
                        anomalies.add(new Anomaly("duplicate-append", "value " + op.value()
                                + " appended twice (the workload's values must be unique)", List.of(before, t),
                                List.of()));
                    }
                    appends.computeIfAbsent(t, x -> new HashMap<>()).computeIfAbsent(op.key(), x -> new ArrayList<>())
                            .add(op.value());
                }
            }
        }

        // the final state: the version order of each key
        Set<Txn> infoVisible = new LinkedHashSet<>();
        Map<Integer, Map<Long, Integer>> position = new HashMap<>();
        h.finalState().forEach((key, list) -> {
            Map<Long, Integer> pos = new HashMap<>();
            position.put(key, pos);
            for (int i = 0; i < list.size(); i++) {
                long v = list.get(i);
                if (pos.putIfAbsent(v, i) != null) {
                    anomalies.add(new Anomaly("duplicate-elements", "final k" + key + " = " + list + " holds " + v
                            + " twice", writer.containsKey(v) ? List.of(writer.get(v)) : List.of(), List.of()));
                }
                Txn w = writer.get(v);
                if (w == null || writerKey.get(v) != key) {
                    anomalies.add(new Anomaly("garbage", "final k" + key + " holds " + v
                            + ", which no transaction appended to k" + key, w == null ? List.of() : List.of(w),
                            List.of()));
                } else if (w.status() == Status.FAIL) {
                    anomalies.add(new Anomaly("G1a", "aborted write visible: final k" + key + " holds " + v + ", appended by "
                            + w.name() + ", which failed", List.of(w), List.of()));
                } else if (w.status() == Status.INFO) {
                    infoVisible.add(w);
                }
            }
        });
        // a transaction's own appends to a key in its order; committed appends not lost
        appends.forEach((t, byKey) -> byKey.forEach((key, vs) -> {
            Map<Long, Integer> pos = position.getOrDefault(key, Map.of());
            int last = -1;
            for (long v : vs) {
                Integer p = pos.get(v);
                if (p == null) {
                    if (t.status() == Status.OK) {
                        anomalies.add(new Anomaly("lost-append", t.name() + " committed append(k" + key + ", " + v
                                + ") but the final k" + key + " = " + h.finalState().getOrDefault(key, List.of())
                                + " lacks it", List.of(t), List.of()));
                    }
                } else {
                    if (p < last) {
                        anomalies.add(new Anomaly("append-order", t.name() + "'s appends to k" + key + " " + vs
                                + " appear out of order in the final list", List.of(t), List.of()));
                    }
                    last = p;
                }
            }
        }));

        // the committed transactions' reads
        record Read(Txn t, int key, List<Long> external) {}
        List<Read> reads = new ArrayList<>();
        for (Txn t : h.txns()) {
            if (t.status() != Status.OK) {
                continue;
            }
            Map<Integer, List<Long>> known = new HashMap<>();
            Map<Integer, List<Long>> own = new HashMap<>();
            for (Op op : t.ops()) {
                if (op.append()) {
                    own.computeIfAbsent(op.key(), x -> new ArrayList<>()).add(op.value());
                    List<Long> k = known.get(op.key());
                    if (k != null) {
                        k.add(op.value());
                    }
                    continue;
                }
                int key = op.key();
                List<Long> r = op.read();
                List<Long> mine = own.getOrDefault(key, List.of());
                List<Long> expected = known.get(key);
                if (model == Model.READ_COMMITTED) {
                    expected = null; // others' commits may show between two reads; its own appends stay its last
                }
                if (expected != null ? !r.equals(expected)
                        : !(r.size() >= mine.size() && r.subList(r.size() - mine.size(), r.size()).equals(mine))) {
                    anomalies.add(new Anomaly("internal", t.name() + " read k" + key + " = " + r + " but its own earlier "
                            + "operations imply " + (expected != null ? expected : "a list ending with " + mine),
                            List.of(t), List.of()));
                }
                known.put(key, new ArrayList<>(r));
                if (new HashSet<>(r).size() != r.size()) {
                    anomalies.add(new Anomaly("duplicate-elements", t.name() + " read k" + key + " = " + r
                            + " with an element twice", List.of(t), List.of()));
                }
                int n = r.size();
                while (n > 0 && writer.get(r.get(n - 1)) == t) {
                    n--;
                }
                List<Long> external = r.subList(0, n);
                for (long v : r) {
                    Txn w = writer.get(v);
                    if (w == null || writerKey.get(v) != key) {
                        anomalies.add(new Anomaly("garbage", t.name() + " read k" + key + " = " + r + " with " + v
                                + ", which no transaction appended to k" + key, List.of(t), List.of()));
                    } else if (w.status() == Status.FAIL) {
                        anomalies.add(new Anomaly("G1a", "aborted read: " + t.name() + " read k" + key + " = " + r
                                + " with " + v + ", appended by " + w.name() + ", which failed", List.of(t, w),
                                List.of()));
                    } else if (w.status() == Status.INFO && w != t) {
                        infoVisible.add(w);
                    }
                }
                if (!external.isEmpty()) {
                    long lastSeen = external.get(external.size() - 1);
                    Txn w = writer.get(lastSeen);
                    if (w != null && w != t && writerKey.get(lastSeen) == key) {
                        List<Long> ws = appends.get(w).get(key);
                        if (ws.get(ws.size() - 1) != lastSeen) {
                            anomalies.add(new Anomaly("G1b", "intermediate read: " + t.name() + " read k" + key + " = "
                                    + r + ", ending with " + lastSeen + ", but " + w.name() + " appended " + ws
                                    + " to k" + key + ": a state it never committed", List.of(t, w), List.of()));
                        }
                    }
                }
                List<Long> fin = h.finalState().getOrDefault(key, List.of());
                if (r.size() > fin.size() || !fin.subList(0, r.size()).equals(r)) {
                    List<Txn> involved = new ArrayList<>(List.of(t));
                    r.stream().map(writer::get).filter(w -> w != null && !involved.contains(w)).forEach(involved::add);
                    anomalies.add(new Anomaly("incompatible-order", t.name() + " read k" + key + " = " + r
                            + ", not a prefix of the final k" + key + " = " + fin, involved, List.of()));
                } else {
                    reads.add(new Read(t, key, external));
                }
            }
        }

        // the dependency graph
        Set<Txn> nodes = new LinkedHashSet<>();
        h.txns().stream().filter(t -> t.status() == Status.OK).forEach(nodes::add);
        nodes.addAll(infoVisible);
        Graph g = new Graph();
        h.finalState().forEach((key, list) -> {
            for (int i = 0; i + 1 < list.size(); i++) {
                Txn a = writer.get(list.get(i));
                Txn b = writer.get(list.get(i + 1));
                if (a != null && b != null && a != b && nodes.contains(a) && nodes.contains(b)) {
                    g.add(new Edge(a, Dep.WW, b, key, list.get(i) + " then " + list.get(i + 1)));
                }
            }
        });
        for (Read rd : reads) {
            List<Long> fin = h.finalState().getOrDefault(rd.key(), List.of());
            int n = rd.external().size();
            if (n > 0) {
                Txn w = writer.get(rd.external().get(n - 1));
                if (w != null && w != rd.t() && nodes.contains(w)) {
                    g.add(new Edge(w, Dep.WR, rd.t(), rd.key(), rd.t().name() + " read " + rd.external()
                            + ", whose last element " + w.name() + " appended"));
                }
            }
            if (fin.size() > n) {
                Txn w = writer.get(fin.get(n));
                if (w != null && w != rd.t() && nodes.contains(w)) {
                    g.add(new Edge(rd.t(), Dep.RW, w, rd.key(), rd.t().name() + " read " + rd.external()
                            + ", without the next element " + fin.get(n) + ", which " + w.name() + " appended"));
                }
            }
        }
        for (Set<Txn> scc : g.components(nodes, EnumSet.allOf(Dep.class))) {
            if (model == Model.SERIALIZABLE) {
                anomalies.add(g.classify(scc));
            } else {
                for (Set<Txn> c : g.components(scc, EnumSet.of(Dep.WW, Dep.WR))) {
                    anomalies.add(g.classify(c));
                }
            }
        }
        return new Result(h, model, anomalies, ok, failed, info, infoVisible.size(), g.edgeCount);
    }

    /** The dependency graph: one edge kept per (from, to, dep), the first seen. */
    private static final class Graph {
        final Map<Txn, Map<Txn, Map<Dep, Edge>>> out = new HashMap<>();
        int edgeCount;

        void add(Edge e) {
            if (out.computeIfAbsent(e.from(), x -> new LinkedHashMap<>()).computeIfAbsent(e.to(),
                    x -> new LinkedHashMap<>()).putIfAbsent(e.dep(), e) == null) {
                edgeCount++;
            }
        }

        List<Edge> edges(Txn from, Set<Txn> within, Set<Dep> allowed) {
            List<Edge> es = new ArrayList<>();
            out.getOrDefault(from, Map.of()).forEach((to, byDep) -> {
                if (within.contains(to)) {
                    byDep.forEach((d, e) -> {
                        if (allowed.contains(d)) {
                            es.add(e);
                        }
                    });
                }
            });
            return es;
        }

        /** The strongly connected components of more than one node (Tarjan, iterative). */
        List<Set<Txn>> components(Set<Txn> nodes, Set<Dep> allowed) {
            Map<Txn, Integer> index = new HashMap<>();
            Map<Txn, Integer> low = new HashMap<>();
            ArrayDeque<Txn> stack = new ArrayDeque<>();
            Set<Txn> onStack = new HashSet<>();
            List<Set<Txn>> result = new ArrayList<>();
            int counter = 0;
            for (Txn root : nodes) {
                if (index.containsKey(root)) {
                    continue;
                }
                ArrayDeque<Object[]> work = new ArrayDeque<>(); // {node, its edges, next edge index}
                index.put(root, counter);
                low.put(root, counter++);
                stack.push(root);
                onStack.add(root);
                work.push(new Object[] {root, edges(root, nodes, allowed), 0});
                while (!work.isEmpty()) {
                    Object[] f = work.peek();
                    Txn v = (Txn) f[0];
                    @SuppressWarnings("unchecked")
                    List<Edge> es = (List<Edge>) f[1];
                    int i = (int) f[2];
                    if (i < es.size()) {
                        f[2] = i + 1;
                        Txn w = es.get(i).to();
                        if (!index.containsKey(w)) {
                            index.put(w, counter);
                            low.put(w, counter++);
                            stack.push(w);
                            onStack.add(w);
                            work.push(new Object[] {w, edges(w, nodes, allowed), 0});
                        } else if (onStack.contains(w)) {
                            low.put(v, Math.min(low.get(v), index.get(w)));
                        }
                    } else {
                        work.pop();
                        if (!work.isEmpty()) {
                            Txn parent = (Txn) work.peek()[0];
                            low.put(parent, Math.min(low.get(parent), low.get(v)));
                        }
                        if (low.get(v).equals(index.get(v))) {
                            Set<Txn> comp = new LinkedHashSet<>();
                            Txn w;
                            do {
                                w = stack.pop();
                                onStack.remove(w);
                                comp.add(w);
                            } while (w != v);
                            if (comp.size() > 1) {
                                result.add(comp);
                            }
                        }
                    }
                }
            }
            return result;
        }

        /** The shortest path {@code from} to {@code to} inside {@code within} over {@code allowed}, or null. */
        List<Edge> path(Txn from, Txn to, Set<Txn> within, Set<Dep> allowed) {
            Map<Txn, Edge> via = new HashMap<>();
            ArrayDeque<Txn> queue = new ArrayDeque<>(List.of(from));
            Set<Txn> seen = new HashSet<>(List.of(from));
            while (!queue.isEmpty()) {
                Txn v = queue.poll();
                if (v == to) {
                    List<Edge> p = new ArrayList<>();
                    for (Txn x = to; x != from; x = via.get(x).from()) {
                        p.addFirst(via.get(x));
                    }
                    return p;
                }
                for (Edge e : edges(v, within, allowed)) {
                    if (seen.add(e.to())) {
                        via.put(e.to(), e);
                        queue.add(e.to());
                    }
                }
            }
            return null;
        }

        /** A cycle through some node of {@code comp} (a strongly connected component over {@code allowed}). */
        List<Edge> cycle(Set<Txn> comp, Set<Dep> allowed) {
            Txn x = comp.iterator().next();
            List<Edge> best = null;
            for (Edge e : edges(x, comp, allowed)) {
                List<Edge> back = path(e.to(), x, comp, allowed);
                if (back != null && (best == null || back.size() + 1 < best.size())) {
                    best = new ArrayList<>(List.of(e));
                    best.addAll(back);
                }
            }
            return best;
        }

        /** The strongest anomaly a strongly connected component holds: G0, then G1c, G-single, G2. */
        Anomaly classify(Set<Txn> scc) {
            EnumSet<Dep> ww = EnumSet.of(Dep.WW);
            EnumSet<Dep> wwr = EnumSet.of(Dep.WW, Dep.WR);
            for (Set<Txn> c : components(scc, ww)) {
                return anomaly("G0", "write cycle: the transactions' appends are interleaved across keys",
                        cycle(c, ww), scc);
            }
            for (Set<Txn> c : components(scc, wwr)) {
                return anomaly("G1c", "circular information flow: each transaction saw the other's writes",
                        cycle(c, wwr), scc);
            }
            int tries = 0;
            for (Txn a : scc) {
                for (Edge rw : edges(a, scc, EnumSet.of(Dep.RW))) {
                    if (tries++ >= G_SINGLE_TRIES) {
                        break;
                    }
                    List<Edge> back = path(rw.to(), a, scc, wwr);
                    if (back != null) {
                        List<Edge> c = new ArrayList<>(List.of(rw));
                        c.addAll(back);
                        return anomaly("G-single", "read skew / lost update: a cycle with a single anti-dependency",
                                c, scc);
                    }
                }
            }
            return anomaly("G2", "anti-dependency cycle (e.g. write skew): a cycle with several rw edges",
                    cycle(scc, EnumSet.allOf(Dep.class)), scc);
        }

        Anomaly anomaly(String kind, String what, List<Edge> cycle, Set<Txn> scc) {
            List<Txn> txns = new ArrayList<>();
            cycle.forEach(e -> {
                if (!txns.contains(e.from())) {
                    txns.add(e.from());
                }
            });
            return new Anomaly(kind, what + " (a cycle of " + cycle.size() + " edges in a strongly connected component"
                    + " of " + scc.size() + " transactions)", txns, cycle);
        }
    }
}
