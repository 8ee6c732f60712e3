package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.status.StatusText;
import io.sluice.support.Await;
import io.sluice.support.TestServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** {@code sluice status} against a real server, and its page from a given /status document. */
class StatusCommandTest {
    static final String CONFIG = """
            templates:
              hit:
                cypher: "MERGE (k:Hit {id: row.id})"
                key: [id]
            """;

    /** Runs {@code sluice status ARGS}; returns the exit status and what it printed. */
    static String[] run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new CommandLine(new Main()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args);
        return new String[] {Integer.toString(code), out.toString(), err.toString()};
    }

    @Test
    @Timeout(120)
    void printsHealthRatesLatencyAndTemplatesOnceAndSaysWhenItCannot() {
        try (TestServer s = TestServer.start(CONFIG, false)) {
            String base = s.url("");
            String withCredentials = base.replace("http://", "http://neo4j:" + TestServer.PASSWORD + "@");
            for (int i = 0; i < 20; i++) {
                assertThat(s.post("/db/neo4j/write/hit?mode=sync", "{\"id\": " + i + "}").statusCode()).isEqualTo(200);
            }
            // two samples after the writes: the page's rates need a window
            Await.until("two samples after the writes", Duration.ofSeconds(30), () -> {
                String[] r = run("status", "--url", withCredentials);
                return r[1].contains("hit ") && !r[1].contains("waiting for a second sample")
                        && r[1].matches("(?s).*rows/s +sync [1-9].*");
            });
            String[] r = run("status", "--url", withCredentials);
            assertThat(r[0]).as(r[2]).isEqualTo("0");
            assertThat(r[1]).contains("sluice at " + base.replaceAll("/$", "") + ": UP",
                    "sink       embedded", "answering", "latency ms  sync p50", "journal    local: lag 0 rows",
                    "dead letters 0", "template", "hit");
            assertThat(r[1]).as("never the password").doesNotContain(TestServer.PASSWORD);

            String[] refused = run("status", "--url", base.replace("http://", "http://neo4j:wrong-password@"));
            assertThat(refused[0]).isEqualTo("2");
            assertThat(refused[1]).contains("401, credentials refused");
            // a health check: /health alone, no credentials
            String[] health = run("status", "--health", "--url", base);
            assertThat(health[0]).as(health[1] + health[2]).isEqualTo("0");
            assertThat(health[1]).contains(": UP (200)");
        }
        String[] gone = run("status", "--url", "http://127.0.0.1:1");
        assertThat(gone[0]).isEqualTo("2");
        assertThat(gone[1]).contains("cannot be reached");
        assertThat(run("status", "--health", "--url", "http://127.0.0.1:1")[0]).as("a health check's 2 is reserved")
                .isEqualTo("1");
        assertThat(run("status", "--health", "--url", "not a url at all")[0]).isEqualTo("1");
    }

    @Test
    void theDefaultUrlIsServesHttpAddressFromTheEnvironment() {
        assertThat(StatusCommand.defaultUrl(null)).isEqualTo("http://127.0.0.1:7474");
        assertThat(StatusCommand.defaultUrl("  ")).isEqualTo("http://127.0.0.1:7474");
        assertThat(StatusCommand.defaultUrl("0.0.0.0:7474")).isEqualTo("http://127.0.0.1:7474");
        assertThat(StatusCommand.defaultUrl("[::]:8080")).isEqualTo("http://127.0.0.1:8080");
        assertThat(StatusCommand.defaultUrl("127.0.0.1:18474")).isEqualTo("http://127.0.0.1:18474");
        assertThat(StatusCommand.defaultUrl("10.1.2.3:7474")).isEqualTo("http://10.1.2.3:7474");
    }

    @Test
    void thePageTakesRatesOverTheLastTenSecondsAndShortensCodes() throws Exception {
        String doc = """
                {"health": {"status": "DOWN", "sink": "bolt neo4j://x", "journal": "kafka", "kafka_topic": "w"},
                 "interval_ms": 1000, "t": [0, 1000, 2000, 12000],
                 "series": {
                   "sluice_rows_total{mode=\\"async\\"}": [0, 100, 200, 1200],
                   "sluice_requests_total{mode=\\"async\\",status=\\"202\\"}": [0, 10, 20, 120],
                   "sluice_requests_total{mode=\\"async\\",status=\\"503\\"}": [null, null, 0, 50],
                   "sluice_transient_retries_total{code=\\"Neo.TransientError.Transaction.DeadlockDetected\\"}": [0, 0, 0, 5],
                   "sluice_sink_up": [1, 1, 1, 0],
                   "sluice_journal_lag_rows": [0, 0, 0, 4000],
                   "sluice_template_requests_total{status=\\"202\\",template=\\"hit\\"}": [0, 10, 20, 120],
                   "sluice_template_latency_seconds{template=\\"hit\\",quantile=\\"0.99\\"}": [null, null, 0.25, 0.5]
                 }}
                """;
        String page = StatusText.render("http://h:1", new ObjectMapper().readTree(doc));
        assertThat(page).contains("sluice at http://h:1: DOWN", "NOT answering", "(last 10 s)",
                "rows/s     async 100", "2xx 10.0", "503 5.0", "DeadlockDetected 0.50", "journal    kafka w: lag 4,000",
                "latency ms  (no requests yet)");
        assertThat(page).containsPattern("hit +10\\.0 +0\\.0 +0\\.00 +- +500\\.0");
    }
}
