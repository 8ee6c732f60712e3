package io.sluice.bench;

import java.net.URI;
import java.time.Duration;

/**
 * One mode's load as the bench hands it to a load generator, in this process or in the load process
 * ({@link LoadProcess}, as a JSON line): where to send what, how many clients, and the window's phases. Over HTTP
 * ({@code uri} an {@code http://} URL) or, for the Bolt apis ({@link BenchApi#bolt}), over Bolt ({@code uri} a
 * {@code bolt://} address, {@code clients} sessions of the official driver, {@link BoltLoad}).
 *
 * @param authorization the HTTP {@code Authorization} header the requests carry (null: none); over Bolt, the same
 *                      Basic credentials are the driver's ({@link BoltWriter#authToken})
 * @param client        the HTTP load generator (not used over Bolt)
 * @param scenario      the scenario whose rows are sent ({@link Scenario#named}), made from {@code seed}
 * @param label         what progress lines call the run, e.g. {@code visited query-v2:sync}
 * @param warmupNanos   warm-up before the measured window, from when the generator starts
 * @param durationNanos the measured window
 * @param rate          requests/s of an open-loop run ({@link OpenLoop}, on {@code clients} connections); 0:
 *                      closed loop
 * @param database      the database the Bolt apis write to (an HTTP uri names its own)
 */
record LoadSpec(String uri, BenchApi api, String rawCypher, int clients, int rowsPerRequest, String authorization,
        String scenario, long seed, LoadClient client, long warmupNanos, long durationNanos, String label,
        double rate, String database) {

    LoadSpec {
        if (rate < 0 || Double.isNaN(rate) || Double.isInfinite(rate)) {
            throw new IllegalArgumentException("an open-loop rate must be a positive number of requests/s (0: closed"
                    + " loop), got " + rate);
        }
        if (rate > 0 && client != LoadClient.NETTY && !api.bolt()) {
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
