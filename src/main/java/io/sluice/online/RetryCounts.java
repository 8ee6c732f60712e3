package io.sluice.online;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Transient retries sluice's write path made (deadlocks, lock timeouts ...), per Neo4j status code, read from a
 * sluice's {@code /metrics} ({@code sluice_transient_retries_total{code="..."}}). An import reports the difference
 * between its start and its end.
 */
final class RetryCounts {
    private static final Pattern LINE = Pattern.compile("^sluice_transient_retries_total\\{code=\"([^\"]+)\"[^}]*} ([0-9.eE+]+)$");

    private RetryCounts() {}

    /** The counts now; empty when the metrics cannot be read. */
    static Map<String, Long> read(HttpClient http, String baseUrl) {
        Map<String, Long> out = new HashMap<>();
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
                for (String line : r.body().split("\n")) {
                    Matcher m = LINE.matcher(line.strip());
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

    /** {@code after - before}, per code, without the zeros. */
    static Map<String, Long> since(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> out = new HashMap<>();
        after.forEach((code, n) -> {
            long d = n - before.getOrDefault(code, 0L);
            if (d > 0) {
                out.put(code, d);
            }
        });
        return out;
    }
}
