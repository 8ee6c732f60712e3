package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.TestServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Query API's explicit transactions over real HTTP, answered as Neo4j 2026.08 answers them: open, read your
 * own write before anyone else sees it, commit; roll back; an unknown id is 404; an error ends the transaction;
 * another user cannot use it; a template-only user cannot open one.
 */
class QueryTransactionsTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static TestServer s;

    @BeforeAll
    static void start() {
        s = TestServer.start("security:\n  access:\n    users: {app: templates}\n", true);
        try (var d = org.neo4j.driver.GraphDatabase.driver("bolt://" + s.bolt.host() + ":" + s.bolt.port(),
                org.neo4j.driver.AuthTokens.basic("neo4j", TestServer.PASSWORD));
                var session = d.session(org.neo4j.driver.SessionConfig.forDatabase("system"))) {
            session.run("CREATE USER app SET PASSWORD 'app-password-1' CHANGE NOT REQUIRED").consume();
            session.run("CREATE USER other SET PASSWORD 'other-password-1' CHANGE NOT REQUIRED").consume();
        }
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    static HttpResponse<String> delete(String path) {
        return s.send(HttpRequest.newBuilder(URI.create(s.url(path))).method("DELETE",
                HttpRequest.BodyPublishers.ofString("{}")).build());
    }

    static long items(String name) {
        return s.count("MATCH (i:TxItem {name: $n}) RETURN count(i)", Map.of("n", name));
    }

    @Test
    void openReadYourOwnWriteThenCommit() throws Exception {
        HttpResponse<String> open = s.post("/db/neo4j/query/v2/tx",
                "{\"statement\":\"CREATE (i:TxItem {name: 'a'}) RETURN i.name AS n\",\"includeCounters\":true}");
        assertThat(open.statusCode()).as(open.body()).isEqualTo(202);
        JsonNode o = JSON.readTree(open.body());
        String id = o.at("/transaction/id").asText();
        assertThat(id).matches("[0-9a-f]{6}");
        assertThat(o.at("/transaction/expires").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
        assertThat(o.at("/data/values/0/0").asText()).isEqualTo("a");
        assertThat(o.at("/counters/nodesCreated").asInt()).isEqualTo(1);
        assertThat(items("a")).as("not visible outside before the commit").isZero();

        HttpResponse<String> run = s.post("/db/neo4j/query/v2/tx/" + id,
                "{\"statement\":\"MATCH (i:TxItem {name: 'a'}) RETURN count(i) AS c\"}");
        assertThat(JSON.readTree(run.body()).at("/data/values/0/0").asInt()).as("its own write").isEqualTo(1);
        assertThat(JSON.readTree(s.post("/db/neo4j/query/v2/tx/" + id, "").body()).at("/transaction/id").asText())
                .as("an empty body keeps it alive").isEqualTo(id);

        HttpResponse<String> commit = s.post("/db/neo4j/query/v2/tx/" + id + "/commit", "");
        assertThat(commit.statusCode()).as(commit.body()).isEqualTo(202);
        assertThat(commit.body()).isEqualTo("{\"bookmarks\":[]}");
        assertThat(items("a")).isEqualTo(1);
        assertThat(s.post("/db/neo4j/query/v2/tx/" + id, "").statusCode()).as("committed: gone").isEqualTo(404);
    }

    @Test
    void rollbackLeavesNothingAndASecondOneIs404() throws Exception {
        String id = JSON.readTree(s.post("/db/neo4j/query/v2/tx", "{}").body()).at("/transaction/id").asText();
        assertThat(s.post("/db/neo4j/query/v2/tx/" + id, "{\"statement\":\"CREATE (:TxItem {name: 'b'})\"}")
                .statusCode()).isEqualTo(202);
        HttpResponse<String> rollback = delete("/db/neo4j/query/v2/tx/" + id);
        assertThat(rollback.statusCode()).isEqualTo(200);
        assertThat(rollback.body()).isEqualTo("{}");
        assertThat(items("b")).isZero();
        HttpResponse<String> again = delete("/db/neo4j/query/v2/tx/" + id);
        assertThat(again.statusCode()).isEqualTo(404);
        assertThat(again.body()).startsWith("{\"errors\":[{\"code\":\"Neo.ClientError.Request.Invalid\","
                + "\"message\":\"Transaction with Id: \\\"" + id + "\\\" was not found.");
    }

    @Test
    void anErrorEndsTheTransactionAndRollsItBack() throws Exception {
        String id = JSON.readTree(s.post("/db/neo4j/query/v2/tx", "{\"statement\":\"CREATE (:TxItem {name: 'c'})\"}")
                .body()).at("/transaction/id").asText();
        HttpResponse<String> bad = s.post("/db/neo4j/query/v2/tx/" + id, "{\"statement\":\"RETRUN 1\"}");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("Neo.ClientError.Statement.SyntaxError").doesNotContain("results");
        assertThat(s.post("/db/neo4j/query/v2/tx/" + id + "/commit", "").statusCode()).isEqualTo(404);
        assertThat(items("c")).isZero();
    }

    @Test
    void onlyItsOwnerUsesItAndTemplateOnlyUsersOpenNone() throws Exception {
        String id = JSON.readTree(s.post("/db/neo4j/query/v2/tx", "{}").body()).at("/transaction/id").asText();
        HttpResponse<String> other = s.send(HttpRequest.newBuilder(URI.create(s.url("/db/neo4j/query/v2/tx/" + id)))
                .header("Authorization", TestServer.basic("other", "other-password-1"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build());
        assertThat(other.statusCode()).as("another user's transaction is not found").isEqualTo(404);
        assertThat(delete("/db/neo4j/query/v2/tx/" + id).statusCode()).isEqualTo(200);
        HttpResponse<String> app = s.send(HttpRequest.newBuilder(URI.create(s.url("/db/neo4j/query/v2/tx")))
                .header("Authorization", TestServer.basic("app", "app-password-1"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build());
        assertThat(app.statusCode()).isEqualTo(403);
        assertThat(app.body()).contains("Neo.ClientError.Security.Forbidden");
    }

    @Test
    void bodiesAreReadAsNeo4jReadsThem() throws Exception {
        for (String body : new String[] {"{\"bogus\":1}", "{\"statement\":", "{\"accessMode\":\"SOMETIMES\"}",
                "{\"statement\":\"RETURN 1\",\"parameters\":[1]}"}) {
            HttpResponse<String> r = s.post("/db/neo4j/query/v2/tx", body);
            assertThat(r.statusCode()).as(body).isEqualTo(400);
            assertThat(JSON.readTree(r.body()).at("/errors/0/code").asText()).as(body)
                    .isEqualTo("Neo.ClientError.Request.Invalid");
            assertThat(JSON.readTree(r.body()).at("/errors/0/message").asText()).as(body).startsWith("Bad Request");
        }
        assertThat(s.post("/db/neo4j/query/v2/tx", "{\"impersonatedUser\":\"app\"}").body())
                .contains("Neo.ClientError.Statement.ArgumentError", "Impersonation is not supported");
        String id = JSON.readTree(s.post("/db/neo4j/query/v2/tx", "{\"accessMode\":\"read\",\"bookmarks\":[],"
                + "\"txMetadata\":{\"app\":\"x\"},\"maxExecutionTime\":5}").body()).at("/transaction/id").asText();
        HttpResponse<String> settings = s.post("/db/neo4j/query/v2/tx/" + id, "{\"statement\":\"RETURN 1\","
                + "\"accessMode\":\"READ\"}");
        assertThat(settings.statusCode()).as("a statement's request has no transaction settings").isEqualTo(400);
        assertThat(JSON.readTree(s.post("/db/neo4j/query/v2/tx/" + id, "{\"statement\":\"\"}").body())
                .at("/transaction/id").asText()).as("an empty statement is a keep-alive").isEqualTo(id);
        HttpResponse<String> write = s.post("/db/neo4j/query/v2/tx/" + id, "{\"statement\":\"CREATE (:TxItem"
                + " {name: 'read'})\"}");
        assertThat(write.statusCode()).isEqualTo(400);
        assertThat(write.body()).as("accessMode READ: a read transaction").contains("Neo.ClientError.Statement.AccessMode");
        assertThat(items("read")).isZero();
    }

    @Test
    void onAnotherDatabaseItIsNotFoundAndGoesOn() throws Exception {
        String id = JSON.readTree(s.post("/db/neo4j/query/v2/tx", "{}").body()).at("/transaction/id").asText();
        HttpResponse<String> other = s.post("/db/other/query/v2/tx/" + id, "{\"statement\":\"RETURN 1\"}");
        assertThat(other.statusCode()).isEqualTo(404);
        assertThat(other.body()).as("the transaction's not-found, as Neo4j").contains("Neo.ClientError.Request.Invalid",
                "Transaction with Id: \\\"" + id + "\\\" was not found.");
        assertThat(delete("/db/other/query/v2/tx/" + id).statusCode()).isEqualTo(404);
        assertThat(s.post("/db/neo4j/query/v2/tx/" + id, "").statusCode()).isEqualTo(202);
        assertThat(delete("/db/neo4j/query/v2/tx/" + id).statusCode()).isEqualTo(200);
    }
}
