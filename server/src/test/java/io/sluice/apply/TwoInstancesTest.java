package io.sluice.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two sluice instances group-commit sync writes against one Neo4j, each user's writes through one instance
 * (key-affinity routing, as docs/SCALING.md, "Sync mode in a fleet", says to route them): with lock ordering no
 * deadlock retry in either instance, without it some (the order is what keeps them apart, across instances as
 * across one instance's appliers); every write applied exactly once and each user's last write last.
 *
 * <p>One instance embeds the Neo4j and applies in-process, the other reaches it over Bolt: two writers with
 * their own batches, transactions and lock order, as on two machines. The sites are dense from the start (as in
 * {@link ConcurrentAppliersTest}, whose note says why). A client waits for each answer before its next request,
 * so a batch never holds one user twice with different sites (such a batch keeps arrival order: see
 * {@link Execution}). Routing a user's writes through both instances would break the order across them: the
 * user's lock is then taken at that row's place in the site order of two batches (docs/BENCHMARKS.md, "Sync mode
 * across instances").
 *
 * <p>In {@code ./sluice soak}: 31 s (lock order off) and 61 s (on) here with the load average at 20; measured
 * then, 0 deadlock retries with lock ordering and 694 without.
 */
class TwoInstancesTest {
    static final int CLIENTS = 32;
    static final int USERS_PER_CLIENT = 10;
    static final int REQUESTS = 25;
    static final int SITES = 20;

    @ParameterizedTest(name = "lock_order={0}")
    @Tag("soak")
    @Timeout(180) // two servers of its own; 32 clients, 800 requests of 10 rows
    @ValueSource(booleans = {true, false})
    void lockOrderingKeepsTwoInstancesFreeOfDeadlocks(boolean lockOrder) throws Exception {
        String config = """
                templates:
                  visited:
                    cypher: "MERGE (u:User {id: row.user}) MERGE (s:Site {url: row.url}) MERGE (u)-[v:VISITED]->(s) ON CREATE SET v.n = 1 ON MATCH SET v.n = v.n + 1 SET u.last = row.seq"
                    key: [user]
                schema:
                  - CREATE CONSTRAINT user_id IF NOT EXISTS FOR (u:User) REQUIRE u.id IS UNIQUE
                  - CREATE CONSTRAINT site_url IF NOT EXISTS FOR (s:Site) REQUIRE s.url IS UNIQUE
                apply: {appliers: 4, lock_order: %s}
                batch: {max_wait: 2ms}
                retry: {max_attempts: 1000, initial_backoff: 1ms, max_backoff: 20ms}
                """.formatted(lockOrder);
        try (TestServer a = TestServer.start(config, true);
                TestServer b = TestServer.startRemote(config, "bolt://127.0.0.1:" + a.bolt.port(), "neo4j",
                        TestServer.PASSWORD)) {
            assertThat(a.post("/db/neo4j/tx/commit", """
                    {"statements": [{"statement": "UNWIND range(0, $sites - 1) AS i MERGE (s:Site {url: 's' + i}) \
                    WITH s UNWIND range(1, 60) AS j CREATE (:Archived)-[:VISITED]->(s)", "parameters": {"sites": %d}}]}
                    """.formatted(SITES)).body()).as("the hub sites").contains("\"errors\":[]");
            List<TestServer> instances = List.of(a, b);
            AtomicInteger errors = new AtomicInteger();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> fs = new ArrayList<>();
                for (int c = 0; c < CLIENTS; c++) {
                    int client = c;
                    TestServer instance = instances.get(client % 2); // the client's users are its own
                    fs.add(pool.submit(() -> {
                        Random random = new Random(client);
                        for (int seq = 0; seq < REQUESTS; seq++) {
                            StringBuilder body = new StringBuilder("[");
                            for (int u = 0; u < USERS_PER_CLIENT; u++) {
                                body.append(u == 0 ? "" : ",").append("{\"user\":").append(client * 100 + u)
                                        .append(",\"url\":\"s").append(random.nextInt(SITES)).append("\",\"seq\":")
                                        .append(seq).append('}');
                            }
                            if (instance.post("/db/neo4j/write/visited", body.append(']').toString()).statusCode() != 200) {
                                errors.incrementAndGet();
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : fs) {
                    f.get(120, TimeUnit.SECONDS);
                }
            }
            assertThat(errors.get()).as("client-visible errors").isZero();
            assertThat(a.count("MATCH (:User)-[v:VISITED]->() RETURN sum(v.n)")).as("every write applied once")
                    .isEqualTo((long) CLIENTS * REQUESTS * USERS_PER_CLIENT);
            assertThat(a.count("MATCH (u:User) WHERE u.last <> " + (REQUESTS - 1) + " RETURN count(u)"))
                    .as("every user's last write is its last request's").isZero();
            double deadlocks = deadlockRetries(a) + deadlockRetries(b);
            System.out.printf("two instances, lock_order=%s: %.0f deadlock retries (%.0f + %.0f)%n", lockOrder,
                    deadlocks, deadlockRetries(a), deadlockRetries(b));
            if (lockOrder) {
                assertThat(deadlocks).as("deadlock retries with lock ordering").isZero();
            } else {
                assertThat(deadlocks).as("deadlock retries without lock ordering").isPositive();
            }
        }
    }

    private static double deadlockRetries(TestServer s) {
        return s.get("/metrics").body().lines()
                .filter(l -> l.startsWith("sluice_transient_retries_total") && l.contains("DeadlockDetected"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
