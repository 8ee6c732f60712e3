package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.support.Await;
import io.sluice.support.SluiceProcess;
import io.sluice.support.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** SIGTERM under load: the process exits cleanly, every acknowledged write is in the graph, the rest got 503. */
class SigtermTest {
    Path dir;

    @AfterEach
    void cleanUp() {
        TestServer.deleteRecursively(dir);
    }

    @Test
    @Timeout(180) // a child JVM with Neo4j starts, takes load, stops; then embedded Neo4j opens its store
    void sigtermCommitsEveryAcknowledgedWrite() throws Exception {
        dir = Files.createTempDirectory("sluice-sigterm-");
        Path config = dir.resolve("sluice.yaml");
        Files.writeString(config, """
                templates:
                  item: {cypher: "CREATE (:Item {id: row.id})", key: [id]}
                neo4j: {pagecache: 64m}
                """);
        Path data = dir.resolve("data");
        ConcurrentLinkedQueue<Long> acked = new ConcurrentLinkedQueue<>();
        Map<Integer, Long> statuses = new ConcurrentHashMap<>();
        AtomicLong ids = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        try (SluiceProcess p = SluiceProcess.start(config, data, TestServer.freePort());
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(10)).build();
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            try {
                for (int c = 0; c < 16; c++) {
                    clients.submit(() -> {
                        while (!stop.get()) {
                            long id = ids.incrementAndGet();
                            try {
                                var r = http.send(HttpRequest.newBuilder(URI.create(p.url("/db/neo4j/write/item"))).header("Authorization", SluiceProcess.AUTH)
                                        .timeout(Duration.ofSeconds(30))
                                        .POST(HttpRequest.BodyPublishers.ofString("{\"id\":" + id + "}")).build(),
                                        HttpResponse.BodyHandlers.ofString());
                                statuses.merge(r.statusCode(), 1L, Long::sum);
                                if (r.statusCode() == 200) {
                                    acked.add(id);
                                } else if (r.statusCode() == 503 && (r.headers().firstValue("Retry-After").isEmpty()
                                        || !r.body().contains("\"code\":\"Neo.TransientError."))) {
                                    statuses.merge(-503, 1L, Long::sum); // a 503 without Neo4j's error format
                                }
                            } catch (Exception e) {
                                statuses.merge(-1, 1L, Long::sum); // refused, reset or timed out: not acknowledged
                                if (!p.process.isAlive()) {
                                    return null;
                                }
                            }
                        }
                        return null;
                    });
                }
                Await.until("500 acknowledged writes before SIGTERM", Duration.ofSeconds(60), () -> {
                    if (!p.process.isAlive()) {
                        throw new AssertionError("sluice exited before SIGTERM; log " + p.log);
                    }
                    return acked.size() >= 500;
                });
                int exit = p.terminate(Duration.ofSeconds(60));
                assertThat(exit).as("exit code after SIGTERM (143 = terminated by the signal, hooks run)").isIn(0, 143);
                assertThat(Files.readString(p.log)).as("exit " + exit).contains("sluice stopped");
            } finally {
                stop.set(true); // else a failed assertion leaves the clients looping and close() waiting for them
            }
        }
        assertThat(statuses.keySet()).as("statuses seen: " + statuses).isSubsetOf(200, 503, -1);
        try (EmbeddedNeo4j db = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(data, null, 64L << 20, 0, "neo4j"))) {
            long found = db.database().executeTransactionally(
                    "UNWIND $ids AS id MATCH (i:Item {id: id}) RETURN count(i)", Map.of("ids", List.copyOf(acked)),
                    r -> (Long) r.next().values().iterator().next());
            assertThat(found).as("every acknowledged write survived SIGTERM").isEqualTo(acked.size());
        }
    }
}
