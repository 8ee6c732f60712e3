package io.sluice.gateway;

import io.sluice.config.HostPort;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.support.Await;
import io.sluice.support.ForwardingSink;
import io.sluice.support.TestServer;
import io.sluice.time.Time;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Warm-up: WARMING (503) while it runs, UP after; on start and on demand; both sinks' ways of reading. */
@Timeout(120)
class WarmupTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String CONFIG = """
            templates:
              hit:
                cypher: "MERGE (k:Hit {id: row.id}) ON CREATE SET k.n = 1 ON MATCH SET k.n = k.n + 1"
                key: [id]
            schema:
              - CREATE CONSTRAINT hit_id IF NOT EXISTS FOR (k:Hit) REQUIRE k.id IS UNIQUE
            """;

    /** One server for the tests that warm on demand (a server start is most of this class's time). */
    static TestServer shared;

    @org.junit.jupiter.api.BeforeAll
    static void start() {
        shared = TestServer.start(CONFIG, false);
    }

    @org.junit.jupiter.api.AfterAll
    static void stop() {
        if (shared != null) {
            shared.close();
        }
    }

    @Test
    void onDemandItTouchesThePagesOfTheStoreAndItsIndexesAndHealthSaysWarmingMeanwhile() throws Exception {
        {
            TestServer s = shared;
            StringBuilder rows = new StringBuilder("[");
            for (int i = 0; i < 2000; i++) {
                rows.append(i == 0 ? "" : ",").append("{\"id\": ").append(i).append('}');
            }
            assertThat(s.post("/db/neo4j/write/hit?mode=sync", rows + "]").statusCode()).isEqualTo(200);
            assertThat(s.health().path("warmup").path("state").asText())
                    .isEqualTo("NONE");

            var r = s.post("/db/neo4j/warmup", "");
            assertThat(r.statusCode()).isEqualTo(202);
            assertThat(JSON.readTree(r.body()).path("started").asBoolean()).isTrue();
            Await.until("the warm-up done", Duration.ofSeconds(60), () -> s.health().path("warmup").path("state")
                    .asText().equals("DONE"));
            JsonNode h = s.health();
            assertThat(h.path("status").asText()).isEqualTo("UP");
            JsonNode w = h.path("warmup");
            assertThat(w.path("how").asText()).isEqualTo("page cache");
            assertThat(w.path("files").asInt()).as(w.toString()).isGreaterThan(3); // stores and the constraint's index
            assertThat(w.path("pages").asLong()).isPositive();
            assertThat(w.path("bytes").asLong()).isEqualTo(w.path("pages").asLong() * 8192);
            assertThat(s.get("/metrics").body()).contains("sluice_warming 0.0");

            assertThat(s.post("/db/other/warmup", "").statusCode()).isEqualTo(404);
            assertThat(s.sendRaw(java.net.http.HttpRequest.newBuilder(java.net.URI.create(s.url("/db/neo4j/warmup")))
                    .POST(java.net.http.HttpRequest.BodyPublishers.noBody()).build()).statusCode())
                    .as("credentials needed").isEqualTo(401);
        }
    }

    @Test
    void whileItRunsHealthIs503WarmingAndWritesStillGoThroughThenUp() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        {
            TestServer s = shared;
            Sink held = new ForwardingSink(s.server.sink()) {
                @Override
                public Warmed warmUp(BooleanSupplier stop) throws GraphException {
                    entered.countDown();
                    try {
                        assertThat(release.await(60, TimeUnit.SECONDS)).isTrue();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return super.warmUp(stop);
                }
            };
            try (Warmer warmer = new Warmer(held, Time.SYSTEM)) {
                assertThat(warmer.start()).isTrue();
                assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
                assertThat(warmer.warming()).isTrue();
                assertThat(warmer.start()).as("one at a time").isFalse();
                assertThat(warmer.describe()).containsEntry("state", "WARMING");
                release.countDown();
                Await.until("done", Duration.ofSeconds(60), () -> !warmer.warming());
                assertThat(warmer.describe()).containsEntry("state", "DONE");
            }
        }
    }

    @Test
    void onStartHealthIsWarmingUntilDoneAndTheCypherWayReadsTheIndexes() throws Exception {
        try (TestServer s = TestServer.start(CONFIG + "warmup: {on_start: true}\n", false)) {
            // the status is WARMING or, on a store this small, UP already: never DOWN
            Await.until("UP after the warm-up", Duration.ofSeconds(60), () -> {
                var r = s.get("/health");
                String status;
                try {
                    status = JSON.readTree(r.body()).path("status").asText();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                assertThat(status).isIn("WARMING", "UP");
                assertThat(r.statusCode()).isEqualTo(status.equals("UP") ? 200 : 503);
                return status.equals("UP");
            });
            assertThat(s.health().path("warmup").path("state").asText()).isEqualTo("DONE");
            s.post("/db/neo4j/write/hit?mode=sync", "[{\"id\": 1}, {\"id\": 2}]");

            // the default (Bolt) way: scans, one per store and per node index, through Cypher
            Sink.Warmed scans = new ForwardingSink(s.server.sink()).warmUpByCypher(() -> false);
            assertThat(scans.how()).isEqualTo("cypher scans");
            long nodes = s.count("MATCH (n) RETURN count(n)");
            long rels = s.count("MATCH ()-[r]->() RETURN count(r)");
            long indexes = s.count("SHOW INDEXES YIELD type, entityType, labelsOrTypes, state WHERE state = 'ONLINE'"
                    + " AND entityType = 'NODE' AND type <> 'LOOKUP' AND size(labelsOrTypes) = 1 RETURN count(*)");
            assertThat(indexes).as("Hit(id) and sluice's offset node's").isGreaterThanOrEqualTo(2);
            assertThat(scans.files()).as("nodes, relationships, then one scan per index").isEqualTo(2 + indexes);
            // every node and relationship once for the stores; then each index its entries: every node here is in
            // exactly one index (Hit(id), or the one of sluice's offset node)
            assertThat(scans.pages()).as("entities read").isEqualTo(2 * nodes + rels);
        }
    }

    /**
     * On start, the warm-up begins before HTTP listens: a load balancer's first /health answer is WARMING, never an
     * UP from before the warm-up began (it was started after HTTP opened, so a poll in between got 200). A clock
     * that probes the HTTP port when the warmer reads it on starting tells which came first.
     */
    @Test
    void onStartTheWarmUpBeginsBeforeHttpListens() throws Exception {
        int port = TestServer.freePort();
        java.util.concurrent.atomic.AtomicReference<Boolean> listeningWhenWarmUpBegan =
                new java.util.concurrent.atomic.AtomicReference<>();
        Time probe = new Time() {
            @Override
            public long nanos() {
                return Time.SYSTEM.nanos();
            }

            @Override
            public java.time.Instant now() {
                if (listeningWhenWarmUpBegan.get() == null && StackWalker.getInstance().walk(frames -> frames.anyMatch(
                        f -> f.getClassName().equals(Warmer.class.getName()) && f.getMethodName().equals("start")))) {
                    listeningWhenWarmUpBegan.set(listening(port));
                }
                return Time.SYSTEM.now();
            }

            @Override
            public void sleep(Duration d) throws InterruptedException {
                Time.SYSTEM.sleep(d);
            }
        };
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("sluice-warmup-");
        var config = io.sluice.config.ConfigLoader.parse(CONFIG + "warmup: {on_start: true, write_path: 0s}\nneo4j: {pagecache: 64m}\n");
        var server = io.sluice.server.SluiceServer.start(new io.sluice.server.SluiceServer.Options(config, dir,
                new io.sluice.config.HostPort("127.0.0.1", port), null)
                .withInitialAuth(new io.sluice.security.InitialAuth.Given(TestServer.PASSWORD, false)), probe);
        try {
            assertThat(listeningWhenWarmUpBegan.get()).as("the warm-up began (the HTTP port then open?)").isNotNull();
            assertThat(listeningWhenWarmUpBegan.get()).as("HTTP listening when the warm-up began").isFalse();
            assertThat(listening(port)).as("HTTP listens once started").isTrue();
        } finally {
            server.close();
            TestServer.deleteRecursively(dir);
        }
    }

    static boolean listening(int port) {
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }

}
