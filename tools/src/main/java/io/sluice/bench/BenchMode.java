package io.sluice.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a bench run writes: through the HTTP API in one of sluice's modes, {@code raw}, sluice bypassed, or
 * {@code neo4j}, through Neo4j's own server instead of sluice.
 */
public enum BenchMode {
    /** One transaction per request: the baseline (Neo4j's own HTTP API behaves like this). */
    DIRECT,
    /** Group commit: acknowledged after the shared transaction commits. */
    SYNC,
    /** Acknowledged once journaled; applied later. */
    ASYNC,
    /** In-process {@code UNWIND} batches of 1000 rows, one thread, no HTTP: the limit sluice aims for. */
    RAW,
    /**
     * Not sluice: Neo4j's own Community server, the same rows through its Query API or classic
     * {@code tx/commit} (one transaction per request, as a client without sluice gets): the peer sluice replaces.
     */
    NEO4J;

    /** Rows per transaction in {@link #RAW} mode. */
    public static final int RAW_BATCH_ROWS = 1000;

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean overHttp() {
        return this != RAW;
    }

    public static BenchMode parse(String text) {
        for (BenchMode m : values()) {
            if (m.label().equals(text.trim().toLowerCase(Locale.ROOT))) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown mode '" + text + "'; use direct, sync, async, raw or neo4j");
    }

    /** Parses a comma-separated list such as {@code direct,sync,raw}; order is kept, duplicates are an error. */
    public static List<BenchMode> parseList(String text) {
        List<BenchMode> modes = new ArrayList<>();
        for (String part : text.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            BenchMode m = parse(part);
            if (modes.contains(m)) {
                throw new IllegalArgumentException("mode '" + m.label() + "' is listed twice in '" + text + "'");
            }
            modes.add(m);
        }
        if (modes.isEmpty()) {
            throw new IllegalArgumentException("no modes given in '" + text + "'");
        }
        return List.copyOf(modes);
    }
}
