package io.sluice.bench;

import java.net.URI;
import java.time.Duration;

/**
 * Where and how hard HTTP load goes: a loopback URI (the bench never drives anything else), the number of
 * closed-loop clients, the rows in each request, the {@code Authorization} header each carries (null: none), and
 * the form of the body: {@code api}, with {@code rawCypher} the statement of the raw APIs.
 */
record HttpTarget(URI uri, int clients, int rowsPerRequest, String authorization, BenchApi api, String rawCypher) {
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** After a transport failure (refused, reset) a client pauses this long, so a dead server is not spun on. */
    static final Duration TRANSPORT_ERROR_PAUSE = Duration.ofMillis(10);

    HttpTarget {
        String host = uri.getHost();
        if (!"127.0.0.1".equals(host) && !"localhost".equals(host) && !"[::1]".equals(host)) {
            throw new IllegalArgumentException("the bench only drives a loopback server, not " + uri);
        }
        if (api == BenchApi.QUERY_V2 && rowsPerRequest != 1) {
            throw new IllegalArgumentException("the Query API takes one statement per request, so one row per request,"
                    + " not " + rowsPerRequest);
        }
        if (clients < 1) {
            throw new IllegalArgumentException("clients must be >= 1, got " + clients);
        }
    }

    /** The body of the next request, with the next rows of {@code rows}. */
    byte[] body(Scenario.RowSource rows) {
        return RequestBody.of(api, rawCypher, rows, rowsPerRequest);
    }

    /** The path and query of the URI, as a request line wants it. */
    String pathAndQuery() {
        return uri.getRawQuery() == null ? uri.getRawPath() : uri.getRawPath() + "?" + uri.getRawQuery();
    }
}
