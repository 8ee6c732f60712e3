package io.sluice.http;

import io.sluice.vocab.Neo4jError;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The dashboard: the page at {@code GET /} (for a browser; {@link Discovery} decides) and its files under
 * {@code /dashboard/}: sluice's own script and style sheet, and the chart library uPlot (MIT; the
 * {@code org.webjars.npm:uplot} jar's built files, served as they are). Everything is read from the class path
 * once; nothing is fetched from elsewhere, and the page's Content-Security-Policy says so to the browser. The
 * script polls {@code GET /status} (the same document {@code sluice status} reads) and asks for credentials
 * when that answers 401. Open routes: the files hold no data.
 */
final class Dashboard {
    private static final String UPLOT = "/META-INF/resources/webjars/uplot/1.6.30/dist/";
    private static final String OWN = "/io/sluice/http/";

    /** A file served under {@code /dashboard/}: its bytes, media type and how long browsers may keep it. */
    private record Asset(byte[] body, String type, String cache) {}

    /** uPlot's version is in its resource path: its files change only with sluice's jar. */
    private static final String KEEP_A_DAY = "public, max-age=86400";
    /** sluice's own files: revalidated, so a new sluice's page never runs an old script. */
    private static final String REVALIDATE = "no-cache";

    private static final Asset PAGE = asset(OWN + "dashboard.html", "text/html; charset=utf-8", REVALIDATE);
    private static final Map<String, Asset> FILES = Map.of(
            "dashboard.js", asset(OWN + "dashboard.js", "text/javascript; charset=utf-8", REVALIDATE),
            "dashboard.css", asset(OWN + "dashboard.css", "text/css; charset=utf-8", REVALIDATE),
            "uplot.js", asset(UPLOT + "uPlot.iife.min.js", "text/javascript; charset=utf-8", KEEP_A_DAY),
            "uplot.css", asset(UPLOT + "uPlot.min.css", "text/css; charset=utf-8", KEEP_A_DAY));

    /**
     * Scripts and styles from this origin only (no inline script; inline styles for uPlot's own layout), no
     * connections elsewhere, not framed.
     */
    static final String POLICY = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline';"
            + " img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

    private Dashboard() {}

    /** The page itself. */
    static Reply page(HttpServerExchange ex) {
        ex.getResponseHeaders().put(HttpString.tryFromString("Content-Security-Policy"), POLICY);
        return serve(ex, PAGE);
    }

    /** {@code GET /dashboard/{file}}: one of the page's files, or 404. */
    static Reply file(HttpServerExchange ex, String name) {
        Asset a = name == null ? null : FILES.get(name);
        if (a == null) {
            return Reply.errorsOnly(404, Neo4jError.invalid("Not Found: no such dashboard file: " + name));
        }
        return serve(ex, a);
    }

    private static Reply serve(HttpServerExchange ex, Asset a) {
        ex.getResponseHeaders().put(Headers.CACHE_CONTROL, a.cache());
        ex.getResponseHeaders().put(HttpString.tryFromString("X-Content-Type-Options"), "nosniff");
        return new Reply(200, a.body(), a.type(), 0);
    }

    private static Asset asset(String resource, String type, String cache) {
        try (InputStream in = Dashboard.class.getResourceAsStream(resource)) {
            if (in == null) { // a packaging mistake: say so at class load, not with a blank page
                throw new IllegalStateException("the dashboard's " + resource + " is not on the class path");
            }
            return new Asset(in.readAllBytes(), type, cache);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
