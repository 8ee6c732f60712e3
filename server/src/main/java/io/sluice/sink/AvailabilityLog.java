package io.sluice.sink;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One log line when a database stops answering and one when it answers again, however often it is probed
 * ({@code /health}, and the {@code sluice_sink_up} gauge that the metrics history samples every second).
 * Thread-safe.
 */
final class AvailabilityLog {
    private static final Logger log = LoggerFactory.getLogger(AvailabilityLog.class);
    private final String database;
    private boolean up = true; // guarded by this; a sink is built once its database answers

    /** {@code database}: how the lines name it, e.g. {@code Neo4j at bolt://db:7687}. */
    AvailabilityLog(String database) {
        this.database = database;
    }

    /** Records a probe's answer; returns it. */
    synchronized boolean probed(boolean available) {
        if (available != up) {
            up = available;
            if (available) {
                log.info("{} answers again", database);
            } else {
                log.warn("{} does not answer: sync writes get 503, async writes wait in the journal", database);
            }
        }
        return available;
    }
}
