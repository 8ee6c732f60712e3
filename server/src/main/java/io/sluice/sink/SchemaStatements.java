package io.sluice.sink;

import io.sluice.time.Time;
import io.sluice.vocab.Counter;
import io.sluice.vocab.GraphException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Schema statements run at start-up ({@code CREATE CONSTRAINT ... IF NOT EXISTS}, a config's schema). The
 * instances of a fleet that start together run the same ones on one Neo4j at the same moment, and Neo4j may then
 * end one of them as a deadlock victim (both hold the label's shared lock and want it exclusive): a transient error,
 * tried again here, so that the instance starts instead of failing.
 */
public final class SchemaStatements {
    /** Attempts at most, the last one's error thrown. */
    static final int ATTEMPTS = 10;
    private static final Duration PAUSE = Duration.ofMillis(20);
    private static final List<Counter> SCHEMA_COUNTERS = List.of(Counter.INDEXES_ADDED, Counter.INDEXES_REMOVED,
            Counter.CONSTRAINTS_ADDED, Counter.CONSTRAINTS_REMOVED);

    private SchemaStatements() {}

    /**
     * Runs {@code statement}; one that says the rule exists already is fine, a transient error is tried again
     * after a pause (attempt × 20 ms), up to {@link #ATTEMPTS} times. Returns whether it changed the schema (an
     * index or constraint added or removed), false when it was there already.
     */
    public static boolean ensure(Sink sink, String statement, Time time) throws GraphException {
        for (int attempt = 1; ; attempt++) {
            try {
                Map<String, Object> counters = sink.runImplicit(statement, Map.of()).counters();
                return SCHEMA_COUNTERS.stream().anyMatch(c -> counters.get(c.key()) instanceof Number n && n.longValue() > 0);
            } catch (GraphException e) {
                if (e.error().isAlreadyExists()) {
                    return false;
                }
                if (!e.isTransient() || attempt >= ATTEMPTS) {
                    throw e;
                }
                try {
                    time.sleep(PAUSE.multipliedBy(attempt));
                } catch (InterruptedException stopped) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }
}
