package io.sluice.fastpath;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.bench.Scenario;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.support.TestServer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryStatistics;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;

/**
 * Issue 14, item 5: does a kernel-API path ({@link KernelShapes}) do the bench's template work clearly faster than
 * {@code UNWIND $rows AS row <template>} through Cypher? Not part of the suite (tag {@code soak}). For each of
 * {@code visited} and {@code create-indexed}: the same rows (the scenario's own row source, seed 42), applied in
 * transactions of {@code batch} rows to a fresh database each time, (a) through Cypher and (b) through the kernel,
 * a short warm-up of both first, then a, b, a, b... Prints rows/s and the calling thread's CPU per row of each
 * run, the ratio b/a of the sums, and checks that both leave the same graph and report the same counters.
 * The figures and the decision (no fast path: about 1.2x on {@code visited}, 1.2x to 1.4x on
 * {@code create-indexed}, under the 1.5x bar) are in docs/BENCHMARKS.md, "Kernel fast path (issue 14)".
 *
 * <pre>
 *   ./sluice test -Dtest=FastPathSpike -DexcludedGroups= -Dspike.rows=200000 -Dspike.rounds=3
 * </pre>
 */
@Tag("soak")
@Timeout(value = 30, unit = java.util.concurrent.TimeUnit.MINUTES)
class FastPathSpike {
    private static final int ROWS = Integer.getInteger("spike.rows", 200_000);
    private static final int BATCH = Integer.getInteger("spike.batch", 1000);
    private static final int WARM = Integer.getInteger("spike.warm", 50_000);
    private static final int ROUNDS = Integer.getInteger("spike.rounds", 3);
    private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

    private static final java.util.Set<String> PLANNED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    enum Way { CYPHER, KERNEL }

    record Run(Way way, int rows, long wallNanos, long cpuNanos, String counters, String graph) {
        double rowsPerSecond() {
            return rows * 1e9 / wallNanos;
        }

        double cpuMicrosPerRow() {
            return cpuNanos / 1e3 / rows;
        }
    }

    @Test
    void visited() throws Exception {
        compare(Scenario.named("visited"));
    }

    @Test
    void createIndexed() throws Exception {
        compare(Scenario.named("create-indexed"));
    }

    public static void main(String[] args) throws Exception {
        for (String name : args.length > 0 ? args : new String[] {"visited", "create-indexed"}) {
            compare(Scenario.named(name));
        }
    }

    static void compare(Scenario scenario) throws Exception {
        List<Map<String, Object>> rows = rows(scenario, ROWS);
        List<Map<String, Object>> warm = rows.subList(0, Math.min(rows.size(), WARM));
        run(scenario, Way.CYPHER, warm);
        run(scenario, Way.KERNEL, warm);
        List<Run> runs = new ArrayList<>();
        for (int r = 0; r < ROUNDS; r++) {
            for (Way way : Way.values()) {
                Run run = run(scenario, way, rows);
                runs.add(run);
                System.out.printf(Locale.ROOT, "[spike] %s %s run %d: %.0f rows/s, %.2f us CPU/row; %s; %s%n",
                        scenario.name(), way, r + 1, run.rowsPerSecond(), run.cpuMicrosPerRow(), run.counters(),
                        run.graph());
            }
        }
        long[] wall = new long[2];
        long[] cpu = new long[2];
        for (Run run : runs) {
            wall[run.way().ordinal()] += run.wallNanos();
            cpu[run.way().ordinal()] += run.cpuNanos();
        }
        System.out.printf(Locale.ROOT, "[spike] %s: %d rows x %d rounds, batches of %d: cypher %.0f rows/s %.2f us"
                        + " CPU/row, kernel %.0f rows/s %.2f us CPU/row; kernel/cypher throughput %.2fx, CPU %.2fx%n",
                scenario.name(), ROWS, ROUNDS, BATCH, ROWS * ROUNDS * 1e9 / wall[0], cpu[0] / 1e3 / ROWS / ROUNDS,
                ROWS * ROUNDS * 1e9 / wall[1], cpu[1] / 1e3 / ROWS / ROUNDS, (double) wall[0] / wall[1],
                (double) cpu[0] / cpu[1]);
        Run cypher = runs.get(0);
        for (Run run : runs) {
            assertThat(run.graph()).as("graph of %s", run.way()).isEqualTo(cypher.graph());
            assertThat(run.counters()).as("counters of %s", run.way()).isEqualTo(cypher.counters());
        }
    }

