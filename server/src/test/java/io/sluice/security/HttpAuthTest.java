package io.sluice.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.support.RawHttp;
import io.sluice.support.TestServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.SessionConfig;
import org.neo4j.driver.exceptions.AuthenticationException;

/**
 * Authentication on every protected endpoint and mode (no credentials, wrong ones, a malformed header, the right
 * ones: status, Neo4j code, challenge, and nothing written on refusal), the open endpoints, who may send what,
 * a password change seen at once, and sluice's Bolt listener refusing drivers without credentials or access.
 */
@Timeout(180)
class HttpAuthTest {
    static final String YAML = """
            templates:
              item: {cypher: 'CREATE (:Item {id: row.id})', key: [id]}
            security:
              max_failed_attempts: 1000
              access:
                users: {app: templates, reader: read}
            """;
    static TestServer s;
    static String boltUri;

    @BeforeAll
    static void start() {
        s = TestServer.start(YAML, true);
        boltUri = "bolt://" + s.bolt.host() + ":" + s.bolt.port();
        try (Driver d = GraphDatabase.driver(boltUri, AuthTokens.basic("neo4j", TestServer.PASSWORD));
                var session = d.session(SessionConfig.forDatabase("system"))) {
            session.run("CREATE USER app SET PASSWORD 'app-password-1' CHANGE NOT REQUIRED").consume();
            session.run("CREATE USER reader SET PASSWORD 'reader-password-1' CHANGE NOT REQUIRED").consume();
            session.run("CREATE USER carol SET PASSWORD 'carol-password-1' CHANGE NOT REQUIRED").consume();
            // wrong passwords go to this user: Neo4j locks a user name after three, and neo4j must stay usable
            session.run("CREATE USER victim SET PASSWORD 'victim-password-1' CHANGE NOT REQUIRED").consume();
        }
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    static String basic(String user, String password) {
        return CredentialsTest.basic(user + ":" + password);
    }

    /** One protected request: method, path, body (null for GET), and the status the right credentials get. */
    record Call(String method, String path, String body, int ok) {}

    static List<Call> protectedCalls(long id) {
        List<Call> calls = new ArrayList<>();
        for (String mode : List.of("sync", "async", "direct")) {
            int ok = mode.equals("async") ? 202 : 200;
            calls.add(new Call("POST", "/db/neo4j/tx/commit?mode=" + mode, "{\"statements\":[{\"statement\":"
                    + "\"CREATE (:Item {id: $id})\",\"parameters\":{\"id\":" + id + "}}]}", ok));
            calls.add(new Call("POST", "/db/neo4j/query/v2?mode=" + mode,
                    "{\"statement\":\"CREATE (:Item {id: $id})\",\"parameters\":{\"id\":" + id + "}}", 202));
            calls.add(new Call("POST", "/db/neo4j/write/item?mode=" + mode, "{\"id\":" + id + "}", ok));
        }
        calls.add(new Call("GET", "/db/neo4j/applied?offset=0&wait=5s", null, 200));
        calls.add(new Call("GET", "/db/neo4j/dead-letters", null, 200));
        calls.add(new Call("GET", "/metrics", null, 200));
        calls.add(new Call("GET", "/status", null, 200));
        return calls;
    }

    static HttpResponse<String> call(Call c, String authorization) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(s.url(c.path())));
        b = c.body() == null ? b.GET() : b.POST(HttpRequest.BodyPublishers.ofString(c.body()))
                .header("Content-Type", "application/json");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return s.sendRaw(b.build());
    }

    static long items(long id) {
        return s.count("MATCH (i:Item {id: $id}) RETURN count(i)", Map.of("id", id));
    }

    @Test
    void everyProtectedEndpointAndModeRefusesWithoutTheRightCredentials() {
        long id = 1000;
        for (Call c : protectedCalls(id)) {
            HttpResponse<String> none = call(c, null);
            assertThat(none.statusCode()).as("no credentials: %s %s", c.method(), c.path()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Basic realm=\"Neo4j\", Bearer realm=\"Neo4j\"");
            assertThat(none.headers().firstValue("Content-Type")).as("as Neo4j's filter")
                    .hasValue("application/json;charset=utf-8");
            assertThat(none.body()).isEqualTo("{\"errors\":[{\"code\":\"Neo.ClientError.Security.Unauthorized\","
                    + "\"message\":\"No authentication header supplied.\"}]}");

            HttpResponse<String> wrong = call(c, basic("ghost", "not-a-password"));
            assertThat(wrong.statusCode()).as("wrong credentials: %s", c.path()).isEqualTo(401);
            assertThat(wrong.body()).contains("Neo.ClientError.Security.Unauthorized", "Invalid credential.");

            HttpResponse<String> malformed = call(c, "Basic !!!");
            assertThat(malformed.statusCode()).as("malformed: %s", c.path()).isEqualTo(400);
            assertThat(malformed.headers().firstValue("WWW-Authenticate")).isEmpty();
            assertThat(malformed.body()).contains("Neo.ClientError.Request.InvalidFormat", "Invalid authentication header.");

            HttpResponse<String> bearer = call(c, "Bearer some.jwt.token");
            assertThat(bearer.statusCode()).isEqualTo(401);
            assertThat(bearer.body()).contains("scheme 'bearer' is not supported");
            assertThat(items(id)).as("nothing written by refused requests to %s", c.path()).isZero();
        }
        long expected = 0;
        for (Call c : protectedCalls(id)) {
            HttpResponse<String> right = call(c, TestServer.AUTH);
            assertThat(right.statusCode()).as("right credentials: %s %s: %s", c.method(), c.path(), right.body())
                    .isEqualTo(c.ok());
            if (c.method().equals("POST")) {
                expected++;
                if (c.path().contains("mode=async")) {
                    long offset = Long.parseLong(right.body().replaceAll(".*\"offset\":(\\d+).*", "$1"));
                    assertThat(s.get("/db/neo4j/applied?offset=" + offset + "&wait=10s").body())
                            .contains("\"applied\":true");
                }
            }
        }
        assertThat(items(id)).isEqualTo(expected);
    }

    @Test
    void repeatedFailuresAreSlowedDownWith429() {
        Call c = new Call("POST", "/db/neo4j/query/v2", "{\"statement\":\"RETURN 1\"}", 202);
        for (int i = 0; i < 3; i++) {
            assertThat(call(c, basic("victim", "wrong-" + i)).statusCode()).isEqualTo(401);
        }
        for (String password : List.of("wrong-3", "victim-password-1")) {
            HttpResponse<String> locked = call(c, basic("victim", password));
            assertThat(locked.statusCode()).as("locked, whatever the password").isEqualTo(429);
            assertThat(locked.body()).isEqualTo("{\"errors\":[{\"code\":\"Neo.ClientError.Security."
                    + "AuthenticationRateLimit\",\"message\":\"Too many failed authentication requests. Please wait"
                    + " 5 seconds and try again.\"}]}");
        }
    }

    @Test
    void discoveryTheDashboardAndHealthAreOpenButHealthTellsStrangersOnlyTheStatus() {
        HttpResponse<String> root = call(new Call("GET", "/", null, 200), null);
        assertThat(root.statusCode()).isEqualTo(200);
        HttpResponse<String> health = call(new Call("GET", "/health", null, 200), null);
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).isEqualTo("{\"status\":\"UP\"}");
        HttpResponse<String> full = call(new Call("GET", "/health", null, 200), TestServer.AUTH);
        assertThat(full.body()).contains("\"templates\"", "\"journal_applied_offset\"");
    }

    /** 403, except on the classic API, which answers a refused statement as Neo4j answers any: 200 with errors. */
    static int refusedStatus(Call c) {
        return c.path().contains("/tx/commit") ? 200 : 403;
    }

    @Test
    void eachUserSendsOnlyWhatTheConfigAllows() {
        long id = 2000;
        String app = basic("app", "app-password-1");
        String reader = basic("reader", "reader-password-1");
        Call cypherWrite = new Call("POST", "/db/neo4j/query/v2", "{\"statement\":\"CREATE (:Item {id: " + id + "})\"}", 200);
        Call template = new Call("POST", "/db/neo4j/write/item", "{\"id\":" + id + "}", 200);
        Call read = new Call("POST", "/db/neo4j/query/v2", "{\"statement\":\"MATCH (i:Item) RETURN count(i) AS n\"}", 202);
        Call schema = new Call("POST", "/db/neo4j/tx/commit",
                "{\"statements\":[{\"statement\":\"CREATE INDEX item_x IF NOT EXISTS FOR (i:Item) ON (i.x)\"}]}", 200);

        for (Call refused : List.of(cypherWrite, read, schema)) {
            HttpResponse<String> r = call(refused, app);
            assertThat(r.statusCode()).as("templates-only user, %s", refused.body()).isEqualTo(refusedStatus(refused));
            assertThat(r.body()).contains("Neo.ClientError.Security.Forbidden");
        }
        for (Call refused : List.of(cypherWrite, template, schema)) {
            HttpResponse<String> r = call(refused, reader);
            assertThat(r.statusCode()).as("read-only user, %s", refused.body()).isEqualTo(refusedStatus(refused));
            assertThat(r.body()).contains("Neo.ClientError.Security.Forbidden");
        }
        assertThat(items(id)).as("the refusals changed nothing").isZero();
        assertThat(call(read, reader).statusCode()).isEqualTo(202);
        assertThat(call(template, app).statusCode()).isEqualTo(200);
        assertThat(items(id)).isEqualTo(1);
    }

    @Test
    void aPasswordChangedOverBoltIsSeenAtOnce() {
        Call read = new Call("POST", "/db/neo4j/query/v2", "{\"statement\":\"RETURN 1 AS one\"}", 202);
        assertThat(call(read, basic("carol", "carol-password-1")).statusCode()).isEqualTo(202);
        try (Driver d = GraphDatabase.driver(boltUri, AuthTokens.basic("carol", "carol-password-1"));
                var session = d.session(SessionConfig.forDatabase("system"))) {
            session.run("ALTER CURRENT USER SET PASSWORD FROM 'carol-password-1' TO 'carol-password-2'").consume();
        }
        assertThat(call(read, basic("carol", "carol-password-1")).statusCode()).as("the old one, cached before").isEqualTo(401);
        assertThat(call(read, basic("carol", "carol-password-2")).statusCode()).isEqualTo(202);
    }

    /** One template write on {@code socket} (kept alive); the status of its answer. */
    static int writeOn(java.net.Socket socket, String authorization, long id) throws java.io.IOException {
        RawHttp.send(socket, RawHttp.post("/db/neo4j/write/item?mode=async", authorization, "{\"id\":" + id + "}"));
        return RawHttp.read(socket.getInputStream()).status();
    }

    @Test
    void aConnectionLetInIsRefusedOnceItsUsersPasswordChanges() throws Exception {
        try (Driver d = GraphDatabase.driver(boltUri, AuthTokens.basic("neo4j", TestServer.PASSWORD));
                var session = d.session(SessionConfig.forDatabase("system"))) {
            session.run("CREATE USER dave SET PASSWORD 'dave-password-1' CHANGE NOT REQUIRED").consume();
        }
        URI url = URI.create(s.url("/"));
        try (java.net.Socket socket = new java.net.Socket(url.getHost(), url.getPort())) {
            socket.setSoTimeout(30_000);
            String dave = basic("dave", "dave-password-1");
            assertThat(writeOn(socket, dave, 9_001)).isEqualTo(202);
            assertThat(writeOn(socket, dave, 9_002)).as("the same header again, on the same connection").isEqualTo(202);
            assertThat(writeOn(socket, basic("dave", "wrong-password"), 9_003)).as("another header").isEqualTo(401);
        }
        try (java.net.Socket socket = new java.net.Socket(url.getHost(), url.getPort())) {
            socket.setSoTimeout(30_000);
            String dave = basic("dave", "dave-password-1");
            assertThat(writeOn(socket, dave, 9_004)).isEqualTo(202);
            try (Driver d = GraphDatabase.driver(boltUri, AuthTokens.basic("dave", "dave-password-1"));
                    var session = d.session(SessionConfig.forDatabase("system"))) {
                session.run("ALTER CURRENT USER SET PASSWORD FROM 'dave-password-1' TO 'dave-password-2'").consume();
            }
            assertThat(writeOn(socket, dave, 9_005)).as("remembered on this connection, but the users changed")
                    .isEqualTo(401);
        }
    }

    @Test
    void theBoltListenerWantsTheSameCredentialsAndAccess() {
        try (Driver none = GraphDatabase.driver(boltUri, AuthTokens.none())) {
            assertThatThrownBy(none::verifyConnectivity).isInstanceOf(AuthenticationException.class);
        }
        try (Driver wrong = GraphDatabase.driver(boltUri, AuthTokens.basic("carol", "wrong-password"))) {
            assertThatThrownBy(wrong::verifyConnectivity).isInstanceOf(AuthenticationException.class);
        }
        try (Driver right = GraphDatabase.driver(boltUri, AuthTokens.basic("app", "app-password-1"));
                var session = right.session()) {
            right.verifyConnectivity();
            // a templates-only user may not send Cypher, over Bolt as over HTTP
            assertThatThrownBy(() -> session.run("RETURN 1 AS one").consume())
                    .isInstanceOf(org.neo4j.driver.exceptions.ClientException.class)
                    .hasMessageContaining("templates only");
        }
        try (Driver reader = GraphDatabase.driver(boltUri, AuthTokens.basic("reader", "reader-password-1"));
                var session = reader.session()) {
            assertThat(session.run("RETURN 1 AS one").single().get("one").asInt()).isEqualTo(1);
            assertThatThrownBy(() -> session.run("CREATE (:Item {id: -1})").consume()).as("a read-only user")
                    .isInstanceOf(org.neo4j.driver.exceptions.ClientException.class)
                    .hasMessageContaining("read-only");
        }
    }
}
