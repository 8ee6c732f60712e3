package io.sluice.bench;

import io.sluice.time.Time;
import io.sluice.bench.Scenario.RowSource;
import io.sluice.bench.Scenario.Workload;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closed-loop HTTP load with the JDK's {@link HttpClient} (HTTP/1.1 keep-alive, one connection per client):
 * {@code clients} virtual threads, each sending its next request when the previous one was answered, until the
 * window ends. Simple and dependable, but it costs about twice the CPU per request of {@link NettyHttpLoad}
 * (measured; see docs), which on a small machine shared with the server lowers what the server can do.
 * Every request has a time-out; every loop is bounded in time and in count ({@link Tally.Client#record}).
 */
final class JdkHttpLoad implements Load {
    private static final Logger log = LoggerFactory.getLogger(JdkHttpLoad.class);

    private final HttpTarget target;
    private final Workload workload;
    private final Time time;
    private final AtomicReference<String> firstTransportError = new AtomicReference<>();
    private ExecutorService httpThreads;
    private ExecutorService clientThreads;
    private HttpClient http;
    private Window window;

    JdkHttpLoad(HttpTarget target, Workload workload, Time time) {
        this.target = target;
        this.workload = workload;
        this.time = time;
    }

    @Override
    public void start(Tally tally) {
        window = tally.window();
        httpThreads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sluice-bench-http-", 0).factory());
        http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .executor(httpThreads)
                .build();
        clientThreads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sluice-bench-client-", 0).factory());
        for (int i = 0; i < target.clients(); i++) {
            RowSource rows = workload.stream(i);
            Tally.Client counts = tally.newClient();
            clientThreads.execute(() -> loop(rows, counts));
        }
        clientThreads.shutdown();
    }

    @Override
    public void awaitStop() throws InterruptedException {
        try {
            long left = window.end() - time.nanos() + HttpTarget.REQUEST_TIMEOUT.toNanos() + 5_000_000_000L;
            if (!clientThreads.awaitTermination(left, TimeUnit.NANOSECONDS)) {
                log.warn("bench clients still running {} after the end; interrupting them", HttpTarget.REQUEST_TIMEOUT);
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

    private void loop(RowSource rows, Tally.Client counts) {
        URI uri = target.uri();
        while (!Thread.currentThread().isInterrupted() && time.nanos() < window.end()) {
            HttpRequest request = HttpRequest.newBuilder(uri)
                    .timeout(HttpTarget.REQUEST_TIMEOUT)
                    .header("Content-Type", "application/json")
                    .headers(target.authorization() == null ? new String[0]
                            : new String[] {"Authorization", target.authorization()})
                    .POST(HttpRequest.BodyPublishers.ofByteArray(target.body(rows)))
                    .build();
            long start = time.nanos();
            int status;
            boolean reportedErrors = false;
            try {
                HttpResponse<byte[]> answer = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
                status = answer.statusCode();
                reportedErrors = status >= 200 && status < 300 && Answers.reportErrors(answer.body());
            } catch (IOException e) {
                status = 0;
                firstTransportError.compareAndSet(null, e.toString());
            } catch (InterruptedException e) {
                return;
            }
            if (!counts.record(status, reportedErrors, target.rowsPerRequest(), start, time.nanos())) {
                log.warn("a bench client reached its bound of recorded requests; it stops early");
                return;
            }
            if (status == 0 && !pause(time)) {
                return;
            }
        }
    }

    private static boolean pause(Time time) {
        try {
            time.sleep(HttpTarget.TRANSPORT_ERROR_PAUSE);
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }
}
