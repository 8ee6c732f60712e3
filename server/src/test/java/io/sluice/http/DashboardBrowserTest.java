package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.front.Door;
import io.sluice.support.Chromium;
import io.sluice.support.TestServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dashboard in a real browser: headless Chromium (Debian's package, driven over the DevTools protocol by
 * {@link Chromium}) loads {@code /} from a test server with authentication on, under a little load (template
 * writes in sync and async mode, a Query API write, an unknown template, a Bolt driver's explicit transaction and
 * a statement Bolt answers with FAILURE). It asks for credentials, refuses a wrong password, signs in with the right
 * one, and then shows every chart with data and the template in its table, but no sources' charts or line (this
 * server applies no application topics); once source series exist (registered here as {@code KafkaSources}
 * registers them, and a stand-in door registered with the server's doors, with a paused partition in /health:
 * this test has no broker) their two charts and header line
 * appear, the line naming the paused partition and why. It fits a phone's width, asks again when the credentials
 * stop working, and says nothing at the error level (its console,
 * uncaught exceptions, the browser's log: failed loads, Content-Security-Policy violations) but the browser's own
 * line for each 401 that asked for credentials. Skipped, saying so, when Chromium is not installed (.ci/run
 * installs it).
 */
class DashboardBrowserTest {
    static final String CONFIG = """
            templates:
              hit:
                cypher: "MERGE (k:Hit {id: row.id}) ON CREATE SET k.n = 1 ON MATCH SET k.n = k.n + 1"
                key: [id]
            """;
    static final List<String> CHARTS = List.of("rows", "answers", "latency", "batch", "commit", "pending", "journal",
            "retries", "transactions", "bolt");
    /** Shown only on a server whose source series exist. */
    static final List<String> SOURCE_CHARTS = List.of("sources-lag", "sources-records");

    static Path chromium;
    static TestServer server;
    static ScheduledExecutorService load;
    static org.neo4j.driver.Driver driver;
    static final AtomicLong sent = new AtomicLong();
    /** Set once the test has registered source series: the load then counts records applied and dead-lettered. */
    static final java.util.concurrent.atomic.AtomicBoolean sources = new java.util.concurrent.atomic.AtomicBoolean();

    @BeforeAll
    static void start() {
        chromium = Chromium.find().orElse(null);
        server = TestServer.start(CONFIG, true);
        driver = org.neo4j.driver.GraphDatabase.driver("bolt://" + server.bolt.host() + ":" + server.bolt.port(),
                org.neo4j.driver.AuthTokens.basic("neo4j", TestServer.PASSWORD));
        for (long n : new long[] {1, 5, 10, 20}) { // one of each kind before the page looks: all its table's rows
            write(n);
        }
        load = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("dashboard-test-load").factory());
        load.scheduleAtFixedRate(DashboardBrowserTest::write, 0, 100, TimeUnit.MILLISECONDS);
    }

    static void write() {
        long n = sent.incrementAndGet();
        if (sources.get()) {
            server.server.metrics().sourceRecords("orders", "applied", 7);
            if (n % 30 == 0) {
                server.server.metrics().sourceRecords("orders", "dead_lettered", 1);
            }
        }
        write(n);
    }

    /**
     * What a server applying topic {@code orders} exports and says in /health, without a broker: its counters at zero
     * ({@code knownSources}), partition 0 applied here (120 records behind, the oldest 42.5 s old) and paused at a
     * held record, partition 1 applied by another instance (NaN).
     */
    static void startSources() {
        var metrics = server.server.metrics();
        metrics.knownSources(List.of("orders"));
        metrics.sourcePartition("orders", 0, () -> 120, () -> 42.5);
        metrics.sourcePartition("orders", 1, () -> Double.NaN, () -> Double.NaN);
        java.util.Map<String, Object> p0 = new java.util.LinkedHashMap<>();
        p0.put("topic", "orders");
        p0.put("partition", 0);
        p0.put("next", 41);
        p0.put("lag_records", 120);
        p0.put("lag_seconds", 42.5);
        p0.put("state", "paused");
        p0.put("reason", "held at offset 41 (on_error stop): Neo.ClientError.Statement.TypeError bad");
        server.server.doors().add(new FakeSources(java.util.Map.of("group", "sluice-sources", "consumers", 2,
                "partitions", List.of(p0))));
        sources.set(true);
    }

    /** A stand-in for {@code KafkaSources} as /health sees a door: its {@code sources} section, nothing to run. */
    record FakeSources(java.util.Map<String, Object> section) implements Door {
        @Override
        public void start() {}

        @Override
        public void stopAccepting() {}

        @Override
        public boolean drain(Duration wait) {
            return true;
        }

        @Override
        public void close() {}

        @Override
        public String describe() {
            return "Kafka orders as group sluice-sources (a test's stand-in)";
        }

        @Override
        public java.util.Map<String, Object> health() {
            return java.util.Map.of("sources", section);
        }
    }

    /**
     * Write {@code n} of the load: ~10 a second, 1 in 5 async, 1 in 10 through the Query API, 1 in 20 refused, 1 in
     * 20 an explicit transaction over Bolt, 1 in 40 a Bolt statement that fails.
     */
    static void write(long n) {
        try {
            if (n % 20 == 3 || n % 40 == 7) {
                bolt(n);
            } else if (n % 20 == 0) {
                server.post("/db/neo4j/write/no-such-template", "{\"id\": 1}");
            } else if (n % 10 == 0) {
                server.post("/db/neo4j/query/v2", "{\"statement\": \"MERGE (k:Hit {id: $id})\", \"parameters\":"
                        + " {\"id\": " + (n % 50) + "}}");
            } else {
                server.post("/db/neo4j/write/hit?mode=" + (n % 5 == 0 ? "async" : "sync"),
                        "[{\"id\": " + (n % 50) + "}, {\"id\": " + ((n + 1) % 50) + "}]");
            }
        } catch (RuntimeException e) {
            // the server is stopping at the end of the test: the load just ends
        }
    }

    static void bolt(long n) {
        try (var session = driver.session(org.neo4j.driver.SessionConfig.forDatabase("neo4j"))) {
            if (n % 40 == 7) {
                session.run("MERGE (k:Hit {id: $id}) RETURN k.n +", java.util.Map.of("id", n % 50)).consume();
            } else {
                try (var tx = session.beginTransaction()) {
                    tx.run("MERGE (k:Hit {id: $id})", java.util.Map.of("id", n % 50)).consume();
                    tx.commit();
                }
            }
        } catch (org.neo4j.driver.exceptions.ClientException e) {
            // the failing statement's SyntaxError: counted by sluice_bolt_failures_total
        }
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (load != null) {
            load.shutdownNow();
            load.awaitTermination(30, TimeUnit.SECONDS);
        }
        if (driver != null) {
            driver.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void theDashboardFilesAreServedFromTheJar() {
        HttpResponse<String> page = server.sendRaw(HttpRequest.newBuilder(URI.create(server.url("/")))
                .header("Accept", "text/html").build());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Security-Policy").orElse("")).contains("default-src 'self'");
        assertThat(page.body()).contains("/dashboard/uplot.js", "/dashboard/dashboard.js").doesNotContain("http://",
                "https://");
        for (String file : List.of("uplot.js", "uplot.css", "dashboard.js", "dashboard.css")) {
            HttpResponse<String> r = server.sendRaw(HttpRequest.newBuilder(URI.create(server.url("/dashboard/" + file)))
                    .build());
            assertThat(r.statusCode()).as(file).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type").orElse("")).as(file)
                    .startsWith(file.endsWith(".js") ? "text/javascript" : "text/css");
            assertThat(r.headers().firstValue("Cache-Control")).as(file).isPresent();
        }
        assertThat(server.sendRaw(HttpRequest.newBuilder(URI.create(server.url("/dashboard/../metrics"))).build())
                .statusCode()).isNotEqualTo(200);
        assertThat(server.sendRaw(HttpRequest.newBuilder(URI.create(server.url("/dashboard/nope.js"))).build())
                .statusCode()).isEqualTo(404);
    }

    @Test
    @Timeout(150)
    void inChromiumItAsksForCredentialsThenChartsTheLoad() throws Exception {
        Assumptions.assumeTrue(chromium != null, "Chromium is not installed (no /usr/bin/chromium, $SLUICE_CHROMIUM or"
                + " chromium on the PATH): SKIPPING the dashboard's browser test; install Debian's chromium"
                + " package (.ci/run does)");
        try (Chromium browser = Chromium.launch(chromium, 1366, 768)) {
            browser.viewport(1366, 768, false);
            browser.navigate(server.url("/"));

            browser.await("the login form (authentication is on)", "window.sluiceDashboard.state === 'login'"
                    + " && !document.getElementById('login').hidden", Duration.ofSeconds(60));
            assertThat(browser.evaluate("document.getElementById('board').hidden").asBoolean()).isTrue();

            signIn(browser, "neo4j", "not-the-password");
            browser.await("the form again, saying why", "window.sluiceDashboard.state === 'login'"
                    + " && document.getElementById('login-error').textContent.length > 0", Duration.ofSeconds(60));

            signIn(browser, "neo4j", TestServer.PASSWORD);
            JsonNode shown = browser.await("every chart with data and the template in the table", """
                    (() => { const d = window.sluiceDashboard;
                      const ok = d.ready && d.state === 'live'
                        && %s.every(id => d.charts[id] && d.charts[id].points > 0)
                        && d.charts.rows.max > 0 && d.charts.answers.max > 0 && d.charts.latency.max > 0
                        && d.charts.batch.max > 0 && d.charts.commit.max > 0 && d.charts.bolt.max > 0
                        && d.templates.some(t => t.name === 'hit' && t.requests > 0 && t.rows > 0 && t.p99 > 0);
                      return ok && JSON.parse(JSON.stringify(d)); })()""".formatted(toJs(CHARTS)),
                    Duration.ofSeconds(90));
            assertThat(shown.path("charts").path("answers").path("series").toString()).contains("2xx", "4xx", "503",
                    "5xx");
            assertThat(shown.path("charts").path("latency").path("series").toString()).contains("sync p50",
                    "sync p99");
            assertThat(shown.path("charts").path("rows").path("series").toString()).contains("sync", "async");
            assertThat(shown.path("charts").path("bolt").path("series").toString()).contains("messages/s",
                    "failures/s", "transactions/s", "connections");
            JsonNode noSources = browser.evaluate("""
                    ({ cards: %s.map(id => document.getElementById('chart-' + id).hidden),
                       canvases: document.querySelectorAll('#chart-sources-lag canvas, #chart-sources-records canvas')
                         .length,
                       line: document.getElementById('fact-sources-box').hidden,
                       charts: Object.keys(window.sluiceDashboard.charts) })""".formatted(toJs(SOURCE_CHARTS)));
            assertThat(noSources.path("cards").toString()).as("no source series: no sources' charts")
                    .isEqualTo("[true,true]");
            assertThat(noSources.path("canvases").asInt()).isZero();
            assertThat(noSources.path("line").asBoolean()).as("nor their header line").isTrue();
            assertThat(noSources.path("charts").toString()).doesNotContain("sources");

            startSources();
            JsonNode withSources = browser.await("the sources' charts with data, and their line", """
                    (() => { const d = window.sluiceDashboard;
                      const ok = %s.every(id => d.charts[id] && d.charts[id].points > 0)
                        && d.charts['sources-lag'].max >= 120 && d.charts['sources-records'].max > 0
                        && !document.getElementById('fact-sources-box').hidden && d.sources && d.sources.paused.length;
                      return ok && JSON.parse(JSON.stringify(d)); })()""".formatted(toJs(SOURCE_CHARTS)),
                    Duration.ofSeconds(60));
            assertThat(withSources.path("charts").path("sources-lag").path("series").toString())
                    .contains("lag records", "oldest (s)");
            assertThat(withSources.path("charts").path("sources-records").path("series").toString())
                    .contains("applied", "dead-lettered", "skipped", "held");
            assertThat(withSources.path("sources").path("text").asText())
                    .as("partition 1, NaN here, counts for nothing")
                    .contains("group sluice-sources", "1 partition here", "lag 120 records, oldest 42.5 s",
                            "1 paused: orders[0] held at offset 41 (on_error stop): Neo.ClientError.Statement.");
            assertThat(browser.evaluate("document.getElementById('fact-sources').className").asText())
                    .as("a paused partition is shown as a problem").isEqualTo("bad");
            JsonNode dom = browser.evaluate("""
                    ({ canvases: %s.map(id => document.querySelectorAll('#chart-' + id + ' canvas').length),
                       tableRows: [...document.querySelectorAll('#templates tbody tr')].map(r => r.cells[0].textContent),
                       health: document.getElementById('health').textContent,
                       sink: document.getElementById('fact-sink').textContent,
                       journal: document.getElementById('fact-journal').textContent,
                       stored: sessionStorage.getItem('sluice.authorization'),
                       url: location.href })""".formatted(toJs(allCharts())));
            assertThat(dom.path("canvases").toString()).as("one uPlot canvas per chart")
                    .isEqualTo("[1,1,1,1,1,1,1,1,1,1,1,1]");
            assertThat(dom.path("tableRows").toString()).isEqualTo("[\"hit\",\"(cypher)\",\"(unknown)\"]");
            assertThat(dom.path("health").asText()).isEqualTo("UP");
            assertThat(dom.path("sink").asText()).contains("embedded neo4j", "(answering)");
            assertThat(dom.path("journal").asText()).isEqualTo("local");
            assertThat(dom.path("stored").asText()).as("kept for this tab").isEqualTo(TestServer.AUTH);
            assertThat(dom.path("url").asText()).as("never in the URL").isEqualTo(server.url("/"))
                    .doesNotContain(TestServer.PASSWORD);

            browser.viewport(390, 844, true);
            browser.await("the charts fit a phone's width", """
                    document.documentElement.scrollWidth <= 390
                      && [...document.querySelectorAll('#charts canvas')].every(c => c.getBoundingClientRect().right <= 390)
                      && [...document.querySelectorAll('#charts canvas')].every(c => c.getBoundingClientRect().width > 250)""",
                    Duration.ofSeconds(30));
            browser.viewport(1366, 768, false);
            browser.await("the charts grow back on a laptop", """
                    [...document.querySelectorAll('#charts canvas')].every(c => c.getBoundingClientRect().width > 350)
                      && new Set([...document.querySelectorAll('#charts .chart')].map(c => c.getBoundingClientRect().top)).size < 9""",
                    Duration.ofSeconds(30));

            // the password changes under the page: its next poll is refused, and it asks again
            browser.evaluate("sessionStorage.setItem('sluice.authorization', 'Basic "
                    + java.util.Base64.getEncoder().encodeToString("neo4j:changed-elsewhere".getBytes(
                            java.nio.charset.StandardCharsets.UTF_8)) + "')");
            browser.await("the form after a refused poll", "window.sluiceDashboard.state === 'login'"
                    + " && !document.getElementById('login').hidden", Duration.ofSeconds(60));
            signIn(browser, "neo4j", TestServer.PASSWORD);
            browser.await("live again", "window.sluiceDashboard.state === 'live'", Duration.ofSeconds(60));

            // Chromium logs each 401 of a fetch as a failed load: those three (no credentials, a wrong password,
            // the changed one) are the page doing its job
            List<Chromium.Problem> problems = browser.problems().stream()
                    .filter(p -> !(p.source().equals("log.network") && p.text().contains("401")
                            && p.url().contains("/status")))
                    .toList();
            assertThat(problems).as("nothing at the error level but the 401s that asked for credentials").isEmpty();
            assertThat(browser.problems()).as("the 401s, as the browser logs them").hasSizeLessThanOrEqualTo(3);
        }
    }

    private static void signIn(Chromium browser, String user, String password) {
        browser.await("the form's fields", "!document.getElementById('login').hidden", Duration.ofSeconds(30));
        browser.type("#login-user", user);
        browser.type("#login-password", password);
        browser.click("#login-submit");
    }

    private static List<String> allCharts() {
        List<String> all = new java.util.ArrayList<>(CHARTS);
        all.addAll(SOURCE_CHARTS);
        return all;
    }

    private static String toJs(List<String> names) {
        return names.stream().map(n -> "'" + n + "'").collect(java.util.stream.Collectors.joining(",", "[", "]"));
    }
}
