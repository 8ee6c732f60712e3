package io.sluice.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** {@code GET /}: a live dashboard page (static HTML that polls /health and /metrics). */
final class Dashboard {
    private static final byte[] PAGE = load();

    private Dashboard() {}

    static Reply page() {
        return new Reply(200, PAGE, "text/html; charset=utf-8", 0);
    }

    private static byte[] load() {
        try (InputStream in = Dashboard.class.getResourceAsStream("/io/sluice/http/dashboard.html")) {
            return in == null ? "<h1>sluice</h1>".getBytes(java.nio.charset.StandardCharsets.UTF_8) : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
