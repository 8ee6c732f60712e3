package io.sluice.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sluice.support.TestServer;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The alert rules and the Grafana dashboard under {@code deploy/} cannot drift from what sluice exports: every
 * metric name their queries use is in a real server's {@code GET /metrics} after a few writes of every kind (the
 * sources' series, which only a server applying application topics has, in the scrape of meters registered as
 * {@code KafkaSources} registers them: this test has no broker), every runbook link names a section of
 * docs/OPERATIONS.md, and the rules parse and pass their unit tests in
 * {@code promtool} (skipped, saying so, where promtool is not installed).
 */
@Timeout(180)
class DeployFilesTest {
    /** The project's root (the tests run in the server module's directory). */
    static final Path ROOT = Path.of(System.getProperty("sluice.root", ".."));
    static final Path RULES = ROOT.resolve("deploy/prometheus/sluice-rules.yml");
    static final Path RULE_TESTS = ROOT.resolve("deploy/prometheus/sluice-rules.test.yml");
    static final Path SCRAPE_CONFIG = ROOT.resolve("deploy/prometheus/prometheus.yml");
    static final Path DASHBOARD = ROOT.resolve("deploy/grafana/sluice-dashboard.json");
    static final Path OPERATIONS = ROOT.resolve("docs/OPERATIONS.md");
    static final String CONFIG = """
            templates:
              hit:
                cypher: "MERGE (h:Hit {id: row.id})"
                key: [id]
            schema:
              - CREATE CONSTRAINT hit_id IF NOT EXISTS FOR (h:Hit) REQUIRE h.id IS UNIQUE
            """;
    /** A metric name in PromQL (after string literals are removed): sluice's own, and Prometheus's {@code up}. */
    static final Pattern NAME = Pattern.compile("(?<![A-Za-z0-9_:$])(sluice_[A-Za-z0-9_:]*|up)(?![A-Za-z0-9_:(])");
    static final Pattern RECORDED = Pattern.compile("(?<![A-Za-z0-9_:])sluice:[A-Za-z0-9_:]+");
    static final ObjectMapper JSON = new ObjectMapper();
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static TestServer server;
    /** The server's {@code /metrics} before anything was written: every series deploy/ uses must be there. */
    static String fresh;
    /**
     * What a server with {@code sources.kafka} (topic {@code orders}) adds once its consumer has a partition: the
     * record counters at zero per outcome from the start ({@code knownSources}), the lag gauges per partition.
     */
    static String sources;

    @BeforeAll
    static void start() {
        server = TestServer.start(CONFIG, false);
        fresh = server.get("/metrics").body();
        try (io.sluice.metrics.PrometheusMetrics m = new io.sluice.metrics.PrometheusMetrics()) {
            m.knownSources(List.of("orders"));
            m.sourcePartition("orders", 0, () -> 0, () -> 0);
            m.sourceConsumers(() -> 2, () -> 2);
            sources = m.scrape();
        }
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void everyMetricTheRulesAndTheDashboardUseIsExportedFromTheStart() throws Exception {
        Set<String> exported = sampleNames(fresh); // at zero before anything happened (issue 26): no "No data"

        JsonNode rules = YAML.readTree(RULES.toFile());
        List<String> ruleExprs = new ArrayList<>();
        Set<String> recorded = new TreeSet<>();
        for (JsonNode group : rules.path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                ruleExprs.add(rule.path("expr").asText());
                if (rule.has("record")) {
                    recorded.add(rule.path("record").asText());
                }
            }
        }
        List<String> dashboardExprs = dashboardQueries(JSON.readTree(DASHBOARD.toFile()));

        Set<String> used = new TreeSet<>();
        ruleExprs.forEach(e -> used.addAll(names(e)));
        dashboardExprs.forEach(e -> used.addAll(names(e)));
        assertThat(used).as("the extraction finds the names (not vacuous)").contains("up", "sluice_requests_total",
                "sluice_request_seconds_bucket", "sluice_dead_letters", "sluice_journal_lag_rows", "sluice_sink_up",
                "sluice_template_requests_total", "sluice_batch_rows_sum", "sluice_transient_retries_total",
                "sluice_bolt_connections", "sluice_bolt_messages_total", "sluice_bolt_failures_total",
                "sluice_bolt_transactions_total", "sluice_source_lag_records", "sluice_source_lag_seconds",
                "sluice_source_records_total", "sluice_source_consumers", "sluice_source_consumers_running");
        used.remove("up"); // Prometheus's own, per scrape target
        Set<String> sourceNames = sampleNames(sources);
        for (String name : used) {
            if (name.startsWith("sluice_source_")) {
                assertThat(sourceNames).as("%s is used by deploy/ but is not exported by a server with sources", name)
                        .contains(name);
                continue;
            }
            assertThat(exported).as("%s is used by deploy/ but is not in a fresh server's GET /metrics", name)
                    .contains(name);
        }
        assertThat(sources).as("each outcome counted per configured topic, at zero (for increase() in the alerts)")
                .contains("sluice_source_records_total{outcome=\"applied\",topic=\"orders\"} 0.0",
                        "sluice_source_records_total{outcome=\"dead_lettered\",topic=\"orders\"} 0.0",
                        "sluice_source_records_total{outcome=\"held\",topic=\"orders\"} 0.0",
                        "sluice_source_lag_seconds{partition=\"0\",topic=\"orders\"} 0.0");
        assertThat(fresh).as("each error class counted, at zero").contains(
                "sluice_transient_retries_total{code=\"Neo.TransientError.Transaction.DeadlockDetected\"} 0.0",
                "sluice_write_failures_total{code=\"Neo.ClientError.Schema.ConstraintValidationFailed\"} 0.0",
                "sluice_requests_total{mode=\"sync\",status=\"503\"} 0.0",
                "sluice_template_requests_total{status=\"200\",template=\"hit\"} 0.0",
                "sluice_bolt_failures_total{code=\"Neo.TransientError.General.DatabaseUnavailable\"} 0.0",
                "sluice_bolt_failures_total{code=\"Neo.ClientError.Statement.SyntaxError\"} 0.0");
        for (String e : ruleExprs) {
            for (String r : recordedNames(e)) {
                assertThat(recorded).as("recording rule %s used in %s", r, e).contains(r);
            }
        }
        for (String e : dashboardExprs) {
            assertThat(recordedNames(e)).as("the dashboard works without the recording rules: %s", e).isEmpty();
        }
    }

