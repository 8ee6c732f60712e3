package io.sluice.bench;

import java.net.URI;
import java.time.Duration;

/**
 * One mode's HTTP load as the bench hands it to a load generator, in this process or in the load process
 * ({@link LoadProcess}, as a JSON line): where to send what, how many clients, and the window's phases.
 *
 * @param scenario      the scenario whose rows are sent ({@link Scenario#named}), made from {@code seed}
 * @param label         what progress lines call the run, e.g. {@code visited query-v2:sync}
 * @param warmupNanos   warm-up before the measured window, from when the generator starts
 * @param durationNanos the measured window
 */
record LoadSpec(String uri, BenchApi api, String rawCypher, int clients, int rowsPerRequest, String authorization,
        String scenario, long seed, LoadClient client, long warmupNanos, long durationNanos, String label) {

    HttpTarget target() {
        return new HttpTarget(URI.create(uri), clients, rowsPerRequest, authorization, api, rawCypher);
    }

    Duration total() {
        return Duration.ofNanos(warmupNanos + durationNanos);
    }
}
