package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.TestServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * A client that cannot add {@code ?mode=} to Neo4j's URLs still gets the mode the config gives it: the
 * server-wide default, or its user's; an explicit {@code ?mode=} still wins.
 */
class DefaultModeTest {
    @Test
    void theConfigChoosesTheModeOfRequestsThatNameNone() throws Exception {
        try (TestServer s = TestServer.start("""
                templates:
                  item: {cypher: 'CREATE (:Item {id: row.id})', key: [id]}
                modes:
                  default: async
                  users: {steady: sync}
                """, true)) {
            try (var d = org.neo4j.driver.GraphDatabase.driver("bolt://" + s.bolt.host() + ":" + s.bolt.port(),
                    org.neo4j.driver.AuthTokens.basic("neo4j", TestServer.PASSWORD));
                    var session = d.session(org.neo4j.driver.SessionConfig.forDatabase("system"))) {
                session.run("CREATE USER steady SET PASSWORD 'steady-password-1' CHANGE NOT REQUIRED").consume();
            }
            HttpResponse<String> byDefault = s.post("/db/neo4j/query/v2", "{\"statement\":\"CREATE (:Item {id: 1})\"}");
            assertThat(byDefault.statusCode()).as(byDefault.body()).isEqualTo(202);
            assertThat(byDefault.body()).contains("\"offset\"");
            assertThat(s.post("/db/neo4j/write/item?mode=sync", "{\"id\": 2}").statusCode()).as("?mode= wins")
                    .isEqualTo(200);
            HttpResponse<String> steady = s.send(HttpRequest.newBuilder(URI.create(s.url("/db/neo4j/write/item")))
                    .header("Authorization", TestServer.basic("steady", "steady-password-1"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"id\": 3}")).build());
            assertThat(steady.statusCode()).as("the user's own mode: " + steady.body()).isEqualTo(200);
            assertThat(steady.body()).isEqualTo("{\"rows\":1}");
        }
    }
}
