package io.sluice.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.status.StatusText;
import io.sluice.time.Time;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice status}: a running sluice's health, rates, latency, lag and dead letters ({@code GET /status},
 * rendered by {@link StatusText}), printed once, or redrawn every {@code --watch} seconds like {@code top} until
 * Ctrl-C. Credentials as {@code sluice import} takes them: in the URL, or {@code NEO4J_USERNAME} (default neo4j)
 * and {@code NEO4J_PASSWORD}. Exit status: 0 when UP, 1 when the server answers anything else (DOWN, WARMING,
 * STOPPING), 2 when it cannot be reached or refuses the credentials.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Show a running sluice's health, rates, latency, journal lag and dead letters.")
final class StatusCommand implements Callable<Integer> {
    @Option(names = "--url", paramLabel = "http(s)://[user:password@]host:port",
            description = "the sluice to ask (default: the HTTP address in SLUICE_HTTP, as serve reads it, an"
                    + " address of every interface asked on 127.0.0.1; else http://127.0.0.1:7474); credentials in the"
                    + " URL, or in NEO4J_USERNAME and NEO4J_PASSWORD")
    String url;

    /** Where a {@code serve} started with the same environment listens (SLUICE_HTTP), seen from this machine. */
    static String defaultUrl(String sluiceHttp) {
        if (sluiceHttp == null || sluiceHttp.isBlank()) {
            return "http://127.0.0.1:7474";
        }
        String hp = sluiceHttp.strip();
        int colon = hp.lastIndexOf(':');
        String host = colon < 0 ? hp : hp.substring(0, colon);
        String port = colon < 0 ? "7474" : hp.substring(colon + 1);
        if (host.isEmpty() || host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            host = "127.0.0.1";
        }
        return "http://" + host + ":" + port;
    }

    @Option(names = "--watch", arity = "0..1", fallbackValue = "2", paramLabel = "SECONDS",
            description = "redraw every SECONDS (default 2 when given without a value) until Ctrl-C")
    Double watch;

    @Option(names = "--health", description = "ask only GET /health (open without credentials): one line, exit 0 when"
            + " UP, 1 otherwise (a container's or orchestrator's health check)")
    boolean health;

    @Spec
    CommandSpec spec;

    private final Time time = Time.SYSTEM;

    @Override
    public Integer call() throws Exception {
        String url = this.url != null ? this.url : defaultUrl(System.getenv("SLUICE_HTTP"));
        if (health) {
            PrintWriter out = spec.commandLine().getOut();
            try {
                return health(url, out);
            } catch (RuntimeException | java.net.URISyntaxException e) { // 1, never 2: a health check's 2 is reserved
                out.println("sluice at " + url + ": cannot be asked (" + e + ")");
                out.flush();
                return 1;
            }
        }
        URI base = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
        String authorization = authorization(base);
        URI status = new URI(base.getScheme(), null, base.getHost(), base.getPort(), base.getPath() + "/status", null,
                null);
        String shown = new URI(base.getScheme(), null, base.getHost(), base.getPort(), base.getPath(), null, null)
                .toString();
        if (watch != null && !(watch >= 0.2 && watch <= 3600)) {
            throw new IllegalArgumentException("--watch takes seconds in [0.2, 3600], got " + watch);
        }
        PrintWriter out = spec.commandLine().getOut();
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            while (true) {
                Page page = fetch(http, status, authorization, shown);
                if (watch == null) {
                    out.print(page.text());
                    out.flush();
                    return page.exit();
                }
                out.print("\033[H\033[2J" + page.text() + "\n(every " + watch + " s; Ctrl-C to stop)\n");
                out.flush();
                time.sleep(Duration.ofMillis(Math.round(watch * 1000)));
            }
        }
    }

    /** What to print and the exit status it means. */
    record Page(String text, int exit) {}

    static Page fetch(HttpClient http, URI status, String authorization, String shown) throws InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(status).timeout(Duration.ofSeconds(10)).GET();
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        HttpResponse<String> r;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return new Page("sluice at " + shown + ": cannot be reached (" + e + ")\n", 2);
        }
        if (r.statusCode() == 401 || r.statusCode() == 403 || r.statusCode() == 429) {
            return new Page("sluice at " + shown + ": " + r.statusCode() + ", credentials refused (put them in the URL"
                    + " or in NEO4J_USERNAME and NEO4J_PASSWORD)\n", 2);
        }
        if (r.statusCode() != 200) {
            return new Page("sluice at " + shown + ": /status answered " + r.statusCode() + ": " + r.body() + "\n", 2);
        }
        JsonNode doc;
        try {
            doc = new ObjectMapper().readTree(r.body());
        } catch (IOException e) {
            return new Page("sluice at " + shown + ": /status answered what is not JSON: " + e.getMessage() + "\n", 2);
        }
        return new Page(StatusText.render(shown, doc), "UP".equals(doc.path("health").path("status").asText()) ? 0 : 1);
    }

    /** {@code --health}: {@code GET /health} at {@code url}, a line, exit 0 when UP, 1 otherwise. */
    private static int health(String url, PrintWriter out) throws InterruptedException, java.net.URISyntaxException {
        URI base = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
        String shown = new URI(base.getScheme(), null, base.getHost(), base.getPort(), base.getPath(), null, null)
                .toString();
        URI h = new URI(base.getScheme(), null, base.getHost(), base.getPort(), base.getPath() + "/health", null,
                null);
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            Page page = health(http, h, shown);
            out.print(page.text());
            out.flush();
            return page.exit();
        }
    }

    /** {@code GET /health}: its status in a line; exit 0 when UP. */
    static Page health(HttpClient http, URI health, String shown) throws InterruptedException {
        HttpResponse<String> r;
        try {
            r = http.send(HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(5)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) { // 1, not 2: a container health check's 2 is reserved
            return new Page("sluice at " + shown + ": cannot be reached (" + e + ")\n", 1);
        }
        String status;
        try {
            status = new ObjectMapper().readTree(r.body()).path("status").asText("?");
        } catch (IOException e) {
            status = "? (not JSON)";
        }
        return new Page("sluice at " + shown + ": " + status + " (" + r.statusCode() + ")\n",
                r.statusCode() == 200 && "UP".equals(status) ? 0 : 1);
    }

    /** Basic credentials from the URL's user info, else from the environment, else none. */
    static String authorization(URI base) {
        String user;
        String password;
        if (base.getRawUserInfo() != null) {
            String[] parts = base.getRawUserInfo().split(":", 2);
            user = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
            password = parts.length > 1 ? URLDecoder.decode(parts[1], StandardCharsets.UTF_8) : "";
        } else if (System.getenv("NEO4J_PASSWORD") != null) {
            user = System.getenv().getOrDefault("NEO4J_USERNAME", "neo4j");
            password = System.getenv("NEO4J_PASSWORD");
        } else {
            return null;
        }
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }
}
