package io.sluice.online;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.StatementResult;
import io.sluice.write.Statement;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A running sluice, over HTTP. A remote sluice knows only the templates of its own config, so the import sends its
 * statements as raw Cypher through {@code POST /db/{db}/tx/commit?mode=direct|sync} (Neo4j's classic transactional
 * format), one request per batch: the statements of a request commit together, and sluice's write path admits,
 * retries and isolates them as it does any client's. A 503 is {@link Result.Busy} (retried after its
 * Retry-After); a connection failure too. Its transient retries are read from its {@code /metrics}.
 */
final class RemoteTarget implements Target {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern RETRIES = Pattern.compile(
            "^sluice_transient_retries_total\\{code=\"([^\"]+)\"[^}]*} ([0-9.eE+]+)$");

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final String base;
    private final String database;
    private final String mode;
    private final String authorization;

    /**
     * {@code url}: {@code http(s)://[user:password@]host:port}; the credentials, when given, go in every
     * request's {@code Authorization} header, and nowhere else (not in messages: {@link #describe} omits them).
     */
    RemoteTarget(String url, String database, boolean direct) {
        URI u = URI.create(url);
        String info = u.getRawUserInfo();
        String plain = info == null ? url : url.replaceFirst(Pattern.quote(info + "@"), "");
        this.base = plain.endsWith("/") ? plain.substring(0, plain.length() - 1) : plain;
        this.authorization = info == null ? null : "Basic " + Base64.getEncoder().encodeToString(
                URLDecoder.decode(info.replace("+", "%2B"), StandardCharsets.UTF_8)
                        .getBytes(StandardCharsets.UTF_8));
        this.database = database;
        this.mode = direct ? "direct" : "sync";
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path));
        return authorization == null ? b : b.header("Authorization", authorization);
    }

    @Override
    public Result write(List<Statement> statements, long bytes) throws InterruptedException {
        return post(statements, mode);
    }

    @Override
    public Result run(Statement statement) throws InterruptedException {
        return post(List.of(statement), "sync");
    }

    private Result post(List<Statement> statements, String m) throws InterruptedException {
        List<Map<String, Object>> list = new ArrayList<>();
        for (Statement s : statements) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("statement", s.cypher());
            one.put("parameters", s.params());
            one.put("includeStats", true);
            list.add(one);
        }
        HttpResponse<byte[]> r;
        try {
            byte[] body = JSON.writeValueAsBytes(Map.of("statements", list));
            r = http.send(request("/db/" + database + "/tx/commit?mode=" + m)
                    .timeout(Duration.ofMinutes(10)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            return new Result.Busy("cannot reach sluice at " + base + ": " + e, Duration.ofSeconds(1));
        }
        try {
            JsonNode root = JSON.readTree(r.body());
            JsonNode errors = root.path("errors");
            if (errors.isArray() && !errors.isEmpty()) {
                Neo4jError e = new Neo4jError(errors.get(0).path("code").asText(), errors.get(0).path("message").asText());
                if (r.statusCode() == 503) {
                    long after = r.headers().firstValueAsLong("Retry-After").orElse(1);
                    return new Result.Busy(e.code() + ": " + e.message(), Duration.ofSeconds(Math.max(1, after)));
                }
                return Result.of(e);
            }
            if (r.statusCode() != 200) {
                return new Result.Failed(Neo4jError.unknown("HTTP " + r.statusCode() + " from " + base));
            }
            List<StatementResult> results = new ArrayList<>();
            for (JsonNode res : root.path("results")) {
                results.add(statementResult(res));
            }
            return new Result.Done(results);
        } catch (IOException e) {
            return new Result.Failed(Neo4jError.unknown("HTTP " + r.statusCode() + " with an unreadable body from " + base + ": " + e.getMessage()));
        }
    }

    @SuppressWarnings("unchecked")
    private static StatementResult statementResult(JsonNode res) {
        List<String> columns = new ArrayList<>();
        res.path("columns").forEach(c -> columns.add(c.asText()));
        List<List<Object>> rows = new ArrayList<>();
        for (JsonNode d : res.path("data")) {
            rows.add(JSON.convertValue(d.path("row"), List.class));
        }
        Map<String, Object> counters = res.has("stats") ? JSON.convertValue(res.get("stats"), Map.class) : Map.of();
        return new StatementResult(columns, rows, counters);
    }

    /** {@code sluice_transient_retries_total{code="..."}} of the sluice's metrics; empty when they cannot be read. */
    @Override
    public Map<String, Long> transientRetries() {
        Map<String, Long> out = new HashMap<>();
        try {
            HttpResponse<String> r = http.send(request("/metrics")
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                for (String line : r.body().split("\n")) {
                    Matcher m = RETRIES.matcher(line.strip());
                    if (m.matches()) {
                        out.merge(m.group(1), (long) Double.parseDouble(m.group(2)), Long::sum);
                    }
                }
            }
        } catch (IOException e) {
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return out;
    }

    @Override
    public String describe() {
        return "sluice at " + base;
    }

    @Override
    public void close() {
        http.close();
    }
}
