package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.Await;
import io.sluice.support.TestServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The classic transactional API's explicit transactions over real HTTP, answered as Neo4j 2026.08 answers them
 * (docs/reference/neo4j-http-behaviour.md, section 4): 201 with Location, run, read your own write, keep-alive,
 * commit, roll back, 404 TransactionNotFound afterwards, a Cypher error as 200 with errors that ends the
 * transaction, the row and graph formats, the deprecation notification; and sluice's limits on them: the bound
 * over both APIs, the pending bound they count against, idle expiry of one whose client went away.
 */
class ClassicTransactionsTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String DEPRECATION = "{\"code\":\"Neo.ClientNotification.Request.FeatureDeprecationWarning\"";
    static TestServer s;

    @BeforeAll
    static void start() {
        s = TestServer.start("", false);
    }

    @AfterAll
    static void stop() {
        if (s != null) {
            s.close();
        }
    }

    static HttpResponse<String> delete(TestServer server, String path) {
        return server.send(HttpRequest.newBuilder(URI.create(server.url(path))).DELETE().build());
    }

    static String statements(String... cypher) {
        StringBuilder b = new StringBuilder("{\"statements\":[");
        for (int i = 0; i < cypher.length; i++) {
            b.append(i == 0 ? "" : ",").append("{\"statement\":").append(JSON.valueToTree(cypher[i]).toString()).append('}');
        }
        return b.append("]}").toString();
    }

    static long items(String name) {
        return s.count("MATCH (i:ClassicItem {name: $n}) RETURN count(i)", Map.of("n", name));
    }

    @Test
    void openRunReadYourOwnWriteKeepAliveCommit() throws Exception {
        HttpResponse<String> open = s.post("/db/neo4j/tx", """
                {"statements":[{"statement":"CREATE (i:ClassicItem {name: 'a'}) RETURN i","includeStats":true}]}""");
        assertThat(open.statusCode()).as(open.body()).isEqualTo(201);
        String location = open.headers().firstValue("Location").orElseThrow();
        assertThat(location).isEqualTo(s.url("/db/neo4j/tx/") + location.substring(location.lastIndexOf('/') + 1));
        String id = location.substring(location.lastIndexOf('/') + 1);
        assertThat(id).matches("\\d+");
        JsonNode o = JSON.readTree(open.body());
        assertThat(o.fieldNames()).toIterable().containsExactly("results", "notifications", "errors", "commit", "transaction");
        assertThat(o.at("/commit").asText()).isEqualTo(location + "/commit");
        assertThat(o.at("/transaction/expires").asText()).matches("[A-Z][a-z]{2}, \\d\\d [A-Z][a-z]{2} \\d{4} \\d\\d:\\d\\d:\\d\\d GMT");
        assertThat(o.at("/results/0/data/0/row/0/name").asText()).isEqualTo("a");
        assertThat(o.at("/results/0/data/0/meta/0/type").asText()).isEqualTo("node");
        assertThat(o.at("/results/0/stats/nodes_created").asInt()).isEqualTo(1);
        assertThat(o.at("/results/0/stats").has("relationship_deleted")).as("Neo4j's singular key").isTrue();
        assertThat(open.body()).contains(DEPRECATION);
        assertThat(items("a")).as("not visible outside before the commit").isZero();

        HttpResponse<String> run = s.post("/db/neo4j/tx/" + id,
                statements("MATCH (i:ClassicItem {name: 'a'}) RETURN count(i) AS c", "RETURN 2 AS two"));
        assertThat(run.statusCode()).as(run.body()).isEqualTo(200);
        JsonNode r = JSON.readTree(run.body());
        assertThat(r.at("/results/0/data/0/row/0").asInt()).as("its own write").isEqualTo(1);
        assertThat(r.at("/results/1/data/0/row/0").asInt()).isEqualTo(2);
        assertThat(r.has("transaction")).isTrue();

        HttpResponse<String> keepAlive = s.post("/db/neo4j/tx/" + id, "{\"statements\":[]}");
        assertThat(keepAlive.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(keepAlive.body()).at("/results").size()).isZero();

        HttpResponse<String> commit = s.post("/db/neo4j/tx/" + id + "/commit", "");
        assertThat(commit.statusCode()).as(commit.body()).isEqualTo(200);
        JsonNode c = JSON.readTree(commit.body());
        assertThat(c.has("lastBookmarks")).isTrue();
        assertThat(c.has("transaction")).isFalse();
        assertThat(items("a")).isEqualTo(1);

        HttpResponse<String> gone = s.post("/db/neo4j/tx/" + id, "{\"statements\":[]}");
        assertThat(gone.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(gone.body()).at("/errors/0/code").asText())
                .isEqualTo("Neo.ClientError.Transaction.TransactionNotFound");
        assertThat(gone.body()).contains(DEPRECATION);
    }

    @Test
    void rollbackLeavesNothingAndTheIdIsGone() throws Exception {
        HttpResponse<String> open = s.post("/db/neo4j/tx", statements("CREATE (:ClassicItem {name: 'b'})"));
        String id = open.headers().firstValue("Location").orElseThrow().replaceAll(".*/", "");
        HttpResponse<String> rollback = delete(s, "/db/neo4j/tx/" + id);
        assertThat(rollback.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(rollback.body()).fieldNames()).toIterable()
                .containsExactly("results", "notifications", "errors");
        assertThat(items("b")).isZero();
        assertThat(delete(s, "/db/neo4j/tx/" + id).statusCode()).isEqualTo(404);
        assertThat(s.post("/db/neo4j/tx/" + id + "/commit", "").statusCode()).isEqualTo(404);
    }

    @Test
    void aCypherErrorIs200WithErrorsKeepsEarlierResultsAndEndsTheTransaction() throws Exception {
        HttpResponse<String> open = s.post("/db/neo4j/tx", statements("CREATE (:ClassicItem {name: 'c'})"));
        String id = open.headers().firstValue("Location").orElseThrow().replaceAll(".*/", "");
        HttpResponse<String> bad = s.post("/db/neo4j/tx/" + id, statements("RETURN 1 AS ok", "RETRUN 1", "RETURN 3"));
        assertThat(bad.statusCode()).isEqualTo(200);
        JsonNode b = JSON.readTree(bad.body());
        assertThat(b.at("/results").size()).as("the statement before the error").isEqualTo(1);
        assertThat(b.at("/errors/0/code").asText()).isEqualTo("Neo.ClientError.Statement.SyntaxError");
        assertThat(b.has("commit")).isTrue();
        assertThat(b.has("transaction")).as("it is over").isFalse();
        assertThat(s.post("/db/neo4j/tx/" + id + "/commit", "").statusCode()).isEqualTo(404);
        assertThat(items("c")).as("rolled back").isZero();
    }

    @Test
    void theOneShotCommitAnswersCypherErrorsWith200AsNeo4j() throws Exception {
        HttpResponse<String> r = s.post("/db/neo4j/tx/commit", statements("CREATE (:ClassicItem {name: 'd'})", "RETRUN 1"));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).at("/errors/0/code").asText()).isEqualTo("Neo.ClientError.Statement.SyntaxError");
        assertThat(r.body()).contains(DEPRECATION).doesNotContain("lastBookmarks");
        assertThat(items("d")).as("a request is atomic").isZero();
        HttpResponse<String> ok = s.post("/db/neo4j/tx/commit", statements("CREATE (:ClassicItem {name: 'd'})"));
        assertThat(JSON.readTree(ok.body()).fieldNames()).toIterable()
                .containsExactly("results", "notifications", "errors", "lastBookmarks");
        assertThat(items("d")).isEqualTo(1);
    }

    @Test
    void rowAndGraphFormats() throws Exception {
        HttpResponse<String> r = s.post("/db/neo4j/tx/commit", """
                {"statements":[{"statement":"CREATE p = (a:ClassicP {name: 'alice'})-[k:KNOWS {since: 2020}]->(b:ClassicP {name: 'bob'}) RETURN a, k, p, b.name, date('2024-02-29') AS d",
                  "resultDataContents":["row","graph"]}]}""");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode data = JSON.readTree(r.body()).at("/results/0/data/0");
        assertThat(data.fieldNames()).toIterable().containsExactly("row", "meta", "graph");
        assertThat(data.at("/row/0/name").asText()).isEqualTo("alice");
        assertThat(data.at("/row/1/since").asInt()).isEqualTo(2020);
        assertThat(data.at("/row/2").size()).as("a path: node, relationship, node").isEqualTo(3);
        assertThat(data.at("/row/4").asText()).isEqualTo("2024-02-29");
        assertThat(data.at("/meta/4/type").asText()).isEqualTo("date");
        assertThat(data.at("/meta/3").isNull()).isTrue();
        JsonNode g = data.at("/graph");
        assertThat(g.at("/nodes").size()).as("each node once").isEqualTo(2);
        assertThat(g.at("/relationships").size()).isEqualTo(1);
        JsonNode rel = g.at("/relationships/0");
        assertThat(rel.at("/type").asText()).isEqualTo("KNOWS");
        assertThat(rel.at("/id").isTextual()).as("ids are strings").isTrue();
        assertThat(rel.at("/startNodeElementId").asText()).isEqualTo(data.at("/meta/0/elementId").asText());
        assertThat(rel.at("/startNode").asText()).isEqualTo(data.at("/meta/0/id").asText());

        HttpResponse<String> graphOnly = s.post("/db/neo4j/tx/commit", """
                {"statements":[{"statement":"MATCH (a:ClassicP {name: 'alice'}) RETURN a","resultDataContents":["graph"]}]}""");
        assertThat(JSON.readTree(graphOnly.body()).at("/results/0/data/0").fieldNames()).toIterable()
                .containsExactly("graph");
    }

    @Test
    void anIdThatIsNotANumberIsNotAResource() throws Exception {
        HttpResponse<String> r = s.post("/db/neo4j/tx/abc", "{\"statements\":[]}");
        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(r.body()).at("/errors/0/code").asText()).isEqualTo("Neo.ClientError.Request.Invalid");
        HttpResponse<String> db = s.post("/db/nosuchdb/tx", "{\"statements\":[]}");
        assertThat(db.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(db.body()).at("/errors/0/code").asText()).isEqualTo("Neo.ClientError.Database.DatabaseNotFound");
    }

    @Test
    void aReadAccessModeHeaderOpensAReadTransaction() throws Exception {
        HttpResponse<String> r = s.send(HttpRequest.newBuilder(URI.create(s.url("/db/neo4j/tx")))
                .header("access-mode", "READ").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(statements("CREATE (:ClassicItem {name: 'e'})"))).build());
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(JSON.readTree(r.body()).at("/errors/0/code").asText()).isEqualTo("Neo.ClientError.Statement.AccessMode");
        HttpResponse<String> bogus = s.send(HttpRequest.newBuilder(URI.create(s.url("/db/neo4j/tx")))
                .header("access-mode", "BOGUS").POST(HttpRequest.BodyPublishers.ofString("")).build());
        assertThat(bogus.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(bogus.body()).at("/errors/0/message").asText())
                .isEqualTo("The header 'access-mode' should be either 'WRITE' or 'READ' but found 'BOGUS'.");
        assertThat(items("e")).isZero();
    }

    /**
     * The limits over real HTTP on a server of their own: at most 2 open over both APIs, each counting as a
     * pending row of 3, idle ones rolled back after 1 s (a client that went away).
     */
    @Test
    void theBoundThePendingRowsAndIdleExpiry() throws Exception {
        try (TestServer t = TestServer.start("""
                transactions: {max_open: 2, classic_idle_timeout: 1s}
                admission: {max_pending_rows: 3, timeout: 200ms}
                """, false)) {
            HttpResponse<String> classic = t.post("/db/neo4j/tx", statements("CREATE (:Held)"));
            HttpResponse<String> query = t.post("/db/neo4j/query/v2/tx", "{}");
            assertThat(classic.statusCode()).isEqualTo(201);
            assertThat(query.statusCode()).isEqualTo(202);
            String queryId = JSON.readTree(query.body()).at("/transaction/id").asText();

            HttpResponse<String> third = t.post("/db/neo4j/tx", "");
            assertThat(third.statusCode()).as(third.body()).isEqualTo(503);
            assertThat(third.headers().firstValue("Retry-After")).isPresent();
            assertThat(JSON.readTree(third.body()).at("/errors/0/code").asText())
                    .isEqualTo("Neo.TransientError.Transaction.MaximumTransactionLimitReached");

            // 2 of the 3 pending rows are the open transactions: a write of 2 rows must wait, then 503
            HttpResponse<String> two = t.post("/db/neo4j/tx/commit", statements("CREATE (:Pending)", "CREATE (:Pending)"));
            HttpResponse<String> one = t.post("/db/neo4j/tx/commit", statements("CREATE (:Pending)"));
            assertThat(one.statusCode()).as(one.body()).isEqualTo(200);
            assertThat(two.statusCode()).as("a statement is a pending row: 2 + 2 > 3 " + two.body()).isEqualTo(503);
            assertThat(t.get("/metrics").body()).contains("sluice_transactions_open 2.0");

            // the classic one's client went away: rolled back after its idle second, its place given back
            Await.until("the idle classic transaction expires", Duration.ofSeconds(20),
                    () -> t.get("/metrics").body().contains("sluice_transactions_open 1.0"));
            assertThat(t.count("MATCH (h:Held) RETURN count(h)")).isZero();
            assertThat(t.post("/db/neo4j/tx", "").statusCode()).as("room again").isEqualTo(201);
            assertThat(delete(t, "/db/neo4j/query/v2/tx/" + queryId).statusCode()).isEqualTo(200);
        }
    }
}
