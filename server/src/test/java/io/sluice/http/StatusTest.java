package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.Await;
import io.sluice.support.TestServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The operator's figures: latency and per-template series in /metrics, and /status's history of them; the Bolt
 * front end's series, which the dashboard's Bolt chart and {@code sluice status}'s Bolt line read from /status.
 */
@Timeout(120)
class StatusTest {
    static final String CONFIG = """
            templates:
              hit:
                cypher: "MERGE (k:Hit {id: row.id}) ON CREATE SET k.n = 1 ON MATCH SET k.n = k.n + 1"
                key: [id]
            """;
    static final ObjectMapper JSON = new ObjectMapper();
    static TestServer server;

    @BeforeAll
    static void start() {
        server = TestServer.start(CONFIG, true);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void latencyAndTemplatesAreInMetricsAndStatusKeepsTheirHistory() throws Exception {
        long before = System.currentTimeMillis();
        for (int i = 0; i < 5; i++) {
            assertThat(server.post("/db/neo4j/write/hit?mode=sync", "[{\"id\": 1}, {\"id\": 2}]").statusCode())
                    .isEqualTo(200);
        }
        assertThat(server.post("/db/neo4j/write/nope?mode=sync", "{\"id\": 1}").statusCode()).isEqualTo(400);
        assertThat(server.post("/db/neo4j/query/v2", "{\"statement\": \"CREATE (:Raw)\"}").statusCode())
                .isEqualTo(202);

        String metrics = server.get("/metrics").body();
        assertThat(metrics).contains(
                "sluice_request_seconds_bucket{mode=\"sync\",le=\"0.001\"}",
                "sluice_request_seconds_count{mode=\"sync\"} 7", // the Query API's default mode is sync too
                "sluice_request_latency_seconds{mode=\"sync\",quantile=\"0.99\"}",
                "sluice_template_requests_total{status=\"200\",template=\"hit\"} 5",
                "sluice_template_rows_total{template=\"hit\"} 10",
                "sluice_template_requests_total{status=\"400\",template=\"(unknown)\"} 1",
                "sluice_template_latency_seconds{template=\"hit\",quantile=\"0.5\"}",
                "sluice_sink_up 1",
                "process_cpu_usage");
        assertThat(metrics).containsPattern("sluice_template_requests_total\\{status=\"20[02]\",template=\"\\(cypher\\)\"} 1");
        assertThat(metrics).as("a client's template name is never a label").doesNotContain("template=\"nope\"");
        assertThat(metrics).as("rows written, not requests").contains("sluice_rows_total{mode=\"sync\"} 11");

        String hits = "sluice_template_requests_total{status=\"200\",template=\"hit\"}";
        var seen = new java.util.concurrent.atomic.AtomicReference<JsonNode>();
        Await.until("a sample with the writes", Duration.ofSeconds(30), () -> {
            try {
                seen.set(JSON.readTree(server.get("/status").body()));
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            JsonNode values = seen.get().path("series").path(hits);
            return values.size() > 0 && values.get(values.size() - 1).asDouble() == 5;
        });
        JsonNode status = seen.get();
        assertThat(status.path("health").path("status").asText()).isEqualTo("UP");
        assertThat(status.path("interval_ms").asLong()).isEqualTo(1000);
        int n = status.path("t").size();
        assertThat(n).isPositive();
        assertThat(status.path("t").get(n - 1).asLong()).isGreaterThanOrEqualTo(before - 1000);
        status.path("series").forEach(values -> assertThat(values.size()).isEqualTo(n));
        assertThat(status.path("series").has("sluice_request_seconds_bucket{mode=\"sync\",le=\"0.001\"}")).isFalse();

        long last = status.path("t").get(n - 1).asLong();
        JsonNode later = JSON.readTree(server.get("/status?since=" + last).body());
        later.path("t").forEach(t -> assertThat(t.asLong()).isGreaterThan(last));
        assertThat(server.get("/status?since=yesterday").statusCode()).isEqualTo(400);
    }

    @Test
    void boltsConnectionsMessagesFailuresAndTransactionsReachStatusAndItsText() throws Exception {
        String begins = "sluice_bolt_transactions_total{event=\"begin\"}";
        String syntax = "sluice_bolt_failures_total{code=\"Neo.ClientError.Statement.SyntaxError\"}";
        JsonNode before = JSON.readTree(server.get("/status").body()).path("series");
        assertThat(before.has(begins)).as("exported at zero before any Bolt client").isTrue();
        assertThat(before.has(syntax)).isTrue();
        try (var driver = org.neo4j.driver.GraphDatabase.driver("bolt://" + server.bolt.host() + ":"
                + server.bolt.port(), org.neo4j.driver.AuthTokens.basic("neo4j", TestServer.PASSWORD));
                var session = driver.session(org.neo4j.driver.SessionConfig.forDatabase("neo4j"))) {
            try (var tx = session.beginTransaction()) {
                tx.run("CREATE (:BoltSeen)").consume();
                tx.commit();
            }
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> session.run("RETURN 1 +").consume())
                    .isInstanceOf(org.neo4j.driver.exceptions.ClientException.class);
            var seen = new java.util.concurrent.atomic.AtomicReference<JsonNode>();
            Await.until("a sample with the Bolt session in it, its connection still open", Duration.ofSeconds(30),
                    () -> {
                        try {
                            seen.set(JSON.readTree(server.get("/status").body()));
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                        JsonNode series = seen.get().path("series");
                        return last(series, begins) == 1 && last(series, syntax) == 1
                                && last(series, "sluice_bolt_connections") >= 1;
                    });
            JsonNode series = seen.get().path("series");
            assertThat(last(series, "sluice_bolt_messages_total{message=\"RUN\"}")).isGreaterThanOrEqualTo(2);
            assertThat(last(series, "sluice_bolt_transactions_total{event=\"commit\"}")).isEqualTo(1);
            assertThat(io.sluice.status.StatusText.render(server.url(""), seen.get()))
                    .containsPattern("(?m)^bolt +[1-9][0-9]* connections   messages/s [0-9.]+   failures/s ");
        }
    }

    private static double last(JsonNode series, String id) {
        JsonNode values = series.path(id);
        return values.isEmpty() ? -1 : values.get(values.size() - 1).asDouble();
    }

    @Test
    void statusNeedsCredentials() throws Exception {
        var r = server.sendRaw(HttpRequest.newBuilder(URI.create(server.url("/status"))).GET().build());
        assertThat(r.statusCode()).isEqualTo(401);
    }
}
