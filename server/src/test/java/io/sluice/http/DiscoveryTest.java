package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.TestServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /} as a Neo4j 2026.08 server answers it (its answers captured from the real server): the discovery
 * document for JSON clients, with URLs built from where the client reached the server, without credentials;
 * browsers get the dashboard; other types 406.
 */
class DiscoveryTest {
    static TestServer s;
    static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void start() {
        s = TestServer.start("", true);
    }

    @AfterAll
    static void stop() {
        s.close();
    }

    static HttpResponse<String> get(String accept, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(s.url("/"))).GET();
        if (accept != null) {
            b.header("Accept", accept);
        }
        if (headers.length > 0) {
            b.headers(headers);
        }
        return s.sendRaw(b.build());
    }

    @Test
    void jsonClientsGetNeo4jsDiscoveryDocumentWithoutCredentials() throws Exception {
        for (String accept : new String[] {"application/json", null, "*/*"}) {
            HttpResponse<String> r = get(accept);
            assertThat(r.statusCode()).as("Accept: %s", accept).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
            assertThat(r.headers().firstValue("Vary")).hasValue("Accept");
            JsonNode d = JSON.readTree(r.body());
            String base = "http://127.0.0.1:" + s.server.httpAddress().getPort();
            String bolt = s.bolt.host() + ":" + s.bolt.port();
            assertThat(d.fieldNames()).toIterable().containsExactly("bolt_routing", "query", "transaction",
                    "bolt_direct", "neo4j_version", "neo4j_edition", "sluice");
            assertThat(d.get("bolt_routing").asText()).isEqualTo("neo4j://" + bolt);
            assertThat(d.get("bolt_direct").asText()).isEqualTo("bolt://" + bolt);
            assertThat(d.get("query").asText()).isEqualTo(base + "/db/{databaseName}/query/v2");
            assertThat(d.get("transaction").asText()).isEqualTo(base + "/db/{databaseName}/tx");
            assertThat(d.get("neo4j_version").asText()).isEqualTo("2026.08.1");
            assertThat(d.get("neo4j_edition").asText()).isEqualTo("community");
            assertThat(d.get("sluice").get("version").asText()).isNotEmpty();
        }
    }

    @Test
    void theUrlsFollowWhereTheClientCameFrom() throws Exception {
        // java.net.http sets Host itself; a proxy's X-Forwarded-* is what this exercises, as on Neo4j
        JsonNode d = JSON.readTree(get("application/json", "X-Forwarded-Host", "fwd.example:443",
                "X-Forwarded-Proto", "https").body());
        assertThat(d.get("query").asText()).isEqualTo("https://fwd.example:443/db/{databaseName}/query/v2");
        JsonNode privateIp = JSON.readTree(get("application/json", "X-Forwarded-Host", "10.0.0.5:7000").body());
        assertThat(privateIp.get("query").asText()).as("a forwarded private IP is ignored, as by Neo4j")
                .startsWith("http://127.0.0.1:");
    }

    @Test
    void aBrowserGetsTheDashboardAndOtherTypes406() {
        HttpResponse<String> browser = get("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8");
        assertThat(browser.statusCode()).isEqualTo(200);
        assertThat(browser.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
        HttpResponse<String> text = get("text/plain");
        assertThat(text.statusCode()).isEqualTo(406);
        assertThat(text.body()).isEqualTo("{\"errors\":[{\"code\":\"Neo.ClientError.Request.Invalid\",\"message\":\"Not Acceptable\"}]}");
    }
}
