package io.sluice.bench;

import java.util.Map;
import java.util.TreeMap;

/**
 * One mode's measurement.
 *
 * @param client         the load generator: {@code netty} or {@code jdk} over HTTP, {@code in-process} for raw
 * @param clients        closed-loop clients (raw: 1 thread)
 * @param rowsPerRequest rows per request (raw: rows per transaction)
 * @param writes         rows acknowledged (2xx, or committed in raw mode) during the measured time
 * @param p50Ms          median latency of a request (raw: of a transaction)
 * @param errors         requests answered with anything but 2xx, or that failed in transport (status 0)
 * @param errorsByStatus those errors by HTTP status (0: transport failure or time-out)
 * @param sink           where the writes went ({@code embedded})
 * @param appliers       applier threads of the server
 * @param auth           whether the server checked credentials (every HTTP request carried them)
 * @param server         what the server did in the measured time (raw: the raw loop's transactions)
 */
public record ModeResult(BenchMode mode, String client, int clients, int rowsPerRequest, long writes, double seconds,
        double p50Ms, double p99Ms, long errors, Map<Integer, Long> errorsByStatus, String sink, int appliers,
        boolean auth, ServerStats server) {

    public ModeResult {
        errorsByStatus = java.util.Collections.unmodifiableMap(new TreeMap<>(errorsByStatus));
    }

    public double writesPerS() {
        return seconds > 0 ? writes / seconds : 0;
    }
}
