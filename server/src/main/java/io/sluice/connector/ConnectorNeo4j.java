package io.sluice.connector;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;

/**
 * The Neo4j the connector writes to: {@code neo4j.uri}, {@code neo4j.database}, authentication and TLS, and
 * the driver's settings, checked.
 */
final class ConnectorNeo4j {
    private ConnectorNeo4j() {}

    /** The Neo4j connection: {@code neo4j.uri}, {@code neo4j.database}, authentication and TLS. */
    static Neo4jSink neo4j(ConnectorSettings s) {
        String uri = uri(s);
        String database = s.optional("neo4j.database");
        if (database == null) {
            s.note("neo4j.database", "not set: the connector writes to the server's default database; sluice names"
                    + " one, neo4j.database in its config or --database (default neo4j)");
        }
        String[] credentials = credentials(s);
        uri = tls(s, uri);
        connectionSettings(s);
        return new Neo4jSink(uri, credentials[0], credentials[1], database);
    }

    private static String uri(ConnectorSettings s) {
        List<String> uris = s.list("neo4j.uri");
        if (uris.isEmpty()) {
            s.refuse("neo4j.uri", "missing: the connector requires it");
            return null;
        }
        boolean valid = true;
        for (String u : uris) {
            try {
                URI parsed = new URI(u);
                if (!ConnectorNames.SCHEMES.contains(parsed.getScheme()) || parsed.getHost() == null) {
                    s.refuse("neo4j.uri", "'" + u + "': a URI such as neo4j://host:7687 is needed, its scheme one of "
                            + ConnectorNames.SCHEMES);
                    valid = false;
                } else if (parsed.getUserInfo() != null) {
                    s.refuse("neo4j.uri", "'" + u + "': credentials belong in neo4j.authentication.basic.*, not in"
                            + " the URI");
                    valid = false;
                }
            } catch (URISyntaxException e) {
                s.refuse("neo4j.uri", "'" + u + "' is not a URI: " + e.getMessage());
                valid = false;
            }
        }
        if (uris.size() > 1) {
            s.note("neo4j.uri", "several URIs: sluice connects to the first, " + uris.get(0) + "; the connector gives"
                    + " the driver all of them as the addresses the first resolves to (its first routers), sluice"
                    + " only that one");
        }
        return valid ? uris.get(0) : null;
    }

    /** The Basic user and password, or none; the other authentication types are refused. */
    private static String[] credentials(ConnectorSettings s) {
        String type = s.oneOf("neo4j.authentication.type", "BASIC",
                List.of("NONE", "BASIC", "KERBEROS", "BEARER", "CUSTOM"));
        String user = s.optional("neo4j.authentication.basic.username");
        String password = s.optional("neo4j.authentication.basic.password");
        String realm = s.optional("neo4j.authentication.basic.realm");
        for (String other : List.of("kerberos.ticket", "bearer.token", "custom.scheme", "custom.principal",
                "custom.credentials", "custom.realm")) {
            if (s.optional("neo4j.authentication." + other) != null) {
                s.refuse("neo4j.authentication." + other, "sluice's Bolt sink authenticates with Basic or none only");
            }
        }
        switch (type) {
            case "NONE" -> {
                if (user != null || password != null || realm != null) {
                    s.note("neo4j.authentication.basic.*", "not used: neo4j.authentication.type is NONE, as in the"
                            + " connector");
                }
                return new String[] {null, null};
            }
            case "BASIC" -> {
                if (user == null) {
                    s.refuse("neo4j.authentication.basic.username", "missing: Basic authentication needs it (the"
                            + " connector refuses it too)");
                }
                if (password == null) {
                    s.refuse("neo4j.authentication.basic.password", "missing: Basic authentication needs it (the"
                            + " connector refuses it too)");
                }
                if (realm != null) {
                    s.refuse("neo4j.authentication.basic.realm", "sluice's Bolt sink sends Basic credentials without"
                            + " a realm");
                }
                return new String[] {user, password};
            }
            default -> {
                s.refuse("neo4j.authentication.type", type + ": sluice's Bolt sink authenticates with BASIC or NONE");
                return new String[] {null, null};
            }
        }
    }

