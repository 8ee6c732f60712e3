package io.sluice.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * {@code sluice status}'s page says what WARMING means where a user looks (issue 26), and only then; it shows the
 * Bolt front end once Bolt is used, and not before (its series exist at zero from the start).
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
}
