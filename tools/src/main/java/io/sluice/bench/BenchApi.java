package io.sluice.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How an HTTP mode sends the scenario's rows: as a template write (sluice's own endpoint, coalesced into one
 * {@code UNWIND}), or as raw parameterized Cypher, the scenario's per-row statement with {@code $x} parameters
 * where the template reads {@code row.x}, through one of Neo4j's two HTTP APIs: what an unchanged Neo4j client
 * sends.
 */
public enum BenchApi {
    /** {@code POST /db/{db}/write/{scenario}}: the row, or an array of rows, as the body. */
    TEMPLATE("template"),
    /** {@code POST /db/{db}/tx/commit}: {@code {"statements": [{"statement", "parameters"}, ...]}}, a statement per row. */
    TX_COMMIT("tx-commit"),
    /** {@code POST /db/{db}/query/v2}: {@code {"statement", "parameters"}}, one row per request. */
    QUERY_V2("query-v2");

    private final String label;

    BenchApi(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The request path below {@code /db/{db}}, without the query string. */
    String path(String scenario) {
        return switch (this) {
            case TEMPLATE -> "/write/" + scenario;
            case TX_COMMIT -> "/tx/commit";
            case QUERY_V2 -> "/query/v2";
        };
    }

    public static BenchApi parse(String text) {
        for (BenchApi a : values()) {
            if (a.label.equals(text.trim().toLowerCase(Locale.ROOT))) {
                return a;
            }
        }
        throw new IllegalArgumentException("unknown api '" + text + "'; use template, tx-commit or query-v2");
    }

    /** Parses a comma-separated list such as {@code template,query-v2}; order is kept, duplicates are an error. */
    public static List<BenchApi> parseList(String text) {
        List<BenchApi> apis = new ArrayList<>();
        for (String part : text.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            BenchApi a = parse(part);
            if (apis.contains(a)) {
                throw new IllegalArgumentException("api '" + a.label + "' is listed twice in '" + text + "'");
            }
            apis.add(a);
        }
        if (apis.isEmpty()) {
            throw new IllegalArgumentException("no api given in '" + text + "'");
        }
        return List.copyOf(apis);
    }
}
