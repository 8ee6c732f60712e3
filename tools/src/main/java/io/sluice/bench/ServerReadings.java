package io.sluice.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.server.SluiceServer;
import io.sluice.time.Time;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the bench reads from a sluice server around a measured window: its {@code /metrics}, with the load
 * process's CPU, at both ends of the window ({@link #read}), the difference showing where the time went; and after
 * an async mode's window, when the journal's backlog has been applied ({@link #awaitApplied},
 * {@link #awaitKafkaApplied}), waiting at most {@link #DRAIN_LIMIT}.
 */
final class ServerReadings {
    /** Bench's logger: the bench's warnings name one logger, as before the split. */
    private static final Logger log = LoggerFactory.getLogger(Bench.class);

    private final BenchOptions options;
    private final Time time;

    ServerReadings(BenchOptions options, Time time) {
        this.options = options;
        this.time = time;
    }

    /** How long the bench waits for an async mode's journal backlog to be applied after its window. */
    static final Duration DRAIN_LIMIT = Duration.ofMinutes(5);

    /** Waits until every journaled write is applied, at most {@link #DRAIN_LIMIT}; the seconds from {@code since}. */
    double awaitApplied(HttpClient probe, SluiceServer server, long since, String authorization)
            throws InterruptedException {
        try {
            var mapper = new ObjectMapper();
            String db = options.serverConfig().neo4j().database();
            long last = mapper.readTree(probe.send(Bench.authorized(HttpRequest.newBuilder(
                    URI.create(server.baseUrl() + "/health")), authorization).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).get("journal_next_offset").asLong() - 1;
            long deadline = time.nanos() + DRAIN_LIMIT.toNanos();
            while (last >= 0) {
                if (time.nanos() > deadline) {
                    log.warn("the journal was not applied within {}; the figures count what was", DRAIN_LIMIT);
                    break;
                }
                var r = probe.send(Bench.authorized(HttpRequest.newBuilder(URI.create(server.baseUrl()
                        + "/db/" + db + "/applied?offset=" + last + "&wait=30s")), authorization).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (mapper.readTree(r.body()).get("applied").asBoolean()) {
                    break;
                }
            }
        } catch (IOException e) {
            log.warn("cannot wait for the journal to be applied: {}", e.toString());
        }
        return Math.max(0, (time.nanos() - since) / 1e9);
    }

    /**
     * Waits until the Kafka journal has nothing left to apply ({@code journal_lag_rows} in {@code /health}: the
     * topic's end offsets less the graph's positions, refreshed every 250 ms by the server), polling every 100 ms
     * for at most 5 minutes; returns the seconds from {@code since} to then.
     */
    double awaitKafkaApplied(HttpClient probe, SluiceServer server, long since, String authorization)
            throws InterruptedException {
        var mapper = new ObjectMapper();
        long deadline = time.nanos() + DRAIN_LIMIT.toNanos();
        try {
            while (time.nanos() < deadline) {
                var health = mapper.readTree(probe.send(Bench.authorized(HttpRequest.newBuilder(
                        URI.create(server.baseUrl() + "/health")), authorization).build(),
                        HttpResponse.BodyHandlers.ofString()).body());
                if (health.path("journal_lag_rows").asLong(-1) == 0) {
                    break;
                }
                time.sleep(Duration.ofMillis(100));
            }
        } catch (IOException e) {
            log.warn("cannot wait for the Kafka journal to be applied: {}", e.toString());
        }
        return Math.max(0, (time.nanos() - since) / 1e9);
    }

    static ServerStats read(HttpClient probe, URI metrics, String authorization, ProcessHandle load)
            throws InterruptedException {
        try {
            return ServerStats.fetch(probe, metrics, authorization).withProcess(load);
        } catch (IOException | RuntimeException e) {
            log.warn("cannot read the server's metrics ({}); server figures will be missing", e.toString());
            return ServerStats.NONE;
        }
    }
}
