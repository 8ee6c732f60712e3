package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.TestServer;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every kind of bad input gets a 4xx in Neo4j's error format, and a good write beside it still commits. */
class BadInputTest {
    static TestServer s;

    @BeforeAll
    static void start() {
        s = TestServer.start("""
                templates:
                  person:
                    cypher: "CREATE (:Person {id: row.id, name: row.name})"
                    key: [id]
                    types: {id: integer, name: string}
                batch: {max_rows: 1000, max_wait: 30ms}
                admission: {max_body_bytes: 10000, max_pending_bytes: 1mb}
                """, false);
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    static Stream<Arguments> cases() {
        String big = "[" + "{\"id\":1,\"name\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"},".repeat(400) + "{\"id\":1}]";
        return Stream.of(
                Arguments.of("malformed JSON", "/db/neo4j/write/person", "{\"id\": 1,", 400, "Neo.ClientError.Request.InvalidFormat"),
                Arguments.of("empty body", "/db/neo4j/write/person", "", 400, "Neo.ClientError.Request.InvalidFormat"),
                Arguments.of("row not an object", "/db/neo4j/write/person", "[1, 2]", 400, "Neo.ClientError.Request.InvalidFormat"),
                Arguments.of("unknown template", "/db/neo4j/write/nope", "{\"id\": 1}", 400, "Neo.ClientError.Request.Invalid"),
                Arguments.of("missing field", "/db/neo4j/write/person", "{\"id\": 1}", 400, "Neo.ClientError.Statement.ParameterMissing"),
                Arguments.of("mistyped field", "/db/neo4j/write/person", "{\"id\": \"one\", \"name\": \"a\"}", 400, "Neo.ClientError.Statement.TypeError"),
                Arguments.of("over-large body", "/db/neo4j/write/person", big, 413, "Neo.ClientError.Request.EntityTooLarge"),
                Arguments.of("unknown mode", "/db/neo4j/write/person?mode=fast", "{\"id\": 1, \"name\": \"a\"}", 400, "Neo.ClientError.Request.Invalid"),
                Arguments.of("unknown database", "/db/other/write/person", "{\"id\": 1, \"name\": \"a\"}", 404, "Neo.ClientError.Database.DatabaseNotFound"),
                Arguments.of("syntax error", "/db/neo4j/query/v2", "{\"statement\": \"CREAT (n)\"}", 400, "Neo.ClientError.Statement.SyntaxError"),
                Arguments.of("missing parameter", "/db/neo4j/query/v2", "{\"statement\": \"CREATE (n {a: $a})\"}", 400, "Neo.ClientError.Statement.ParameterMissing"),
                Arguments.of("no statement", "/db/neo4j/query/v2", "{\"parameters\": {}}", 400, "Neo.ClientError.Request.InvalidFormat"),
                Arguments.of("statements not an array", "/db/neo4j/tx/commit", "{\"statements\": 3}", 400, "Neo.ClientError.Request.InvalidFormat"),
                Arguments.of("parameters not an object", "/db/neo4j/tx/commit", "{\"statements\": [{\"statement\": \"RETURN 1\", \"parameters\": [1]}]}", 400, "Neo.ClientError.Request.InvalidFormat"),
                Arguments.of("type error at apply", "/db/neo4j/query/v2", "{\"statement\": \"CREATE (n {a: $a})\", \"parameters\": {\"a\": {\"nested\": 1}}}", 400, "Neo.ClientError.Statement.TypeError"),
                Arguments.of("schema with other statements", "/db/neo4j/tx/commit", "{\"statements\": [{\"statement\": \"CREATE INDEX i1 IF NOT EXISTS FOR (n:A) ON (n.a)\"}, {\"statement\": \"CREATE (n)\"}]}", 400, "Neo.ClientError.Transaction.ForbiddenDueToTransactionType"),
                Arguments.of("unknown endpoint", "/db/neo4j/nothing", "{}", 404, "Neo.ClientError.Request.Invalid"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void badInputGetsAClearErrorAndAffectsNothingElse(String what, String path, String body, int status, String code)
            throws Exception {
        check(s, what, path, body, status, code);
    }

    /** Sends the bad request and a good write beside it, to {@code s}. */
    static void check(TestServer s, String what, String path, String body, int status, String code) throws Exception {
        long id = Math.abs((long) what.hashCode()) + 10;
        CompletableFuture<HttpResponse<String>> good = CompletableFuture.supplyAsync(
                () -> s.post("/db/neo4j/write/person", "{\"id\": " + id + ", \"name\": \"good\"}"));
        HttpResponse<String> r = s.post(path, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        var err = new ObjectMapper().readTree(r.body()).at("/errors/0");
        assertThat(err.get("code").asText()).isEqualTo(code);
        assertThat(err.get("message").asText()).isNotBlank();
        assertThat(good.get().statusCode()).as("a good write beside it").isEqualTo(200);
        assertThat(s.count("MATCH (p:Person {id: " + id + "}) RETURN count(p)")).isEqualTo(1);
    }
}
