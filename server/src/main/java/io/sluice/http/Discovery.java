package io.sluice.http;

import io.sluice.vocab.Neo4jError;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code GET /}: Neo4j's discovery document for a client that asks for JSON (or names no type), the dashboard for
 * a browser, 406 for anything else, as a Neo4j 2026.08 server answers (checked against one). The HTTP URLs are
 * built from where the client reached sluice ({@code X-Forwarded-Proto} and {@code X-Forwarded-Host}, else the
 * request's scheme and {@code Host}), the Bolt URLs from the Bolt address clients should use.
 *
 * @param bolt          {@code host:port} of the Bolt server clients should use (the embedded connector, or the
 *                      Neo4j behind {@code --neo4j}); null: none, and the Bolt fields are left out
 * @param neo4jVersion  the Neo4j behind sluice
 * @param sluiceVersion sluice's own version, in a field of its own
 */
record Discovery(String bolt, String neo4jVersion, String sluiceVersion) {

    Reply answer(HttpServerExchange ex) {
        ex.getResponseHeaders().put(Headers.VARY, "Accept");
        ex.getResponseHeaders().put(HttpString.tryFromString("Access-Control-Allow-Origin"), "*");
        String accept = ex.getRequestHeaders().getFirst(Headers.ACCEPT);
        return switch (wants(accept)) {
            case JSON -> Reply.json(200, document(base(ex)));
            case HTML -> Dashboard.page(ex);
            case NEITHER -> Reply.errorsOnly(406, Neo4jError.invalid("Not Acceptable")); // Neo4j's errors-only body
        };
    }

    private enum Wants { JSON, HTML, NEITHER }

    /** A browser names text/html first; JSON clients name JSON, anything, or nothing. */
    private static Wants wants(String accept) {
        if (accept == null || accept.isBlank()) {
            return Wants.JSON;
        }
        for (String part : accept.split(",")) {
            String type = part.split(";")[0].strip().toLowerCase(Locale.ROOT);
            switch (type) {
                case "text/html", "application/xhtml+xml" -> {
                    return Wants.HTML;
                }
                case "application/json", "application/*", "*/*" -> {
                    return Wants.JSON;
                }
                default -> { }
            }
        }
        return Wants.NEITHER;
    }

    /** {@code scheme://host[:port]} as the client reached sluice. */
    static String base(HttpServerExchange ex) {
        String proto = ex.getRequestHeaders().getFirst("X-Forwarded-Proto");
        String host = ex.getRequestHeaders().getFirst("X-Forwarded-Host");
        if (host != null && isPrivateAddress(host)) {
            host = null; // as Neo4j: a forwarded private IP is not where clients should go (x_forward.private_ips_enabled)
        }
        if (host == null) {
            host = ex.getRequestHeaders().getFirst(Headers.HOST);
        }
        if (host == null) {
            host = ex.getHostAndPort();
        }
        return (proto != null ? proto : ex.getRequestScheme()) + "://" + host;
    }

    /** A literal private (site-local) IPv4 or IPv6 address, port or not; names are never private here. */
    static boolean isPrivateAddress(String hostAndPort) {
        String h = hostAndPort.startsWith("[") ? hostAndPort.substring(1, Math.max(1, hostAndPort.indexOf(']')))
                : hostAndPort.replaceFirst(":\\d+$", "");
        String octet = "(25[0-5]|2[0-4]\\d|1?\\d?\\d)";
        if (!h.matches("(" + octet + "\\.){3}" + octet) && !h.matches("[0-9a-fA-F:.]+:[0-9a-fA-F:.]*")) {
            return false; // a name, or not a valid literal: never looked up
        }
        try {
            InetAddress a = InetAddress.getByName(h); // a literal: no name lookup
            return a.isSiteLocalAddress() || a.isLoopbackAddress() || a.isLinkLocalAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    Map<String, Object> document(String base) {
        Map<String, Object> d = new LinkedHashMap<>();
        if (bolt != null) {
            d.put("bolt_routing", "neo4j://" + bolt);
        }
        d.put("query", base + "/db/{databaseName}/query/v2");
        d.put("transaction", base + "/db/{databaseName}/tx");
        if (bolt != null) {
            d.put("bolt_direct", "bolt://" + bolt);
        }
        d.put("neo4j_version", neo4jVersion);
        d.put("neo4j_edition", "community");
        d.put("sluice", Map.of("version", sluiceVersion));
        return d;
    }
}
