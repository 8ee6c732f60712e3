package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.Await;
import io.sluice.support.TestServer;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.neo4j.graphdb.Transaction;

/**
 * At the pending bound a write waits the admission timeout, then gets 503 with Retry-After; when room frees,
 * writes are admitted again. The applier is held deterministically by a lock the test takes on a node.
 */
class BackpressureTest {
    static TestServer s;

    @BeforeAll
    static void start() {
        s = TestServer.start("""
                admission: {max_pending_rows: 1, timeout: 300ms}
                batch: {max_wait: 0ms}
                """, false);
        s.server.neo4j().database().executeTransactionally("CREATE (:Lock {id: 1})");
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    @Test
    void fullGatewayAnswers503WithRetryAfterThenRecovers() throws Exception {
        CompletableFuture<HttpResponse<String>> blocked;
        try (Transaction holder = s.server.neo4j().database().beginTx()) {
            holder.execute("MATCH (l:Lock {id: 1}) SET l.v = 0").close(); // holds the node's write lock
            blocked = CompletableFuture.supplyAsync(() -> s.post("/db/neo4j/query/v2",
                    "{\"statement\": \"MATCH (l:Lock {id: 1}) SET l.v = 1\"}"));
            Await.until("the first write is admitted and pending", Duration.ofSeconds(30),
                    () -> s.get("/health").body().contains("\"pending_rows\":1"));

            long t0 = System.nanoTime();
            HttpResponse<String> refused = s.post("/db/neo4j/query/v2", "{\"statement\": \"CREATE (:Other)\"}");
            long waitedMs = (System.nanoTime() - t0) / 1_000_000;
            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Retry-After")).contains("1");
            assertThat(new ObjectMapper().readTree(refused.body()).at("/errors/0/code").asText())
                    .isEqualTo("Neo.TransientError.Request.ResourceExhaustion");
            assertThat(waitedMs).as("waited the admission timeout first").isGreaterThanOrEqualTo(280);
            assertThat(blocked).isNotDone();
            holder.rollback();
        }
        assertThat(blocked.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(202);
        assertThat(s.post("/db/neo4j/query/v2", "{\"statement\": \"CREATE (:Other)\"}").statusCode()).isEqualTo(202);
        assertThat(s.count("MATCH (o:Other) RETURN count(o)")).as("the refused write was not applied").isEqualTo(1);
        Object v = s.server.neo4j().database().executeTransactionally("MATCH (l:Lock) RETURN l.v AS v", Map.of(),
                r -> r.next().get("v"));
        assertThat(v).isEqualTo(1L);
    }
}
