package io.sluice.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.batch.Ticker;
import io.sluice.bench.Scenario.RowSource;
import io.sluice.bench.Scenario.Workload;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closed-loop HTTP load: {@code clients} virtual threads, each sending its next request when the previous one
 * was answered, until the {@link Window} ends. Uses the JDK's {@link HttpClient} over HTTP/1.1 keep-alive
 * (one connection per client). Every request has a time-out, every loop a bound in time and in count
 * ({@link Tally.Client#record}), and {@link #run} returns only when every thread it started has stopped.
 */
final class HttpLoad {
    private static final Logger log = LoggerFactory.getLogger(HttpLoad.class);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** A transport failure (connection refused, reset) is followed by this pause, so a dead server is not spun on. */
    private static final Duration TRANSPORT_ERROR_PAUSE = Duration.ofMillis(10);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI uri;
    private final int clients;
    private final int rowsPerRequest;
    private final Workload workload;
    private final Ticker ticker;
    private final AtomicReference<String> firstTransportError = new AtomicReference<>();

    HttpLoad(URI uri, int clients, int rowsPerRequest, Workload workload, Ticker ticker) {
        if (!"127.0.0.1".equals(uri.getHost()) && !"localhost".equals(uri.getHost())) {
            throw new IllegalArgumentException("the bench only drives a loopback server, not " + uri);
        }
        this.uri = uri;
        this.clients = clients;
        this.rowsPerRequest = rowsPerRequest;
        this.workload = workload;
        this.ticker = ticker;
    }

    /** Runs the clients until {@code tally}'s window ends; returns when all of them (and the client) stopped. */
    void run(Tally tally) throws InterruptedException {
        ExecutorService httpThreads = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("sluice-bench-http-", 0).factory());
        HttpClient http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .executor(httpThreads)
                .build();
        ExecutorService clientThreads = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("sluice-bench-client-", 0).factory());
        try {
            for (int i = 0; i < clients; i++) {
                RowSource rows = workload.stream(i);
                Tally.Client counts = tally.newClient();
                clientThreads.execute(() -> loop(http, rows, counts, tally.window()));
            }
            clientThreads.shutdown();
            long leftNanos = tally.window().end() - ticker.read() + REQUEST_TIMEOUT.toNanos() + 5_000_000_000L;
            if (!clientThreads.awaitTermination(leftNanos, TimeUnit.NANOSECONDS)) {
                log.warn("bench clients still running {} after the end; interrupting them", REQUEST_TIMEOUT);
            }
        } finally {
            clientThreads.shutdownNow();
            clientThreads.awaitTermination(5, TimeUnit.SECONDS);
            http.shutdownNow();
            http.awaitTermination(Duration.ofSeconds(5));
            httpThreads.shutdownNow();
            httpThreads.awaitTermination(5, TimeUnit.SECONDS);
        }
        String err = firstTransportError.get();
        if (err != null) {
            log.warn("transport errors during the run; the first: {}", err);
        }
    }

    private void loop(HttpClient http, RowSource rows, Tally.Client counts, Window window) {
        while (!Thread.currentThread().isInterrupted() && ticker.read() < window.end()) {
            HttpRequest request = request(rows);
            long start = ticker.read();
            int status;
            try {
                status = http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (IOException e) {
                status = 0;
                firstTransportError.compareAndSet(null, e.toString());
            } catch (InterruptedException e) {
                return;
            }
            if (!counts.record(status, rowsPerRequest, start, ticker.read())) {
                log.warn("a bench client reached its bound of recorded requests; it stops early");
                return;
            }
            if (status == 0 && !pause()) {
                return;
            }
        }
    }

    private static boolean pause() {
        try {
            Thread.sleep(TRANSPORT_ERROR_PAUSE);
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }

    private HttpRequest request(RowSource rows) {
        return HttpRequest.newBuilder(uri)
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body(rows)))
                .build();
    }

    /** One JSON object, or an array of {@code rowsPerRequest} objects. */
    private byte[] body(RowSource rows) {
        try {
            if (rowsPerRequest == 1) {
                return JSON.writeValueAsBytes(rows.next());
            }
            List<Map<String, Object>> list = new ArrayList<>(rowsPerRequest);
            for (int i = 0; i < rowsPerRequest; i++) {
                list.add(rows.next());
            }
            return JSON.writeValueAsBytes(list);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot encode a row", e);
        }
    }
}
