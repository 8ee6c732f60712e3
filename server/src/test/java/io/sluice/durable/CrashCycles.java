package io.sluice.durable;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.SluiceProcess;
import io.sluice.support.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The exactly-once promise under kill -9: a real sluice process (over embedded Neo4j, or over Bolt to a Neo4j
 * that stays up) takes async unique-id CREATE writes from 16 clients and is killed at a random moment,
 * {@code cycles} times; then every acknowledged id must be in the graph
 * exactly once, and no id at all twice (CREATE makes a double apply visible).
 */
final class CrashCycles {
    private static final ObjectMapper JSON = new ObjectMapper();

    record Result(int cycles, long acknowledged, long nodes, long lost, long duplicated, long seed) {}

    /** {@code serveArgs}: extra arguments for every {@code sluice serve}, e.g. {@code --neo4j bolt://...}. */
    static Result run(int cycles, long seed, Path dir, String... serveArgs) throws Exception {
        Random random = new Random(seed);
        Path config = dir.resolve("sluice.yaml");
        Files.writeString(config, """
                templates:
                  item: {cypher: "CREATE (:Item {id: row.id})", key: [id]}
                schema:
                  # an index, not a uniqueness constraint: a write applied twice must stay visible
                  - CREATE INDEX item_id IF NOT EXISTS FOR (i:Item) ON (i.id)
                neo4j: {pagecache: 64m}
                batch: {max_wait: 1ms}
                # small segments: every cycle rolls several under async writes (and retention deletes them)
                journal: {segment_bytes: 64k}
                """);
        Path data = dir.resolve("data");
        List<Long> acked = new ArrayList<>();
        AtomicLong ids = new AtomicLong();
        try (HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build()) {
            for (int cycle = 0; cycle < cycles; cycle++) {
                try (SluiceProcess p = SluiceProcess.start(config, data, TestServer.freePort(), serveArgs)) {
                    acked.addAll(load(http, p, ids, Duration.ofMillis(300 + random.nextInt(1500))));
                }
            }
            try (SluiceProcess p = SluiceProcess.start(config, data, TestServer.freePort(), serveArgs)) {
                long maxAcked = acked.stream().mapToLong(Long::longValue).max().orElse(0);
                JsonNode health = JSON.readTree(get(http, p.url("/health")));
                assertThat(health.has("journal_next_offset")).as("health: %s", health).isTrue();
                long lastOffset = health.get("journal_next_offset").asLong() - 1;
                JsonNode applied = JSON.readTree(get(http, p.url("/db/neo4j/applied?offset=" + lastOffset + "&wait=60s")));
                assertThat(applied.path("applied").asBoolean()).as("replay finished (seed %d): %s", seed, applied)
                        .isTrue();
                String lostQ = "UNWIND $ids AS id OPTIONAL MATCH (i:Item {id: id}) WITH id, count(i) AS c WHERE c = 0 RETURN count(*)";
                long lost = query(http, p, lostQ, Map.of("ids", acked));
                long dup = query(http, p, "MATCH (i:Item) WITH i.id AS id, count(*) AS c WHERE c > 1 RETURN count(*)", Map.of());
                long nodes = query(http, p, "MATCH (i:Item) RETURN count(i)", Map.of());
                p.terminate(Duration.ofSeconds(60));
                assertThat(maxAcked).isPositive();
                return new Result(cycles, acked.size(), nodes, lost, dup, seed);
            }
        }
    }

    /** 16 clients writing unique ids in async mode for {@code duration}; returns the ids that got 202. */
    private static List<Long> load(HttpClient http, SluiceProcess p, AtomicLong ids, Duration duration) throws Exception {
        ConcurrentLinkedQueue<Long> acked = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < 16; c++) {
                clients.submit(() -> {
                    while (!stop.get()) {
                        long id = ids.incrementAndGet();
                        try {
                            var r = http.send(HttpRequest.newBuilder(URI.create(p.url("/db/neo4j/write/item?mode=async"))).header("Authorization", SluiceProcess.AUTH)
                                    .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString("{\"id\":" + id + "}")).build(),
                                    HttpResponse.BodyHandlers.ofString());
                            if (r.statusCode() == 202) {
                                acked.add(id);
                            }
                        } catch (Exception e) {
                            return null; // killed
                        }
                    }
                    return null;
                });
            }
            try {
                // the crash moment is a random time after the load is flowing (the first 202), so a slow start
                // (a loaded machine, credentials checked against a remote Neo4j) cannot leave a cycle empty
                long flowing = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (acked.isEmpty() && System.nanoTime() < flowing) {
                    LockSupport.parkNanos(1_000_000);
                }
                long end = System.nanoTime() + duration.toNanos();
                while (System.nanoTime() < end) {
                    LockSupport.parkNanos(1_000_000); // the load runs for a random time: this is the crash moment
                }
                p.kill();
            } finally {
                stop.set(true); // else a failed kill leaves the clients looping and close() waiting for them
            }
        }
        return new ArrayList<>(acked);
    }

    private static String get(HttpClient http, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", SluiceProcess.AUTH).timeout(TestServer.REQUEST_TIMEOUT).GET().build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private static long query(HttpClient http, SluiceProcess p, String cypher, Map<String, Object> params) throws Exception {
        String body = JSON.writeValueAsString(Map.of("statement", cypher, "parameters", params));
        var r = http.send(HttpRequest.newBuilder(URI.create(p.url("/db/neo4j/query/v2"))).header("Authorization", SluiceProcess.AUTH).timeout(TestServer.REQUEST_TIMEOUT)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        return JSON.readTree(r.body()).at("/data/values/0/0").asLong();
    }

    private CrashCycles() {}
}
