package io.sluice.sink;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** An outage is two log lines (down, up again), however often the database is probed meanwhile. */
class AvailabilityLogTest {
    @Test
    void logsTransitionsNotProbes() {
        Logger logger = (Logger) LoggerFactory.getLogger(AvailabilityLog.class);
        ListAppender<ILoggingEvent> seen = new ListAppender<>();
        seen.start();
        logger.addAppender(seen);
        try {
            AvailabilityLog a = new AvailabilityLog("Neo4j at bolt://db:7687");
            for (boolean up : new boolean[] {true, true, false, false, false, false, true, true, true}) {
                assertThat(a.probed(up)).isEqualTo(up);
            }
        } finally {
            logger.detachAppender(seen);
        }
        assertThat(seen.list).extracting(e -> e.getLevel() + " " + e.getFormattedMessage()).containsExactly(
                "WARN Neo4j at bolt://db:7687 does not answer: sync writes get 503, async writes wait in the journal",
                "INFO Neo4j at bolt://db:7687 answers again");
    }
}
