package io.sluice.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** {@code sluice status}'s page says what WARMING means where a user looks (issue 26), and only then. */
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
}
