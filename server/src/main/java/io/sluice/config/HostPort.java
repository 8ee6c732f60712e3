package io.sluice.config;

/**
 * A host and port, parsed from {@code HOST:PORT}: a listener's or a server's address from flags and config, used by
 * every part that listens or connects (front ends, the embedded Neo4j, the CLI, the bench).
 */
public record HostPort(String host, int port) {
    public HostPort {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
    }

    public static HostPort parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("expected HOST:PORT, got '" + text + "'");
        }
        try {
            return new HostPort(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected HOST:PORT, got '" + text + "'", e);
        }
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
