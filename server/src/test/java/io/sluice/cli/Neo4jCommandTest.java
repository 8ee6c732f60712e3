package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.GraphDatabase;
import picocli.CommandLine;

/**
 * {@code sluice neo4j --http}: Neo4j's own Community server from sluice's files, as a child process, serving its
 * HTTP API (discovery, the Query API, under {@code NEO4J_AUTH}) and Bolt on the same store, stopping cleanly on
 * SIGTERM.
 */
class Neo4jCommandTest {
    @TempDir
    Path dir;

    @Test
    void runsNeo4jsOwnServerWithHttpAndBoltThenStopsOnSigterm() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        try (Neo4jProcess neo4j = Neo4jProcess.startHttp(dir.resolve("home"), "neo4j/" + TestServer.PASSWORD,
                Map.of("server.queryapi.transaction_idle_timeout", "7s"))) {
            HttpResponse<String> discovery = http.send(HttpRequest.newBuilder(URI.create(neo4j.httpUrl() + "/"))
                    .header("Accept", "application/json").timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(discovery.statusCode()).isEqualTo(200);
            assertThat(discovery.body()).contains("\"neo4j_edition\":\"community\"")
                    .contains("\"bolt_direct\":\"bolt://127.0.0.1:" + neo4j.port + "\"");

            HttpRequest.Builder write = HttpRequest.newBuilder(URI.create(neo4j.httpUrl() + "/db/neo4j/query/v2"))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"statement\":\"CREATE (:Seen {by: 'http'})\"}"));
            assertThat(http.send(write.build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                    .as("no credentials").isEqualTo(401);
            HttpResponse<String> written = http.send(write.header("Authorization", TestServer.AUTH).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(written.statusCode()).as(written.body()).isEqualTo(202);

            try (var driver = GraphDatabase.driver("bolt://127.0.0.1:" + neo4j.port,
                    AuthTokens.basic("neo4j", TestServer.PASSWORD)); var session = driver.session()) {
                assertThat(session.run("MATCH (s:Seen {by: 'http'}) RETURN count(s) AS c").single().get("c").asLong())
                        .as("Bolt reads what HTTP wrote").isEqualTo(1);
            }
            assertThat(Files.readString(dir.resolve("home/conf/neo4j.conf")))
                    .contains("server.http.listen_address=127.0.0.1:" + neo4j.httpPort)
                    .contains("server.queryapi.transaction_idle_timeout=7s");

            assertThat(neo4j.terminate(Duration.ofSeconds(60))).as("exit code after SIGTERM").isIn(0, 143);
            assertThat(Files.readString(neo4j.log())).contains("neo4j stopped").doesNotContain("Failed to cleanly");
        }
    }

    @Test
    void settingsWithoutHttpAreRefused() {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new Neo4jCommand())
                .setErr(new PrintWriter(err))
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    cmd.getErr().println(e.getMessage());
                    return 2;
                })
                .execute("--data", dir.resolve("unused").toString(), "--setting", "db.transaction.timeout=5s");
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--setting needs --http");
        assertThat(dir.resolve("unused")).doesNotExist();
    }
}
