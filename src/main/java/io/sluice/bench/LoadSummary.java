package io.sluice.bench;

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
 */
record LoadSummary(int clients, long writes, long acknowledged, long uncertain, double p50Ms, double p99Ms,
        Map<Integer, Long> errorsByStatus, long samples, long latencySumNanos) {

    LoadSummary {
        errorsByStatus = java.util.Collections.unmodifiableMap(new TreeMap<>(errorsByStatus));
    }

    long errors() {
        return errorsByStatus.values().stream().mapToLong(Long::longValue).sum();
    }
}
