package io.sluice.bench;

import java.net.URI;
import java.time.Duration;

/**
 * Where and how hard HTTP load goes: a loopback URI (the bench never drives anything else), the number of
 * closed-loop clients, the rows in each request, and the {@code Authorization} header each carries (null: none).
 */
record HttpTarget(URI uri, int clients, int rowsPerRequest, String authorization) {
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** After a transport failure (refused, reset) a client pauses this long, so a dead server is not spun on. */
    static final Duration TRANSPORT_ERROR_PAUSE = Duration.ofMillis(10);

    HttpTarget {
        String host = uri.getHost();
        if (!"127.0.0.1".equals(host) && !"localhost".equals(host) && !"[::1]".equals(host)) {
            throw new IllegalArgumentException("the bench only drives a loopback server, not " + uri);
        }
        if (clients < 1) {
            throw new IllegalArgumentException("clients must be >= 1, got " + clients);
        }
    }

    /** The path and query of the URI, as a request line wants it. */
    String pathAndQuery() {
        return uri.getRawQuery() == null ? uri.getRawPath() : uri.getRawPath() + "?" + uri.getRawQuery();
    }
}