    @Test
    void alertsSayWhatAndLinkASectionOfTheRunbook() throws Exception {
        Set<String> anchors = new TreeSet<>();
        for (String line : Files.readAllLines(OPERATIONS)) {
            if (line.startsWith("#")) {
                anchors.add(line.replaceFirst("^#+\\s*", "").strip().toLowerCase(Locale.ROOT)
                        .replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
            }
        }
        int alerts = 0;
        for (JsonNode group : YAML.readTree(RULES.toFile()).path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                if (!rule.has("alert")) {
                    continue;
                }
                alerts++;
                String name = rule.path("alert").asText();
                JsonNode a = rule.path("annotations");
                assertThat(a.path("summary").asText()).as(name + " summary").isNotBlank();
                assertThat(a.path("description").asText()).as(name + " description").isNotBlank();
                assertThat(rule.path("labels").path("severity").asText()).as(name + " severity").isNotBlank();
                String runbook = a.path("runbook_url").asText();
                assertThat(runbook).as(name).startsWith("docs/OPERATIONS.md#");
                assertThat(anchors).as(name + " runbook section").contains(runbook.substring(runbook.indexOf('#') + 1));
            }
        }
        assertThat(alerts).isGreaterThanOrEqualTo(12);
    }

    @Test
    void theDashboardImportsWithADatasourceInput() throws Exception {
        JsonNode d = JSON.readTree(DASHBOARD.toFile());
        assertThat(d.path("__inputs").findValuesAsText("name")).contains("DS_PROMETHEUS");
        Set<Integer> ids = new TreeSet<>();
        for (JsonNode p : panels(d)) {
            assertThat(ids.add(p.path("id").asInt())).as("panel ids are unique: " + p.path("title")).isTrue();
            if (!p.path("type").asText().equals("row")) {
                assertThat(p.path("datasource").path("uid").asText()).as(p.path("title").asText())
                        .isEqualTo("${DS_PROMETHEUS}");
                assertThat(p.path("targets")).as(p.path("title").asText()).isNotEmpty();
                p.path("targets").forEach(t -> assertThat(t.path("expr").asText()).isNotBlank());
            }
        }
        assertThat(ids).hasSizeGreaterThanOrEqualTo(15);
    }

    @Test
    void theRulesParseAndPassTheirUnitTests() throws Exception {
        Path promtool = onPath("promtool");
        assumeTrue(promtool != null, "promtool is not installed (Debian: apt-get install prometheus):"
                + " the rules' syntax and their unit tests are not checked here");
        assertThat(run(promtool.toString(), "check", "rules", RULES.toString())).contains("SUCCESS");
        assertThat(run(promtool.toString(), "check", "config", SCRAPE_CONFIG.toString())).contains("SUCCESS");
        assertThat(run(promtool.toString(), "test", "rules", RULE_TESTS.toString())).contains("SUCCESS");
    }

    static Set<String> sampleNames(String scrape) {
        Set<String> out = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                out.add(line.split("[{ ]", 2)[0]);
            }
        }
        return out;
    }

    /** The metric names in a PromQL expression: string literals (label values) removed first. */
    static Set<String> names(String promql) {
        Set<String> out = new TreeSet<>();
        Matcher m = NAME.matcher(promql.replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\""));
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    static Set<String> recordedNames(String promql) {
        Set<String> out = new TreeSet<>();
        Matcher m = RECORDED.matcher(promql);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    /** Every panel's targets' expressions and the template variables' queries. */
    static List<String> dashboardQueries(JsonNode d) {
        List<String> out = new ArrayList<>();
        for (JsonNode p : panels(d)) {
            p.path("targets").forEach(t -> out.add(t.path("expr").asText()));
        }
        for (JsonNode v : d.path("templating").path("list")) {
            JsonNode q = v.path("query");
            out.add(q.isObject() ? q.path("query").asText() : q.asText());
        }
        return out;
    }

    /** The panels, those nested in collapsed rows included. */
    static List<JsonNode> panels(JsonNode d) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode p : d.path("panels")) {
            out.add(p);
            p.path("panels").forEach(out::add);
        }
        return out;
    }

    static Path onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            Path p = Path.of(dir, command);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Runs a command to its end (at most 60 s); fails unless it exits 0; returns its output. */
    static String run(String... command) throws Exception {
        Path out = Files.createTempFile("promtool-", ".log");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError(String.join(" ", command) + " still running after 60 s");
            }
            String output = Files.readString(out);
            assertThat(p.exitValue()).as(String.join(" ", command) + ":\n" + output).isZero();
            return output;
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
