package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link WriteApiTest}'s cases (inherited: group commit, failure isolation, atomic requests, both JSON formats,
 * direct mode, schema and {@code CALL {} IN TRANSACTIONS}, driver reads) and {@link BadInputTest}'s, with sluice
 * writing over Bolt to a real {@code sluice neo4j} process instead of embedded Neo4j; plus async mode there.
 */
class BoltApiTest extends WriteApiTest {
    Path dir;
    Neo4jProcess neo4j;

    /** The same config as {@link WriteApiTest}, on a Bolt sink. */
    @Override
    TestServer startServer() throws Exception {
        dir = Files.createTempDirectory("sluice-bolt-api-");
        neo4j = Neo4jProcess.start(dir.resolve("neo4j"));
        return TestServer.startRemote(CONFIG, neo4j.uri());
    }

    @Override
    void afterServer() throws Exception {
        try {
            if (neo4j != null) {
                neo4j.terminate(Duration.ofSeconds(60));
            }
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }

    @Test
    void healthNamesTheBoltSinkAndTheServerVersion() throws Exception {
        JsonNode h = json(s.get("/health"));
        assertThat(h.get("status").asText()).isEqualTo("UP");
        assertThat(h.get("sink").asText()).isEqualTo("bolt " + neo4j.uri() + " (Neo4j "
                + org.neo4j.kernel.internal.Version.getNeo4jVersion() + ")");
        assertThat(s.server.neo4j()).as("no embedded Neo4j").isNull();
    }

    static Stream<Arguments> badInput() { // static: a method source, even with one instance per class
        // the over-large body case needs BadInputTest's small max_body_bytes; the rest holds for any config
        return BadInputTest.cases().filter(a -> !"over-large body".equals(a.get()[0]));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInput")
    void badInputGetsAClearErrorAndAffectsNothingElse(String what, String path, String body, int status, String code)
            throws Exception {
        BadInputTest.check(s, what, path, body, status, code);
    }

    @Test
    void syntaxErrorPositionsAreTheClientsOwn() throws Exception {
        var r = s.post("/db/neo4j/query/v2", "{\"statement\": \"MATCH (p:Person RETURN p\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).at("/errors/0/message").asText()).contains("(line 1, column 17 (offset: 16))")
                .doesNotContain("EXPLAIN");
    }

    @Test
    void asyncWritesAreAppliedWithTheirOffsetInTheRemoteDatabase() throws Exception {
        HttpResponse<String> r = s.post("/db/neo4j/write/person?mode=async", "{\"id\": 700001, \"name\": \"async\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        HttpResponse<String> q = s.post("/db/neo4j/tx/commit?mode=async", """
                {"statements": [{"statement": "CREATE (:Q {k: $k})", "parameters": {"k": 7}}]}""");
        assertThat(q.statusCode()).isEqualTo(202);
        long offset = json(q).get("offset").asLong();
        assertThat(json(s.get("/db/neo4j/applied?offset=" + offset + "&wait=30s")).get("applied").asBoolean()).isTrue();
        assertThat(s.count("MATCH (p:Person {id: 700001}) RETURN count(p)")).isEqualTo(1);
        assertThat(s.count("MATCH (q:Q {k: 7}) RETURN count(q)")).isEqualTo(1);
        assertThat(s.count("MATCH (o:SluicePosition {partition: 0}) WHERE o.source STARTS WITH 'journal:' RETURN o.next - 1")).isGreaterThanOrEqualTo(offset);
    }

    @Test
    void anAsyncWriteThatFailsOnApplyIsDeadLetteredAndTheStreamGoesOn() throws Exception {
        s.post("/db/neo4j/write/person?mode=async", "{\"id\": 700050, \"name\": \"first\"}");
        HttpResponse<String> dup = s.post("/db/neo4j/write/person?mode=async", "{\"id\": 700050, \"name\": \"dup\"}");
        assertThat(dup.statusCode()).as("accepted: it only fails when applied").isEqualTo(202);
        long dupOffset = json(dup).get("offset").asLong();
        long after = json(s.post("/db/neo4j/write/person?mode=async", "{\"id\": 700051, \"name\": \"after\"}"))
                .get("offset").asLong();
        assertThat(json(s.get("/db/neo4j/applied?offset=" + after + "&wait=30s")).get("applied").asBoolean()).isTrue();
        assertThat(s.count("MATCH (p:Person) WHERE p.id IN [700050, 700051] RETURN count(p)")).isEqualTo(2);
        JsonNode mine = null;
        for (JsonNode l : json(s.get("/db/neo4j/dead-letters")).get("dead_letters")) {
            if (l.get("offset").asLong() == dupOffset) {
                mine = l;
            }
        }
        assertThat(mine).as("dead letter for offset " + dupOffset).isNotNull();
        assertThat(mine.get("code").asText()).isEqualTo("Neo.ClientError.Schema.ConstraintValidationFailed");
        assertThat(mine.at("/request/r/0/name").asText()).isEqualTo("dup");
    }
}