    /**
     * TLS as the connector sets it up: with a {@code +s} or {@code +ssc} URI the scheme decides and
     * {@code neo4j.security.*} is not read; otherwise {@code neo4j.security.encrypted} turns TLS on, which sluice's
     * Bolt sink spells as the scheme: {@code +s} (system CAs, host name checked) or {@code +ssc} (any certificate).
     */
    private static String tls(ConnectorSettings s, String uri) {
        boolean encrypted = s.connectorBoolean("neo4j.security.encrypted", false);
        String trust = s.oneOf("neo4j.security.trust-strategy", "TRUST_SYSTEM_CA_SIGNED_CERTIFICATES",
                List.of("TRUST_ALL_CERTIFICATES", "TRUST_CUSTOM_CA_SIGNED_CERTIFICATES",
                        "TRUST_SYSTEM_CA_SIGNED_CERTIFICATES"));
        boolean hostnames = s.connectorBoolean("neo4j.security.hostname-verification-enabled", true);
        List<String> certFiles = s.list("neo4j.security.cert-files");
        boolean set = s.anyUnder("neo4j.security.");
        if (uri == null) {
            return null;
        }
        String scheme = uri.substring(0, uri.indexOf(':'));
        String rest = uri.substring(uri.indexOf(':'));
        if (scheme.endsWith("+s") || scheme.endsWith("+ssc")) {
            if (set) {
                s.note("neo4j.security.*", "not used: the URI's scheme says how TLS is set up, as in the connector");
            }
            return uri;
        }
        if (!encrypted) {
            if (set) {
                s.note("neo4j.security.*", "plain Bolt: neo4j.security.encrypted is false, as in the connector");
            }
            return uri;
        }
        if (!certFiles.isEmpty() && !trust.equals("TRUST_CUSTOM_CA_SIGNED_CERTIFICATES")) {
            s.note("neo4j.security.cert-files", "not used: the trust strategy is " + trust + ", as in the connector");
        }
        if (trust.equals("TRUST_ALL_CERTIFICATES")) {
            s.note("neo4j.security.encrypted", "TLS trusting any certificate: the URI's scheme becomes " + scheme
                    + "+ssc");
            return scheme + "+ssc" + rest;
        }
        if (trust.equals("TRUST_CUSTOM_CA_SIGNED_CERTIFICATES")) {
            s.refuse("neo4j.security.trust-strategy", "TRUST_CUSTOM_CA_SIGNED_CERTIFICATES (" + certFiles + "):"
                    + " sluice's Bolt sink trusts the JVM's CAs (" + scheme + "+s) or any certificate (" + scheme
                    + "+ssc), not CA files of its own");
            return uri;
        }
        if (!hostnames) {
            s.refuse("neo4j.security.hostname-verification-enabled", "false: sluice's Bolt sink checks the host name"
                    + " of a CA-signed certificate (" + scheme + "+s); " + scheme + "+ssc trusts any certificate");
            return uri;
        }
        s.note("neo4j.security.encrypted", "TLS with the system's CAs: the URI's scheme becomes " + scheme + "+s");
        return scheme + "+s" + rest;
    }

    /** The driver's pool and timeout settings, checked; sluice's Bolt sink sizes and times its own. */
    private static void connectionSettings(ConnectorSettings s) {
        if (s.has("neo4j.pool.max-connection-pool-size")) {
            s.integer("neo4j.pool.max-connection-pool-size", 100, 1);
            s.note("neo4j.pool.max-connection-pool-size", "accepted, not used: sluice's Bolt sink sizes its own"
                    + " pool");
        }
        for (String d : List.of("neo4j.connection-timeout", "neo4j.pool.connection-acquisition-timeout",
                "neo4j.pool.idle-time-before-connection-test", "neo4j.pool.max-connection-lifetime")) {
            if (s.duration(d)) {
                s.note(d, "accepted, not used: sluice's Bolt sink uses the driver's defaults and a 5s connection"
                        + " timeout");
            }
        }
        if (s.duration("neo4j.max-retry-time")) {
            s.note("neo4j.max-retry-time", "accepted, not used: sluice retries transient errors (Neo4j unavailable,"
                    + " deadlocks, lock timeouts) without limit, with capped backoff (retry.*), and never gives up"
                    + " on a record for them");
        }
    }
}
