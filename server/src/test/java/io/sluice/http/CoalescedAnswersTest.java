package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.TestServer;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Concurrent raw writes of one statement, batched together (a long linger), as both HTTP APIs send them: some ask
 * for update counters, one breaks a constraint. Requests that ask for nothing may be coalesced; every client must
 * still get exactly the answer its request alone would get.
 */
class CoalescedAnswersTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String CREATE = "CREATE (:Co {k: $k})";

    @Test
    @Timeout(60)
    void everyRequestGetsItsOwnAnswer() throws Exception {
        try (TestServer s = TestServer.start("""
                schema:
                  - CREATE CONSTRAINT co_k IF NOT EXISTS FOR (c:Co) REQUIRE c.k IS UNIQUE
                batch: {max_wait: 100ms}
                """, false);
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            s.post("/db/neo4j/query/v2", "{\"statement\": \"CREATE (:Co {k: -1})\"}");
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int k = 0; k < 24; k++) {
                long key = k == 13 ? -1 : k; // one duplicate: refused by the constraint
                String counters = k % 3 == 0 ? ", \"includeCounters\": true" : "";
                String stats = k % 3 == 0 ? ", \"includeStats\": true" : "";
                String query = "{\"statement\": \"" + CREATE + "\", \"parameters\": {\"k\": " + key + "}" + counters + "}";
                String classic = "{\"statements\": [{\"statement\": \"" + CREATE + "\", \"parameters\": {\"k\": "
                        + (key < 0 ? key : 100 + key) + "}" + stats + "}]}";
                answers.add(clients.submit(() -> s.post("/db/neo4j/query/v2", query)));
                answers.add(clients.submit(() -> s.post("/db/neo4j/tx/commit", classic)));
            }
            for (int i = 0; i < answers.size(); i++) {
                int k = i / 2;
                boolean query = i % 2 == 0;
                HttpResponse<String> r = answers.get(i).get();
                JsonNode body = JSON.readTree(r.body());
                if (k == 13) {
                    assertThat(body.get("errors").get(0).get("code").asText()).as(r.body())
                            .isEqualTo("Neo.ClientError.Schema.ConstraintValidationFailed");
                    continue;
                }
                assertThat(r.statusCode()).as(r.body()).isEqualTo(query ? 202 : 200);
                JsonNode result = query ? body : body.get("results").get(0);
                assertThat(query ? result.get("data").toString() : result.get("data").toString() + result.get("columns"))
                        .isEqualTo(query ? "{\"fields\":[],\"values\":[]}" : "[][]");
                JsonNode counters = result.get(query ? "counters" : "stats");
                if (k % 3 == 0) {
                    assertThat(counters).as(r.body()).isNotNull();
                    assertThat(counters.get(query ? "nodesCreated" : "nodes_created").asInt()).isEqualTo(1);
                } else {
                    assertThat(counters).as(r.body()).isNull();
                }
            }
            assertThat(s.count("MATCH (c:Co) RETURN count(c)")).isEqualTo(1 + 2 * 23);
        }
    }

    /**
     * Writes that ask for no result, coalesced into one statement's UNWIND form, still get the notifications of
     * their own statement (Neo4j raises a cartesian product here), positions as each client wrote it, on both APIs.
     */
    @Test
    @Timeout(60)
    void coalescedWritesKeepTheirOwnNotifications() throws Exception {
        String link = "MATCH (a:Link), (b:Link) WHERE a.k = $k AND b.k = $k + 1 MERGE (a)-[:NEXT]->(b)";
        try (TestServer s = TestServer.start("batch: {max_wait: 100ms}\n", false);
                ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            s.post("/db/neo4j/query/v2", "{\"statement\": \"UNWIND range(0, 40) AS k CREATE (:Link {k: k})\"}");
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            for (int k = 0; k < 20; k++) {
                String query = "{\"statement\": \"" + link + "\", \"parameters\": {\"k\": " + (2 * k) + "}}";
                String classic = "{\"statements\": [{\"statement\": \"" + link + "\", \"parameters\": {\"k\": "
                        + (2 * k + 1) + "}}]}";
                answers.add(clients.submit(() -> s.post("/db/neo4j/query/v2", query)));
                answers.add(clients.submit(() -> s.post("/db/neo4j/tx/commit", classic)));
            }
            for (int i = 0; i < answers.size(); i++) {
                JsonNode body = JSON.readTree(answers.get(i).get().body());
                JsonNode notifications = body.path("notifications");
                assertThat(notifications.path(0).path("code").asText()).as(body.toString())
                        .isEqualTo("Neo.ClientNotification.Statement.CartesianProduct");
                assertThat(notifications.path(0).path("position").toString()).as(body.toString())
                        .isEqualTo("{\"offset\":0,\"line\":1,\"column\":1}");
                assertThat(notifications.path(0).path("description").asText()).as(body.toString())
                        .endsWith("(identifier is: (b))");
            }
            assertThat(s.count("MATCH (:Link)-[r:NEXT]->(:Link) RETURN count(r)")).isEqualTo(40);
        }
    }
}
