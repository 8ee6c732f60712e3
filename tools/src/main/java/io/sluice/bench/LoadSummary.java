package io.sluice.bench;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a load generator measured in one mode's run, from the client's side; what a load in another process
 * sends back (as JSON) to the bench.
 *
 * @param clients        closed-loop clients (raw: 1 thread)
 * @param writes         rows acknowledged (2xx) by requests that completed in the measured window
 * @param acknowledged   rows acknowledged over the whole run (warm-up, window, and requests in flight at its
 *                       end): what the database must hold afterwards
 * @param uncertain      rows of requests over the whole run that failed in transport (status 0): applied or
 *                       not, nobody knows
 * @param errorsByStatus requests answered with anything but 2xx in the window, or with a 2xx whose body reports
 *                       errors ({@link Answers}), by status (0: transport)
 * @param samples        requests (raw: transactions) completed in the window
 * @param latencySumNanos their latencies added up (raw mode's time in transactions)
 * @param p999Ms         the 99.9th percentile latency
 * @param maxMs          the largest latency
 * @param open           open loop only ({@link OpenLoop}; else {@link OpenFigures#NONE}): how late requests started
 * @param errorsByCode   Bolt transactions that failed in the window ({@link BoltLoad}), by Neo4j status code, or by
 *                       the driver's exception where the server gave none; not in {@code errorsByStatus}
 */
record LoadSummary(int clients, long writes, long acknowledged, long uncertain, double p50Ms, double p99Ms,
        Map<Integer, Long> errorsByStatus, long samples, long latencySumNanos, double p999Ms, double maxMs,
        OpenFigures open, Map<String, Long> errorsByCode) {

    /**
     * What only an open-loop run has ({@link OpenLoop}); latencies there run from each request's intended send time.
     *
     * @param sent          requests of the measured window that were sent (answered, failed or abandoned)
     * @param late          of those, how many started more than {@link OpenLoop#LATE} after their intended time
     * @param startLagNanos their start lags (sent less intended) added up
     * @param notSent       requests of the measured window still waiting for a connection when it ended
     */
    record OpenFigures(long sent, long late, long startLagNanos, long notSent) {
        static final OpenFigures NONE = new OpenFigures(0, 0, 0, 0);

        double meanStartLagMs() {
            return sent > 0 ? startLagNanos / 1e6 / sent : 0;
        }
    }

    LoadSummary {
        errorsByStatus = Collections.unmodifiableMap(new TreeMap<>(errorsByStatus));
        open = open == null ? OpenFigures.NONE : open;
        errorsByCode = errorsByCode == null ? Map.of()
                : Collections.unmodifiableMap(new TreeMap<>(errorsByCode));
    }

    long errors() {
        return errorsByStatus.values().stream().mapToLong(Long::longValue).sum()
                + errorsByCode.values().stream().mapToLong(Long::longValue).sum();
    }
}
