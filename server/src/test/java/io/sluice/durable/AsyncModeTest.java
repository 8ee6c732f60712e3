package io.sluice.durable;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.Await;
import io.sluice.support.TestServer;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.graphdb.Transaction;

/** mode=async over real HTTP: 202 with an offset, read-your-writes, dead letters, lag backpressure. */
class AsyncModeTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static TestServer s;

    @BeforeAll
    static void start() {
        s = TestServer.start("""
                templates:
                  person:
                    cypher: "CREATE (:Person {id: row.id, name: row.name})"
                    key: [id]
                schema:
                  - CREATE CONSTRAINT person_id IF NOT EXISTS FOR (p:Person) REQUIRE p.id IS UNIQUE
                """, false);
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    @Test
    void anAsyncWriteWithALargeResultIsAppliedNotDeadLettered() throws Exception {
        // its result is never sent (202 came first), so it is discarded as it runs, bound or not
        HttpResponse<String> r = s.post("/db/neo4j/tx/commit?mode=async", """
                {"statements": [{"statement": "CREATE (:BigResult {k: 1}) RETURN range(1, 2000000) AS l"}]}""");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        long offset = json(r).get("offset").asLong();
        JsonNode applied = json(s.get("/db/neo4j/applied?offset=" + offset + "&wait=30s"));
        assertThat(applied.get("applied").asBoolean()).as(applied.toString()).isTrue();
        assertThat(s.count("MATCH (b:BigResult) RETURN count(b)")).isEqualTo(1);
        assertThat(s.get("/db/neo4j/dead-letters").body()).doesNotContain("BigResult");
    }

    @Test
    void acceptedWritesAreAppliedAndReadable() throws Exception {
        HttpResponse<String> r = s.post("/db/neo4j/write/person?mode=async", "{\"id\": 1, \"name\": \"a\"}");
        assertThat(r.statusCode()).isEqualTo(202);
        long offset = json(r).get("offset").asLong();
        HttpResponse<String> q = s.post("/db/neo4j/tx/commit?mode=async", """
                {"statements": [{"statement": "CREATE (:Q {k: $k})", "parameters": {"k": 7}}]}""");
        assertThat(q.statusCode()).isEqualTo(202);
        long offset2 = json(q).get("offset").asLong();
        assertThat(offset2).isGreaterThan(offset);

        JsonNode applied = json(s.get("/db/neo4j/applied?offset=" + offset2 + "&wait=30s"));
        assertThat(applied.get("applied").asBoolean()).isTrue();
        assertThat(s.count("MATCH (p:Person {id: 1}) RETURN count(p)")).isEqualTo(1);
        assertThat(s.count("MATCH (q:Q {k: 7}) RETURN count(q)")).isEqualTo(1);
        assertThat(s.count("MATCH (o:SluicePosition {partition: 0}) WHERE o.source STARTS WITH 'journal:' RETURN o.next - 1")).isGreaterThanOrEqualTo(offset2);
    }

    @Test
    void appliedAnswersFalseWhenTheWaitRunsOut() throws Exception {
        long future = json(s.get("/health")).get("journal_next_offset").asLong() + 1000;
        JsonNode a = json(s.get("/db/neo4j/applied?offset=" + future + "&wait=50ms"));
        assertThat(a.get("applied").asBoolean()).isFalse();
        assertThat(s.get("/db/neo4j/applied?offset=x").statusCode()).isEqualTo(400);
    }

    @Test
    void aWriteThatFailsOnApplyIsDeadLetteredAndDoesNotBlockTheStream() throws Exception {
        s.post("/db/neo4j/write/person?mode=async", "{\"id\": 50, \"name\": \"first\"}");
        HttpResponse<String> dup = s.post("/db/neo4j/write/person?mode=async", "{\"id\": 50, \"name\": \"dup\"}");
        assertThat(dup.statusCode()).as("accepted: it only fails when applied").isEqualTo(202);
        long dupOffset = json(dup).get("offset").asLong();
        HttpResponse<String> after = s.post("/db/neo4j/write/person?mode=async", "{\"id\": 51, \"name\": \"after\"}");
        long afterOffset = json(after).get("offset").asLong();
        assertThat(json(s.get("/db/neo4j/applied?offset=" + afterOffset + "&wait=30s")).get("applied").asBoolean()).isTrue();
        assertThat(s.count("MATCH (p:Person {id: 51}) RETURN count(p)")).as("the stream went on").isEqualTo(1);

        JsonNode letters = json(s.get("/db/neo4j/dead-letters")).get("dead_letters");
        JsonNode mine = null;
        for (JsonNode l : letters) {
            if (l.get("offset").asLong() == dupOffset) {
                mine = l;
            }
        }
        assertThat(mine).as("dead letter for offset " + dupOffset + " in " + letters).isNotNull();
        assertThat(mine.get("code").asText()).isEqualTo("Neo.ClientError.Schema.ConstraintValidationFailed");
        assertThat(mine.at("/request/r/0/name").asText()).isEqualTo("dup");
        assertThat(s.get("/metrics").body()).contains("sluice_dead_letters");
        assertThat(json(s.get("/health")).get("dead_letters").asLong()).isPositive();
    }

    /**
     * On a server of its own, so nothing else adds to its backlog: five rows of lag, the bound, held there by a
     * lock the test takes on the node the journal applier must write. A sixth write waits the admission timeout
     * and is refused; once the lock is released and the backlog applied, the next write is accepted.
     */
    @Test
    @Timeout(120) // starts a server of its own
    void atTheLagBoundAsyncWritesWaitThenGet503AndRecover() throws Exception {
        try (TestServer lagged = TestServer.start("""
                templates:
                  touch:
                    cypher: "MATCH (l:Lock {id: row.id}) SET l.v = row.v"
                    key: [id]
                journal: {max_lag_rows: 5}
                admission: {timeout: 300ms}
                """, false)) {
            lagged.server.neo4j().database().executeTransactionally("CREATE (:Lock {id: 1})");
            try (Transaction holder = lagged.server.neo4j().database().beginTx()) {
                holder.execute("MATCH (l:Lock {id: 1}) SET l.v = 0").close(); // the applier will block on this node
                for (int i = 1; i <= 5; i++) {
                    assertThat(touch(lagged, i).statusCode()).isEqualTo(202);
                }
                Await.until("5 rows of lag", Duration.ofSeconds(30),
                        () -> lagged.get("/health").body().contains("\"journal_lag_rows\":5,"));
                long t0 = System.nanoTime();
                HttpResponse<String> refused = touch(lagged, 6);
                assertThat(refused.statusCode()).isEqualTo(503);
                assertThat(refused.headers().firstValue("Retry-After")).contains("1");
                assertThat(json(refused).at("/errors/0/code").asText())
                        .isEqualTo("Neo.TransientError.Request.ResourceExhaustion");
                assertThat((System.nanoTime() - t0) / 1_000_000).as("waited the admission timeout first")
                        .isGreaterThanOrEqualTo(280);
                assertThat(lagged.get("/health").body()).as("nothing applied while the lock is held")
                        .contains("\"journal_lag_rows\":5,");
                holder.rollback();
            }
            Await.until("the backlog applied once the lock is released", Duration.ofSeconds(30),
                    () -> lagged.get("/health").body().contains("\"journal_lag_rows\":0,"));
            HttpResponse<String> accepted = touch(lagged, 7);
            assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
            long last = json(accepted).get("offset").asLong();
            assertThat(json(lagged.get("/db/neo4j/applied?offset=" + last + "&wait=30s")).get("applied").asBoolean())
                    .isTrue();
            assertThat(lagged.count("MATCH (l:Lock {id: 1}) RETURN l.v")).as("applied in order; the refused one never")
                    .isEqualTo(7);
        }
    }

    static HttpResponse<String> touch(TestServer server, int v) {
        return server.post("/db/neo4j/write/touch?mode=async", "{\"id\": 1, \"v\": " + v + "}");
    }
}
