package io.sluice.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * {@code sluice status}'s page says what WARMING means where a user looks (issue 26), and only then; it shows the
 * Bolt front end once Bolt is used, and not before (its series exist at zero from the start); and the sources
 * (application topics) whenever their series exist: lag, applied/s, dead letters and holds, each paused partition.
 */
class StatusTextTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static String page(String status) throws Exception {
        return StatusText.render("http://127.0.0.1:7474", JSON.readTree("{\"health\": {\"status\": \"" + status
                + "\", \"sink\": \"embedded Neo4j\"}, \"t\": [1000], \"series\": {\"sluice_sink_up\": [1.0]}}"));
    }

    @Test
    void warmingSaysWritesAreAcceptedAndWhatItHoldsBack() throws Exception {
        assertThat(page("WARMING")).contains("sluice at http://127.0.0.1:7474: WARMING", "writes are accepted",
                "load balancers");
    }

    @Test
    void upSaysNothingOfIt() throws Exception {
        assertThat(page("UP")).contains(": UP").doesNotContain("writes are accepted");
    }

    /** A /status document over 10 s (samples at 0, 5 and 10 s) with the Bolt series given. */
    static String withBolt(String boltSeries) throws Exception {
        return StatusText.render("http://127.0.0.1:7474", JSON.readTree("""
                {"health": {"status": "UP", "sink": "embedded Neo4j"}, "t": [0, 5000, 10000],
                 "series": {"sluice_sink_up": [1, 1, 1],
                   "sluice_requests_total{mode=\\"sync\\",status=\\"200\\"}": [0, 50, 100],
                   %s}}""".formatted(boltSeries)));
    }

    static final String UNUSED = """
            "sluice_bolt_connections": [0, 0, 0],
            "sluice_bolt_messages_total{message=\\"RUN\\"}": [0, 0, 0],
            "sluice_bolt_failures_total{code=\\"Neo.ClientError.Statement.SyntaxError\\"}": [0, 0, 0],
            "sluice_bolt_transactions_total{event=\\"begin\\"}": [0, 0, 0]""";

    @Test
    void boltIsLeftOutWhileUnusedOrAbsent() throws Exception {
        assertThat(withBolt(UNUSED)).contains("answers/s  2xx 10.0").doesNotContainPattern("(?m)^bolt");
        assertThat(page("UP")).doesNotContainPattern("(?m)^bolt");
    }

    @Test
    void boltShowsConnectionsMessagesAndFailuresByShortCode() throws Exception {
        String page = withBolt("""
                "sluice_bolt_connections": [1, 3, 2],
                "sluice_bolt_messages_total{message=\\"RUN\\"}": [0, 40, 100],
                "sluice_bolt_messages_total{message=\\"PULL\\"}": [0, 40, 100],
                "sluice_bolt_messages_total{message=\\"HELLO\\"}": [null, 1, 3],
                "sluice_bolt_failures_total{code=\\"Neo.ClientError.Statement.SyntaxError\\"}": [0, 0, 2],
                "sluice_bolt_failures_total{code=\\"Neo.TransientError.General.DatabaseUnavailable\\"}": [0, 0, 0]""");
        assertThat(page).as("HELLO counted from 0 where its series was born; failures by short code, zeros left out")
                .containsPattern("(?m)^bolt +2 connections   messages/s 20\\.3   failures/s SyntaxError 0\\.20$");
    }

    @Test
    void boltOnceUsedStaysWithNoConnectionOpenAndNoFailures() throws Exception {
        String page = withBolt("""
                "sluice_bolt_connections": [0, 0, 0],
                "sluice_bolt_messages_total{message=\\"RUN\\"}": [7, 7, 7],
                "sluice_bolt_failures_total{code=\\"Neo.ClientError.Statement.SyntaxError\\"}": [0, 0, 0]""");
        assertThat(page).containsPattern("(?m)^bolt +0 connections   messages/s 0\\.0   failures/s none$");
    }

    /** A /status document over 10 s (samples at 0, 5 and 10 s) with the source series and /health's sources given. */
    static String withSources(String sourceSeries, String healthSources) throws Exception {
        return StatusText.render("http://127.0.0.1:7474", JSON.readTree("""
                {"health": {"status": "UP", "sink": "embedded Neo4j"%s}, "t": [0, 5000, 10000],
                 "series": {"sluice_sink_up": [1, 1, 1],
                   "sluice_requests_total{mode=\\"sync\\",status=\\"200\\"}": [0, 50, 100],
                   %s}}""".formatted(healthSources.isEmpty() ? "" : ", \"sources\": " + healthSources,
                sourceSeries)));
    }

    /** Configured, before the first record: the counters at zero (as knownSources exports them), no partition yet. */
    static final String CONFIGURED = """
            "sluice_source_records_total{outcome=\\"applied\\",topic=\\"orders\\"}": [0, 0, 0],
            "sluice_source_records_total{outcome=\\"dead_lettered\\",topic=\\"orders\\"}": [0, 0, 0],
            "sluice_source_records_total{outcome=\\"skipped\\",topic=\\"orders\\"}": [0, 0, 0],
            "sluice_source_records_total{outcome=\\"held\\",topic=\\"orders\\"}": [0, 0, 0]""";

    @Test
    void aDebeziumStreamShowsItsPositionWaitingTransactionsAndCopiesDropped() throws Exception {
        String page = withSources(CONFIGURED, """
                {"group": "shop", "consumers": 2, "partitions": [], "debezium": [{"prefix": "shop",
                 "transactions": true, "running": true, "units_applied": 1200, "last_commit": 26696816, "waiting": 3,
                 "buffered_events": 40, "duplicates_dropped": 17, "oldest_unapplied_seconds": 0.4}]}""");
        assertThat(page).containsPattern("(?m)^debezium +shop: at commit 26696816, 1,200 units applied, 3 waiting,"
                + " oldest unapplied 0\\.4 s, 17 copies dropped$");
    }

    @Test
    void sourcesAreLeftOutWithoutTheirSeries() throws Exception {
        assertThat(page("UP")).doesNotContainPattern("(?m)^sources");
        assertThat(withBolt(UNUSED)).doesNotContainPattern("(?m)^sources");
    }

    @Test
    void sourcesConfiguredShowAtZeroBeforeAnyPartition() throws Exception {
        assertThat(withSources(CONFIGURED, "")).containsPattern(
                "(?m)^sources +no partition applied here   applied/s 0\\.0   dead-lettered 0   held 0$");
    }

    @Test
    void sourcesShowLagAppliedDeadLettersAndHoldsOverTheWindow() throws Exception {
        // partitions 0 and 1 applied here; 2 by another instance (NaN, which /status carries as a string)
        String page = withSources("""
                "sluice_source_records_total{outcome=\\"applied\\",topic=\\"orders\\"}": [0, 400, 1000],
                "sluice_source_records_total{outcome=\\"dead_lettered\\",topic=\\"orders\\"}": [0, 0, 0],
                "sluice_source_records_total{outcome=\\"held\\",topic=\\"orders\\"}": [0, 0, 0],
                "sluice_source_records_total{outcome=\\"dead_lettered\\",topic=\\"payments\\"}": [5, 6, 8],
                "sluice_source_records_total{outcome=\\"held\\",topic=\\"payments\\"}": [null, 0, 1],
                "sluice_source_records_total{outcome=\\"skipped\\",topic=\\"payments\\"}": [0, 0, 9],
                "sluice_source_lag_records{partition=\\"0\\",topic=\\"orders\\"}": [300, 200, 100],
                "sluice_source_lag_records{partition=\\"1\\",topic=\\"orders\\"}": [0, 0, 20],
                "sluice_source_lag_records{partition=\\"2\\",topic=\\"orders\\"}": ["NaN", "NaN", "NaN"],
                "sluice_source_lag_seconds{partition=\\"0\\",topic=\\"orders\\"}": [30, 20, 12.5],
                "sluice_source_lag_seconds{partition=\\"1\\",topic=\\"orders\\"}": [0, 0, 3],
                "sluice_source_lag_seconds{partition=\\"2\\",topic=\\"orders\\"}": ["NaN", "NaN", "NaN"]""", "");
        assertThat(page).as("lag summed, oldest the worst; applied 1000 in 10 s; dead letters 3 and holds 1 in it"
                + " (the held series born in the window counts from 0); skipped is not shown")
                .containsPattern("(?m)^sources +lag 120 records, oldest 12\\.5 s   applied/s 100\\.0"
                        + "   dead-lettered 3   held 1$");
    }

    @Test
    void sourcesNameEachPausedPartitionWithHealthsReason() throws Exception {
        String page = withSources(CONFIGURED + """
                ,
                "sluice_source_lag_records{partition=\\"0\\",topic=\\"orders\\"}": [5, 5, 5],
                "sluice_source_lag_seconds{partition=\\"0\\",topic=\\"orders\\"}": [60, 65, 70]""", """
                {"group": "sluice-sources", "consumers": 2, "partitions": [
                  {"topic": "orders", "partition": 0, "next": 41, "lag_records": 5, "lag_seconds": 70.0,
                   "state": "paused",
                   "reason": "held at offset 41 (on_error stop): Neo.ClientError.Statement.TypeError x"},
                  {"topic": "orders", "partition": 1, "next": 7, "lag_records": 0, "lag_seconds": 0.0,
                   "state": "applying"}]}""");
        assertThat(page).containsPattern("(?m)^sources +lag 5 records, oldest 70\\.0 s")
                .containsPattern("(?m)^ +orders\\[0] paused: held at offset 41 \\(on_error stop\\):"
                        + " Neo\\.ClientError\\.Statement\\.TypeError x$")
                .doesNotContain("orders[1]");
    }
}
