package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.TestServer;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Query API request fields beyond the statement, and the summary fields of its answers, as Neo4j 2026.08
 * has them (docs/reference/neo4j-http-behaviour.md, section 2): accessMode, bookmarks, impersonatedUser, unknown
 * fields; queryType and the timings, in implicit and explicit transactions.
 */
class QueryApiFieldsTest {
    static final ObjectMapper JSON = new ObjectMapper();
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

    static JsonNode ok(HttpResponse<String> r) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        return JSON.readTree(r.body());
    }

    static String error(HttpResponse<String> r) throws Exception {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        return JSON.readTree(r.body()).at("/errors/0/code").asText();
    }

    @Test
    void aReadAccessModeRefusesAWriteAsNeo4jDoes() throws Exception {
        assertThat(error(s.post("/db/neo4j/query/v2", "{\"statement\":\"CREATE (:ReadMode)\",\"accessMode\":\"READ\"}")))
                .isEqualTo("Neo.ClientError.Statement.AccessMode");
        assertThat(s.count("MATCH (n:ReadMode) RETURN count(n)")).isZero();
        assertThat(ok(s.post("/db/neo4j/query/v2", "{\"statement\":\"RETURN 1 AS x\",\"accessMode\":\"read\"}"))
                .at("/data/values/0/0").asInt()).as("case-insensitive, as Neo4j").isEqualTo(1);
        assertThat(ok(s.post("/db/neo4j/query/v2", "{\"statement\":\"CREATE (:ReadMode)\",\"accessMode\":\"WRITE\"}"))
                .at("/queryType").asText()).isEqualTo("w");
        assertThat(error(s.post("/db/neo4j/query/v2", "{\"statement\":\"RETURN 1\",\"accessMode\":\"SOMETIMES\"}")))
                .isEqualTo("Neo.ClientError.Request.Invalid");

        JsonNode tx = ok(s.post("/db/neo4j/query/v2/tx", "{\"accessMode\":\"READ\"}"));
        String id = tx.at("/transaction/id").asText();
        assertThat(error(s.post("/db/neo4j/query/v2/tx/" + id, "{\"statement\":\"CREATE (:ReadMode)\"}")))
                .as("a read transaction, refused by Neo4j itself").isEqualTo("Neo.ClientError.Statement.AccessMode");
    }

    @Test
    void bookmarksImpersonationAndUnknownFields() throws Exception {
        JsonNode r = ok(s.post("/db/neo4j/query/v2", "{\"statement\":\"RETURN 1 AS x\",\"bookmarks\":[\"FB:abc\"]}"));
        assertThat(r.at("/bookmarks").isArray()).isTrue();
        assertThat(error(s.post("/db/neo4j/query/v2", "{\"statement\":\"RETURN 1\",\"bookmarks\":\"FB:abc\"}")))
                .isEqualTo("Neo.ClientError.Request.Invalid");
        assertThat(error(s.post("/db/neo4j/query/v2", "{\"statement\":\"RETURN 1\",\"impersonatedUser\":\"bob\"}")))
                .isEqualTo("Neo.ClientError.Statement.ArgumentError");
        assertThat(error(s.post("/db/neo4j/query/v2", "{\"statement\":\"RETURN 1\",\"statment\":\"typo\"}")))
                .isEqualTo("Neo.ClientError.Request.Invalid");
        assertThat(ok(s.post("/db/neo4j/query/v2", """
                {"statement":"RETURN 1 AS x","maxExecutionTime":5,"txMetadata":{"app":"t"},"notificationsFilter":{"minimumSeverityLevel":"OFF"}}"""))
                .at("/data/values/0/0").asInt()).as("fields Neo4j takes are taken").isEqualTo(1);
    }

    @Test
    void queryTypeAndTimingsWhereNeo4jPutsThem() throws Exception {
        JsonNode read = ok(s.post("/db/neo4j/query/v2", "{\"statement\":\"RETURN 1 AS x\"}"));
        assertThat(read.fieldNames()).toIterable()
                .containsExactly("data", "queryType", "resultAvailableAfter", "resultConsumedAfter", "bookmarks");
        assertThat(read.at("/queryType").asText()).isEqualTo("r");
        assertThat(read.at("/resultAvailableAfter").canConvertToLong()).isTrue();
        assertThat(ok(s.post("/db/neo4j/query/v2", "{\"statement\":\"CREATE (n:QT) RETURN n\",\"includeCounters\":true}"))
                .fieldNames()).toIterable().containsExactly("data", "counters", "queryType", "resultAvailableAfter",
                        "resultConsumedAfter", "bookmarks");
        assertThat(ok(s.post("/db/neo4j/query/v2", "{\"statement\":\"CREATE (n:QT) RETURN n\"}")).at("/queryType").asText())
                .isEqualTo("rw");
        assertThat(ok(s.post("/db/neo4j/query/v2", "{\"statement\":\"CREATE INDEX qt IF NOT EXISTS FOR (n:QT) ON (n.x)\"}"))
                .at("/queryType").asText()).isEqualTo("s");

        JsonNode tx = ok(s.post("/db/neo4j/query/v2/tx", "{\"statement\":\"CREATE (n:QT)\"}"));
        assertThat(tx.fieldNames()).toIterable()
                .containsExactly("data", "queryType", "resultAvailableAfter", "resultConsumedAfter", "transaction");
        assertThat(tx.at("/queryType").asText()).isEqualTo("w");
        assertThat(ok(s.post("/db/neo4j/query/v2/tx/" + tx.at("/transaction/id").asText() + "/commit", "")).fieldNames())
                .toIterable().containsExactly("bookmarks");
    }
}
