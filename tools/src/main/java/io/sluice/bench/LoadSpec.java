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
 * @param rate          requests/s of an open-loop run ({@link OpenLoop}, on {@code clients} connections); 0:
 *                      closed loop
 */
record LoadSpec(String uri, BenchApi api, String rawCypher, int clients, int rowsPerRequest, String authorization,
        String scenario, long seed, LoadClient client, long warmupNanos, long durationNanos, String label,
        double rate) {

    LoadSpec {
        if (rate < 0 || Double.isNaN(rate) || Double.isInfinite(rate)) {
            throw new IllegalArgumentException("an open-loop rate must be a positive number of requests/s (0: closed"
                    + " loop), got " + rate);
        }
        if (rate > 0 && client != LoadClient.NETTY) {
            throw new IllegalArgumentException("open-loop load (--rate) runs on the netty client only, not "
                    + client.label());
        }
    }

    HttpTarget target() {
        return new HttpTarget(URI.create(uri), clients, rowsPerRequest, authorization, api, rawCypher);
    }

    Duration total() {
        return Duration.ofNanos(warmupNanos + durationNanos);
    }
}