    /** The first {@code n} rows of stream 0 of the scenario's workload, seed 42: every run applies the same. */
    static List<Map<String, Object>> rows(Scenario scenario, int n) {
        Scenario.RowSource source = scenario.workload(42).stream(0);
        List<Map<String, Object>> rows = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            rows.add(source.next());
        }
        return rows;
    }

    static Run run(Scenario scenario, Way way, List<Map<String, Object>> rows) throws Exception {
        Path dir = Files.createTempDirectory("sluice-spike-");
        try (EmbeddedNeo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir, null, 512L << 20, 0, "neo4j"))) {
            GraphDatabaseService db = neo4j.database();
            for (String s : scenario.schema()) {
                db.executeTransactionally(s);
            }
            db.executeTransactionally("CALL db.awaitIndexes(300)");
            if (way == Way.CYPHER && PLANNED.add(scenario.name())) {
                try (Transaction tx = db.beginTx(); Result r = tx.execute("EXPLAIN UNWIND $rows AS row " + scenario.cypher())) {
                    System.out.println("[spike] " + scenario.name() + " plan:\n" + r.getExecutionPlanDescription());
                }
            }
            String unwind = "UNWIND $rows AS row " + scenario.cypher();
            long[] stats = new long[4];
            KernelShapes.Counts counts = new KernelShapes.Counts();
            System.gc();
            long cpu0 = CPU.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            for (int from = 0; from < rows.size(); from += BATCH) {
                List<Map<String, Object>> batch = rows.subList(from, Math.min(rows.size(), from + BATCH));
                try (Transaction tx = db.beginTx()) {
                    if (way == Way.CYPHER) {
                        try (Result r = tx.execute(unwind, Map.of("rows", batch))) {
                            r.accept(row -> true);
                            add(stats, r.getQueryStatistics());
                        }
                    } else {
                        var ktx = ((InternalTransaction) tx).kernelTransaction();
                        if (scenario.name().equals("visited")) {
                            KernelShapes.visited(ktx, batch, counts);
                        } else {
                            KernelShapes.createIndexed(ktx, batch, counts);
                        }
                    }
                    tx.commit();
                }
            }
            long wall = System.nanoTime() - t0;
            long cpu = CPU.getCurrentThreadCpuTime() - cpu0;
            String counters = way == Way.CYPHER
                    ? "nodes=" + stats[0] + " rels=" + stats[1] + " labels=" + stats[2] + " props=" + stats[3]
                    : counts.toString();
            return new Run(way, rows.size(), wall, cpu, counters, fingerprint(db, scenario));
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }

    private static void add(long[] stats, QueryStatistics s) {
        stats[0] += s.getNodesCreated();
        stats[1] += s.getRelationshipsCreated();
        stats[2] += s.getLabelsAdded();
        stats[3] += s.getPropertiesSet();
    }

    /** Counts of nodes, relationships, properties and labels, and an order-free checksum of what was written. */
    static String fingerprint(GraphDatabaseService db, Scenario scenario) {
        String counts = db.executeTransactionally("MATCH (n) RETURN count(n) AS n, sum(size(keys(n))) AS p,"
                + " sum(size(labels(n))) AS l, COUNT { ()-->() } AS r", Map.of(), r -> r.next().toString());
        String edges = scenario.name().equals("visited")
                ? "MATCH (u:User)-[r:VISITED]->(s:Site) RETURN u.id AS a, s.url AS b, size(keys(r)) AS c"
                : "MATCH (p:Person) RETURN p.id AS a, '' AS b, size(labels(p)) AS c";
        long sum = db.executeTransactionally(edges, Map.of(), r -> {
            long h = 0;
            while (r.hasNext()) {
                Map<String, Object> row = r.next();
                h += mix(Arrays.hashCode(new Object[] {row.get("a"), row.get("b"), row.get("c")}));
            }
            return h;
        });
        return counts + " checksum=" + Long.toHexString(sum);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }
}
