package io.sluice.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.ConfigLoader;
import io.sluice.server.SluiceServer;
import io.sluice.sink.BoltSink;
import io.sluice.config.HostPort;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.SessionConfig;

/**
 * {@code serve --neo4j}: HTTP callers are checked against the remote server's users (a real Neo4j process with
 * authentication on), while the writes run under sluice's own configured account.
 */
@Timeout(180)
class RemoteAuthTest {
    @Test
    void callersAreCheckedByTheRemoteServerAndWritesRunAsSluicesAccount() throws Exception {
        Path dir = Files.createTempDirectory("sluice-remote-auth-");
        int port = TestServer.freePort();
        try (Neo4jProcess neo4j = Neo4jProcess.start(dir.resolve("neo4j"), port, "neo4j/remote-admin-1")) {
            try (Driver admin = GraphDatabase.driver(neo4j.uri(), AuthTokens.basic("neo4j", "remote-admin-1"));
                    var session = admin.session(SessionConfig.forDatabase("system"))) {
                session.run("CREATE USER sluice SET PASSWORD 'sluice-account-1' CHANGE NOT REQUIRED").consume();
                session.run("CREATE USER dana SET PASSWORD 'dana-password-1' CHANGE NOT REQUIRED").consume();
            }
            var config = ConfigLoader.parse("templates:\n  item: {cypher: 'CREATE (:Item {id: row.id})', key: [id]}\n"
                    + "warmup: {write_path: 0s}\n");
            try (SluiceServer server = SluiceServer.start(SluiceServer.Options.remote(config, dir.resolve("sluice"),
                    new HostPort("127.0.0.1", 0), new BoltSink.Options(neo4j.uri(), "sluice", "sluice-account-1", "neo4j")));
                    HttpClient http = HttpClient.newHttpClient()) {
                assertThat(server.authentication()).isEqualTo("on (Neo4j's users)");
                for (var c : new String[][] {{"dana", "dana-password-1", "200"}, {"dana", "wrong-password", "401"},
                        {"nobody", "x", "401"}, {"neo4j", "remote-admin-1", "200"}}) {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(server.baseUrl()
                            + "/db/neo4j/write/item")).timeout(Duration.ofSeconds(30))
                            .header("Authorization", CredentialsTest.basic(c[0] + ":" + c[1]))
                            .POST(HttpRequest.BodyPublishers.ofString("{\"id\": 1}")).build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertThat(r.statusCode()).as("%s/%s: %s", c[0], c[1], r.body()).isEqualTo(Integer.parseInt(c[2]));
                }
            }
            try (Driver admin = GraphDatabase.driver(neo4j.uri(), AuthTokens.basic("neo4j", "remote-admin-1"));
                    var session = admin.session()) {
                assertThat(session.run("MATCH (i:Item) RETURN count(i) AS n").single().get("n").asLong())
                        .as("two accepted callers, two writes").isEqualTo(2);
            }
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }
}
