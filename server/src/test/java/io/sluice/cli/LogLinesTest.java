package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.ChildJvm;
import io.sluice.support.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code sluice serve} logs, as an operator's log collector sees it: with {@code SLUICE_LOG_FORMAT=json}
 * every line on stderr is one JSON object; the notable events (start, schema, a dead letter, stop) each have
 * their line; requests have none at INFO.
 */
@Timeout(300)
class LogLinesTest {
    static final String CONFIG = """
            templates:
              hit:
                cypher: "MERGE (h:Hit {id: row.id})"
                key: [id]
            schema:
              - CREATE CONSTRAINT hit_id IF NOT EXISTS FOR (h:Hit) REQUIRE h.id IS UNIQUE
            neo4j: {pagecache: 64m}
            """;
    static final int REQUESTS = 60;
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void jsonLinesOneForEachNotableEventAndNoneForRequests(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("sluice.yaml"), CONFIG);
        int port = TestServer.freePort();
        List<String> args = List.of("serve", "--config", config.toString(), "--data", dir.resolve("data").toString(),
                "--http", "127.0.0.1:" + port, "--bolt", "127.0.0.1:" + TestServer.freePort(),
                "--warmup-write-path", "0s");
        Path log = dir.resolve("serve.log");
        long offset;
        try (ChildJvm serve = ChildJvm.start("1g", args, "sluice ready", log,
                Map.of("NEO4J_AUTH", "neo4j/" + TestServer.PASSWORD, "SLUICE_LOG_FORMAT", "json"))) {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            for (int i = 0; i < REQUESTS; i++) {
                String mode = i % 3 == 0 ? "async" : "sync";
                assertThat(post(http, port, "/db/neo4j/write/hit?mode=" + mode, "{\"id\": " + i + "}").statusCode())
                        .isIn(200, 202);
            }
            assertThat(post(http, port, "/db/neo4j/write/nope", "{\"id\": 1}").statusCode()).isEqualTo(400);
            // a constraint violation in async mode: one dead letter
            var dead = post(http, port, "/db/neo4j/query/v2?mode=async", "{\"statement\": \"CREATE (:Hit {id: 1})\"}");
            assertThat(dead.statusCode()).isEqualTo(202);
            offset = Long.parseLong(dead.body().replaceAll("(?s).*\"offset\":\\s*(\\d+).*", "$1"));
            assertThat(get(http, port, "/db/neo4j/applied?offset=" + offset + "&wait=60s").body())
                    .containsPattern("\"applied\":\\s*true");
            assertThat(serve.terminate(Duration.ofSeconds(120))).isEqualTo(143);
        }

        List<JsonNode> lines = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            if (line.startsWith("sluice ready: ")) {
                continue; // stdout, for whoever started it
            }
            JsonNode j = JSON.readTree(line); // throws on anything but JSON
            assertThat(j.isObject()).as(line).isTrue();
            assertThat(j.path("timestamp").isNumber()).as(line).isTrue();
            assertThat(j.path("level").asText()).as(line).isIn("ERROR", "WARN", "INFO");
            assertThat(j.path("loggerName").asText()).as(line).isNotBlank();
            assertThat(j.path("formattedMessage").asText()).as(line).isNotBlank();
            lines.add(j);
        }
        List<String> messages = lines.stream().map(j -> j.path("level").asText() + " " + j.path("formattedMessage").asText())
                .toList();
        assertThat(messages).as(String.join("\n", messages))
                .anySatisfy(m -> assertThat(m).startsWith("INFO schema: 1 statement(s) applied").contains("1 new: CREATE CONSTRAINT hit_id"))
                .anySatisfy(m -> assertThat(m).startsWith("INFO sluice started: HTTP http://127.0.0.1:" + port)
                        .contains("journal ", "authentication on"))
                .anySatisfy(m -> assertThat(m).startsWith("WARN dead letter: journal offset " + offset + ": Neo.ClientError.Schema.ConstraintValidationFailed"))
                .anySatisfy(m -> assertThat(m).startsWith("INFO sluice stopping"))
                .anySatisfy(m -> assertThat(m).startsWith("INFO sluice stopped"));
        int started = indexOf(messages, "INFO sluice started");
        int stopping = indexOf(messages, "INFO sluice stopping");
        assertThat(messages.subList(started + 1, stopping)).as("nothing per request at INFO")
                .noneMatch(m -> m.startsWith("INFO"));
        assertThat(lines).as("a line or so per event, not per request").hasSizeLessThan(REQUESTS / 3);
    }

    @Test
    void theFormatIsTextOrJson() {
        assertThat(Main.logFormat(null)).isEqualTo("text");
        assertThat(Main.logFormat("")).isEqualTo("text");
        assertThat(Main.logFormat("JSON")).isEqualTo("json");
        assertThat(Main.logFormat(" text ")).isEqualTo("text");
        assertThat(Main.logFormat("xml")).isNull();
    }

    private static int indexOf(List<String> messages, String prefix) {
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no line starts with " + prefix + ": " + messages);
    }

    private static HttpResponse<String> post(HttpClient http, int port, String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", TestServer.AUTH).header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(90)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> get(HttpClient http, int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", TestServer.AUTH).timeout(Duration.ofSeconds(90)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
