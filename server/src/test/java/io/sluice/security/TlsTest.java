package io.sluice.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.ConfigLoader;
import io.sluice.server.SluiceServer;
import io.sluice.config.HostPort;
import io.sluice.support.BoltWire;
import io.sluice.support.TestCertificates;
import io.sluice.support.TestServer;
import io.sluice.support.WebSocketBolt;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.exceptions.ServiceUnavailableException;

/**
 * HTTPS only (plain HTTP off) and TLS required on sluice's Bolt listener, from a certificate this test makes
 * with the JDK's keytool: a client that trusts it gets in, plain HTTP finds nothing listening, a plain Bolt
 * driver is turned away.
 */
@Timeout(180)
class TlsTest {
    static Path dir;
    static TestCertificates certs;
    static SluiceServer server;
    static int plainPort;
    static int boltPort;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-tls-");
        certs = TestCertificates.create(dir.resolve("certs"));
        plainPort = TestServer.freePort();
        boltPort = TestServer.freePort();
        String yaml = "templates:\n  item: {cypher: 'CREATE (:Item {id: row.id})', key: [id]}\n"
                + "neo4j: {pagecache: 32m}\nwarmup: {write_path: 0s}\n"
                + "tls:\n  certificate: " + certs.certificate() + "\n  private_key: " + certs.privateKey() + "\n"
                + "  https: 127.0.0.1:" + TestServer.freePort() + "\n  http: false\n  bolt: required\n";
        server = SluiceServer.start(new SluiceServer.Options(ConfigLoader.parse(yaml), dir.resolve("data"),
                new HostPort("127.0.0.1", plainPort), new HostPort("127.0.0.1", boltPort))
                .withInitialAuth(new InitialAuth.Given(TestServer.PASSWORD, false)));
    }

    @AfterAll
    static void stop() {
        server.close();
        TestServer.deleteRecursively(dir);
    }

    /** A TLS context that trusts the test's certificate. */
    static SSLContext trustingContext() throws Exception {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(certs.trustStore());
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, tmf.getTrustManagers(), null);
        return tls;
    }

    static HttpClient trusting() throws Exception {
        return HttpClient.newBuilder().sslContext(trustingContext()).connectTimeout(Duration.ofSeconds(10)).build();
    }

    @Test
    void httpsServesAClientThatTrustsTheCertificate() throws Exception {
        try (HttpClient client = trusting()) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(server.httpsUrl()
                    + "/db/neo4j/write/item")).timeout(Duration.ofSeconds(30)).header("Authorization", TestServer.AUTH)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"id\": 1}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            HttpResponse<String> none = client.send(HttpRequest.newBuilder(URI.create(server.httpsUrl()
                    + "/db/neo4j/write/item")).timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"id\": 2}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(none.statusCode()).as("authentication still applies over TLS").isEqualTo(401);
        }
        long items = server.neo4j().database().executeTransactionally("MATCH (i:Item) RETURN count(i) AS n",
                java.util.Map.of(), res -> (Long) res.next().get("n"));
        assertThat(items).isEqualTo(1);
    }

    @Test
    void plainHttpIsOff() {
        assertThatThrownBy(server::baseUrl).isInstanceOf(IllegalStateException.class);
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()) {
            assertThatThrownBy(() -> client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + plainPort
                    + "/health")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(ConnectException.class);
        }
    }

    @Test
    void aClientThatDoesNotTrustTheCertificateIsRefused() {
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()) {
            assertThatThrownBy(() -> client.send(HttpRequest.newBuilder(URI.create(server.httpsUrl() + "/health"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(IOException.class);
        }
    }

    /**
     * Bolt over a WebSocket inside TLS ({@code wss://}, as the browser build of the JavaScript driver opens it for
     * {@code bolt+s://} and {@code neo4j+s://}): the handshake, a wrong password refused, a statement answered.
     */
    @Test
    void boltOverWebSocketWithTls() throws Exception {
        SSLContext tls = trustingContext();
        URI uri = URI.create("wss://127.0.0.1:" + boltPort + "/");
        try (BoltWire w = WebSocketBolt.connect(uri, tls)) {
            assertThat(w.handshake(BoltWire.version(5, 4, 4))).containsExactly(0, 0, 4, 5);
            w.send(BoltWire.hello(Map.of()), BoltWire.logon("neo4j", TestServer.PASSWORD + "-wrong"));
            assertThat((int) w.receive().tag()).isEqualTo(BoltWire.SUCCESS);
            assertThat(BoltWire.meta(w.receive()).get("code")).isEqualTo("Neo.ClientError.Security.Unauthorized");
        }
        try (BoltWire w = WebSocketBolt.connect(uri, tls)) {
            w.handshake(BoltWire.version(5, 4, 4));
            w.send(BoltWire.hello(Map.of()), BoltWire.logon("neo4j", TestServer.PASSWORD),
                    BoltWire.run("RETURN 41 + 1 AS answer"), BoltWire.pullAll());
            assertThat((int) w.receive().tag()).isEqualTo(BoltWire.SUCCESS);
            assertThat((int) w.receive().tag()).isEqualTo(BoltWire.SUCCESS);
            assertThat(BoltWire.meta(w.receive()).get("fields")).isEqualTo(List.of("answer"));
            assertThat(w.receive().fields()).containsExactly(List.of(42L));
            assertThat((int) w.receive().tag()).isEqualTo(BoltWire.SUCCESS);
        }
    }

    @Test
    void boltRequiresTls() {
        try (Driver tls = GraphDatabase.driver("bolt+ssc://127.0.0.1:" + boltPort,
                AuthTokens.basic("neo4j", TestServer.PASSWORD)); var session = tls.session()) {
            assertThat(session.run("RETURN 1 AS one").single().get("one").asInt()).isEqualTo(1);
        }
        try (Driver plain = GraphDatabase.driver("bolt://127.0.0.1:" + boltPort,
                AuthTokens.basic("neo4j", TestServer.PASSWORD))) {
            assertThatThrownBy(plain::verifyConnectivity).isInstanceOf(ServiceUnavailableException.class);
        }
    }
}
