package io.sluice.config;

import java.util.Locale;

/**
 * How a write is acknowledged; chosen per request with {@code ?mode=}, or by the config's {@link Modes} when the
 * request names none. It lives here, not in {@code write} where most of its users are, because the config holds
 * modes parsed and {@code write} depends on {@code config} (never the reverse): one enum for both.
 */
public enum Mode {
    /** Acknowledged after the transaction holding it commits; concurrent writes share transactions. */
    SYNC,
    /** Acknowledged after it is in the fsynced journal; applied later, exactly once. */
    ASYNC,
    /** Runs in a transaction of its own, as Neo4j's own HTTP API does. */
    DIRECT;

    /** Parses {@code sync|async|direct}; null or empty means {@link #SYNC}. */
    public static Mode parse(String text) {
        if (text == null || text.isEmpty()) {
            return SYNC;
        }
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "sync" -> SYNC;
            case "async" -> ASYNC;
            case "direct" -> DIRECT;
            default -> throw new IllegalArgumentException("unknown mode '" + text + "'; use sync, async or direct");
        };
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
