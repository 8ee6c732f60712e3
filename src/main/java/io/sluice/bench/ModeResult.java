package io.sluice.bench;

import java.util.Map;
import java.util.TreeMap;

/**
 * One mode's measurement.
 *
 * @param writes         rows acknowledged (2xx, or committed in raw mode) during the measured time
 * @param errors         requests answered with anything but 2xx, or that failed in transport (status 0)
 * @param errorsByStatus those errors by HTTP status (0: transport failure or time-out)
 * @param p50Ms          median latency of a request (raw: of a transaction of {@link BenchMode#RAW_BATCH_ROWS})
 * @param sink           where the writes went ({@code embedded})
 * @param appliers       applier threads of the server
 */
public record ModeResult(BenchMode mode, int clients, long writes, double seconds, double writesPerS,
        double p50Ms, double p99Ms, long errors, Map<Integer, Long> errorsByStatus, String sink, int appliers,
        int rowsPerRequest) {

    public ModeResult {
        errorsByStatus = java.util.Collections.unmodifiableMap(new TreeMap<>(errorsByStatus));
    }
}
