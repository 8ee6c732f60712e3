package io.sluice.durable;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.Await;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
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

/**
 * The remote Neo4j going away under async load: kill -9 of the {@code sluice neo4j} process while an in-process
 * sluice takes async writes over Bolt. Writes keep getting 202 up to the lag bound (then 503), the applier keeps
 * retrying; the Neo4j process is started again on the same data directory and port, and every acknowledged
 * write is then applied exactly once.
 */
class Neo4jOutageTest {
    static final ObjectMapper JSON = new ObjectMapper();
    Path dir;
    Neo4jProcess neo4j;
    TestServer s;

    @AfterEach
    void cleanUp() {
        if (s != null) {
            s.close();
        }
        if (neo4j != null) {
            neo4j.close();
        }
        TestServer.deleteRecursively(dir);
    }

    @Test
    @Timeout(180) // a Neo4j process starts twice, a server once, and the backlog drains
    void acknowledgedWritesSurviveTheDatabaseGoingAwayAndAreAppliedOnceWhenItIsBack() throws Exception {
        dir = Files.createTempDirectory("sluice-outage-");
        neo4j = Neo4jProcess.start(dir.resolve("neo4j"));
        s = TestServer.startRemote("""
                templates:
                  item: {cypher: "CREATE (:Item {id: row.id})", key: [id]}
                journal: {max_lag_rows: 400}
                admission: {timeout: 200ms}
                retry: {max_attempts: 4, max_backoff: 200ms}
                batch: {max_wait: 1ms}
                """, neo4j.uri());
        ConcurrentLinkedQueue<Long> acked = new ConcurrentLinkedQueue<>();
        Map<Integer, Long> afterKill = new ConcurrentHashMap<>();
        AtomicBoolean killed = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicBoolean paused = new AtomicBoolean();
        AtomicLong ids = new AtomicLong();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < 8; c++) {
                clients.submit(() -> {
                    while (!stop.get()) {
                        if (paused.get()) {
                            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                            continue;
                        }
                        long id = ids.incrementAndGet();
                        boolean sentAfterKill = killed.get();
                        HttpResponse<String> r = s.post("/db/neo4j/write/item?mode=async", "{\"id\":" + id + "}");
                        if (r.statusCode() == 202) {
                            acked.add(id);
                        }
                        if (sentAfterKill) {
                            afterKill.merge(r.statusCode(), 1L, Long::sum);
                        }
                    }
                    return null;
                });
            }
            try {
                Await.until("async writes applied before the kill", Duration.ofSeconds(30),
                        () -> acked.size() > 300 && appliedOffset() > 100);
                // drain the backlog first, so the lag bound leaves room for writes accepted during the outage
                paused.set(true);
                Await.until("backlog applied before the kill", Duration.ofSeconds(60),
                        () -> s.get("/health").body().contains("\"journal_lag_rows\":0,"));
                neo4j.kill();
                killed.set(true);
                paused.set(false);
                Await.until("the lag bound reached while Neo4j is down", Duration.ofSeconds(60),
                        () -> afterKill.getOrDefault(503, 0L) > 0);
                assertThat(afterKill.getOrDefault(202, 0L))
                        .as("accepted into the journal while Neo4j was down: " + afterKill).isPositive();
                // BoltSink caches its availability probe for 1 s: /health says DOWN within that
                Await.until("/health says DOWN", Duration.ofSeconds(10),
                        () -> s.get("/health").body().contains("\"DOWN\""));
                HttpResponse<String> sync = s.post("/db/neo4j/write/item", "{\"id\": -1}");
                assertThat(sync.statusCode()).as("a sync write while Neo4j is down: " + sync.body()).isEqualTo(503);
                assertThat(json(sync).at("/errors/0/code").asText()).startsWith("Neo.TransientError.");
            } finally {
                stop.set(true); // else a failed assertion leaves the clients looping and close() waiting forever
            }
        }
        assertThat(afterKill.keySet()).as("statuses after the kill").isSubsetOf(202, 503);

        neo4j = Neo4jProcess.start(neo4j.dataDir, neo4j.port);
        long last = json(s.get("/health")).get("journal_next_offset").asLong() - 1;
        JsonNode applied = json(s.get("/db/neo4j/applied?offset=" + last + "&wait=60s"));
        assertThat(applied.get("applied").asBoolean()).as("the backlog applied once Neo4j is back: " + applied).isTrue();
        List<Long> ackedIds = List.copyOf(acked);
        long found = s.count("UNWIND $ids AS id MATCH (i:Item {id: id}) RETURN count(DISTINCT id)", Map.of("ids", ackedIds));
        long duplicated = s.count("MATCH (i:Item) WITH i.id AS id, count(*) AS c WHERE c > 1 RETURN count(*)");
        assertThat(found).as("acknowledged writes in the graph").isEqualTo(ackedIds.size());
        assertThat(duplicated).as("writes applied twice").isZero();
        assertThat(json(s.get("/health")).get("status").asText()).isEqualTo("UP");
        assertThat(json(s.get("/health")).get("dead_letters").asLong()).isZero();
    }

    long appliedOffset() {
        try {
            return json(s.get("/health")).get("journal_applied_offset").asLong();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }
}
