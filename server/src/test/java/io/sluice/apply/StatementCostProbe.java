package io.sluice.apply;

import io.sluice.cypher.Coalescing;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.sink.Sink;
import io.sluice.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Not a test: what a transaction of the bench's {@code visited} rows costs in the embedded database alone (no
 * HTTP, no other thread), written three ways, batch by batch in turn so that all three see the same machine and
 * the same growing graph: the template's {@code UNWIND $rows AS row ...}, the coalesced form of the raw statement
 * ({@link Coalescing}), and the raw statement run once per row (as sent, results materialised as sync mode
 * does). Prints microseconds per row, commit included, every 3000 transactions and at the end.
 *
 * <pre>
 *   mvn -o -q test-compile
 *   (in server/) java -cp "target/test-classes:target/classes:target/lib/*:../journal/target/test-classes" io.sluice.apply.StatementCostProbe 32 90
 * </pre>
 * (rows per transaction, seconds; add the launcher's {@code --add-opens} flags on a recent JDK).
 */
public final class StatementCostProbe {
    private StatementCostProbe() {}

    public static void main(String[] args) throws Exception {
        int rowsPerTx = args.length > 0 ? Integer.parseInt(args[0]) : 32;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 60;
        Path dir = Files.createTempDirectory("sluice-probe-");
        try (EmbeddedNeo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir, null, 512L << 20, 0, "neo4j"))) {
            neo4j.database().executeTransactionally(
                    "CREATE CONSTRAINT user_id IF NOT EXISTS FOR (u:User) REQUIRE u.id IS UNIQUE");
            neo4j.database().executeTransactionally(
                    "CREATE CONSTRAINT site_url IF NOT EXISTS FOR (s:Site) REQUIRE s.url IS UNIQUE");
            Sink sink = neo4j.sink();
            String raw = "MERGE (u:User {id: $user}) MERGE (s:Site {url: $url}) MERGE (u)-[:VISITED]->(s)";
            String template = "UNWIND $rows AS row "
                    + "MERGE (u:User {id: row.user}) MERGE (s:Site {url: row.url}) MERGE (u)-[:VISITED]->(s)";
            String form = new Coalescing(sink, 10).form(raw).orElseThrow();
            String[] names = {"template", "coalesced", "as sent"};
            long[] nanos = new long[3];
            long[] rows = new long[3];
            SplittableRandom random = new SplittableRandom(42);
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            for (int n = 0; System.nanoTime() < end; n++) {
                int way = n % 3;
                List<Map<String, Object>> batch = new ArrayList<>(rowsPerTx);
                for (int i = 0; i < rowsPerTx; i++) {
                    batch.add(Map.of("user", (long) random.nextInt(100_000), "url", "https://site/" + random.nextInt(10_000)));
                }
                long t0 = System.nanoTime();
                sink.inTransaction(tx -> {
                    switch (way) {
                        case 0 -> tx.runDiscarding(template, Map.of("rows", batch));
                        case 1 -> tx.runDiscarding(form, Map.of(Coalescing.ROWS, batch));
                        default -> {
                            for (Map<String, Object> params : batch) {
                                tx.run(raw, params);
                            }
                        }
                    }
                    return null;
                });
                nanos[way] += System.nanoTime() - t0;
                rows[way] += rowsPerTx;
                if (n % 3000 == 2999) {
                    print(names, nanos, rows);
                }
            }
            print(names, nanos, rows);
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }

    private static void print(String[] names, long[] nanos, long[] rows) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < names.length; i++) {
            sb.append(String.format(Locale.ROOT, "%s %.1f us/row   ", names[i], nanos[i] / 1e3 / Math.max(1, rows[i])));
        }
        System.out.println(sb.toString().strip());
    }
}
