package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.TestServer;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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
                Arguments.of("no statement", "/db/neo4j/query/v2", "{\"parameters\": {}}", 400, "Neo.ClientError.Request.Invalid"),
                Arguments.of("statements not an array", "/db/neo4j/tx/commit", "{\"statements\": 3}", 200, "Neo.ClientError.Request.InvalidFormat"),
                Arguments.of("parameters not an object", "/db/neo4j/tx/commit", "{\"statements\": [{\"statement\": \"RETURN 1\", \"parameters\": [1]}]}", 200, "Neo.ClientError.Request.InvalidFormat"),
                Arguments.of("type error at apply", "/db/neo4j/query/v2", "{\"statement\": \"CREATE (n {a: $a})\", \"parameters\": {\"a\": {\"nested\": 1}}}", 400, "Neo.ClientError.Statement.TypeError"),
                Arguments.of("schema with other statements", "/db/neo4j/tx/commit", "{\"statements\": [{\"statement\": \"CREATE INDEX i1 IF NOT EXISTS FOR (n:A) ON (n.a)\"}, {\"statement\": \"CREATE (n)\"}]}", 200, "Neo.ClientError.Transaction.ForbiddenDueToTransactionType"),
                Arguments.of("unknown endpoint", "/db/neo4j/nothing", "{}", 404, "Neo.ClientError.Request.Invalid"),
                // the template route is matched by hand ahead of the router: shapes beyond it still reach the router
                Arguments.of("a path past a template's name", "/db/neo4j/write/person/x", "{\"id\": 1}", 404, "Neo.ClientError.Request.Invalid"),
                Arguments.of("a template with no name", "/db/neo4j/write/", "{\"id\": 1}", 400, "Neo.ClientError.Request.Invalid"),
                Arguments.of("an encoded unknown template", "/db/neo4j/write/n%6Fpe", "{\"id\": 1}", 400, "Neo.ClientError.Request.Invalid"),
                Arguments.of("an unknown database, encoded", "/db/%6Fther/write/person", "{\"id\": 1, \"name\": \"a\"}", 404, "Neo.ClientError.Database.DatabaseNotFound"),
                Arguments.of("result over the bound", "/db/neo4j/query/v2", "{\"statement\": \"UNWIND range(1, 1000001) AS x RETURN x\"}", 400, "Neo.ClientError.Request.Invalid"),
                Arguments.of("list result over the bound", "/db/neo4j/tx/commit", "{\"statements\": [{\"statement\": \"RETURN range(1, 1000000) AS l\"}]}", 200, "Neo.ClientError.Request.Invalid"),
                Arguments.of("nested result over the bound", "/db/neo4j/query/v2", "{\"statement\": \"RETURN {l: [range(1, 1000000)]} AS m\"}", 400, "Neo.ClientError.Request.Invalid"),
                Arguments.of("results of one request over the bound together", "/db/neo4j/tx/commit", "{\"statements\": [{\"statement\": \"RETURN range(1, 400000) AS l\"}, {\"statement\": \"RETURN range(1, 400000) AS l\"}, {\"statement\": \"RETURN range(1, 400000) AS l\"}]}", 200, "Neo.ClientError.Request.Invalid"),
                Arguments.of("LOAD CSV of a file outside the import folder", "/db/neo4j/query/v2", "{\"statement\": \"LOAD CSV FROM 'file:///etc/hostname' AS l RETURN l\"}", 400, "Neo.ClientError.Statement.ExternalResourceFailed"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void badInputGetsAClearErrorAndAffectsNothingElse(String what, String path, String body, int status, String code)
            throws Exception {
        check(s, what, path, body, status, code);
    }

    @Test
    void badAppliedAndDeadLetterQueriesGetAClearError() throws Exception {
        for (String q : List.of("applied?offset=1&wait=5", "applied?offset=-5", "applied?offset=x", "applied?offset=1&wait=2h",
                "dead-letters?limit=-1", "dead-letters?from=x")) {
            HttpResponse<String> r = s.get("/db/neo4j/" + q);
            assertThat(r.statusCode()).as(q + ": " + r.body()).isEqualTo(400);
            assertThat(new ObjectMapper().readTree(r.body()).at("/errors/0/code").asText()).as(q)
                    .isEqualTo("Neo.ClientError.Request.Invalid");
        }
        assertThat(s.get("/db/neo4j/dead-letters?limit=100000000000").statusCode()).as("a limit above the cap").isEqualTo(200);
    }

    @Test
    void loadCsvReadsFilesOfTheImportFolderOnly() throws Exception {
        java.nio.file.Files.writeString(s.dataDir.resolve("import").resolve("ok.csv"), "a,b\n1,2\n");
        HttpResponse<String> r = s.post("/db/neo4j/query/v2", "{\"statement\": \"LOAD CSV FROM 'file:///ok.csv' AS l RETURN l\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(r.body()).contains("[\"1\",\"2\"]");
        java.nio.file.Files.writeString(s.dataDir.resolve("import").resolve("bad.csv"), "\"a\"b,c\n");
        HttpResponse<String> bad = s.post("/db/neo4j/query/v2", "{\"statement\": \"LOAD CSV FROM 'file:///bad.csv' AS l RETURN l\"}");
        assertThat(bad.statusCode()).as("a malformed CSV file: " + bad.body()).isEqualTo(400);
        HttpResponse<String> out = s.post("/db/neo4j/query/v2", "{\"statement\": \"LOAD CSV FROM 'file:///../../../../../../../etc/hostname' AS l RETURN l\"}");
        assertThat(out.statusCode()).as("climbing out of the import folder: " + out.body()).isEqualTo(400);
    }

    @Test
    void aChunkedBodyOverTheLimitGets413() throws Exception {
        byte[] big = ("[" + "{\"id\":1,\"name\":\"x\"},".repeat(1000) + "{\"id\":1,\"name\":\"x\"}]").getBytes();
        HttpResponse<String> r = s.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(s.url("/db/neo4j/write/person")))
                .POST(java.net.http.HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(big)))
                .build());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(413);
        assertThat(r.body()).contains("Neo.ClientError.Request.EntityTooLarge");
        HttpResponse<String> ok = s.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(s.url("/db/neo4j/write/person")))
                .POST(java.net.http.HttpRequest.BodyPublishers.ofInputStream(
                        () -> new java.io.ByteArrayInputStream("{\"id\": 4711, \"name\": \"chunked\"}".getBytes())))
                .build());
        assertThat(ok.statusCode()).as("a chunked body within the limit: " + ok.body()).isEqualTo(200);
    }

    @Test
    void anImplicitStatementWithAResultOverTheBoundRanAndSaysSo() throws Exception {
        HttpResponse<String> r = s.post("/db/neo4j/tx/commit", """
                {"statements": [{"statement": "UNWIND range(1, 3) AS x CALL (x) { CREATE (:Implicit {x: x}) } IN TRANSACTIONS RETURN range(1, 400000) AS l"}]}""");
        assertThat(r.statusCode()).as("the classic API answers errors with 200, as Neo4j: " + r.body()).isEqualTo(200);
        assertThat(r.body()).contains("ran to completion");
        assertThat(s.count("MATCH (i:Implicit) RETURN count(i)")).as("its effects are committed").isEqualTo(3);
    }

    @Test
    void aWrongMethodGets405WithAllow() {
        HttpResponse<String> put = s.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(s.url("/db/neo4j/write/person")))
                .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("{}")).build());
        assertThat(put.statusCode()).isEqualTo(405);
        assertThat(put.headers().firstValue("Allow")).hasValue("POST");
        assertThat(put.body()).contains("Neo.ClientError.Request.Invalid");
        HttpResponse<String> post = s.post("/health", "{}");
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).hasValue("GET");
    }

    @Test
    void aClientsModeTextNeverBecomesAMetricLabel() {
        assertThat(s.post("/db/neo4j/write/person?mode=junk4711", "{\"id\": 1, \"name\": \"a\"}").statusCode()).isEqualTo(400);
        String metrics = s.get("/metrics").body();
        assertThat(metrics).doesNotContain("junk4711").contains("mode=\"invalid\"");
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
        assertThat(good.get(TestServer.REQUEST_TIMEOUT.toSeconds(), TimeUnit.SECONDS).statusCode())
                .as("a good write beside it").isEqualTo(200);
        assertThat(s.count("MATCH (p:Person {id: " + id + "}) RETURN count(p)")).isEqualTo(1);
    }
}
