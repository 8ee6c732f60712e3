package io.sluice.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a mode sends the scenario's rows: as a template write (sluice's own endpoint, coalesced into one
 * {@code UNWIND}), or as raw parameterized Cypher, the scenario's per-row statement with {@code $x} parameters
 * where the template reads {@code row.x}: through one of Neo4j's two HTTP APIs, or over Bolt with the official
 * Java driver in one of its three styles (a transaction per row): what an unchanged Neo4j client sends.
 */
public enum BenchApi {
    /** {@code POST /db/{db}/write/{scenario}}: the row, or an array of rows, as the body. */
    TEMPLATE("template"),
    /** {@code POST /db/{db}/tx/commit}: {@code {"statements": [{"statement", "parameters"}, ...]}}, a statement per row. */
    TX_COMMIT("tx-commit"),
    /** {@code POST /db/{db}/query/v2}: {@code {"statement", "parameters"}}, one row per request. */
    QUERY_V2("query-v2"),
    /** Bolt: {@code session.run(statement, row)}, its result consumed: an auto-commit transaction per row. */
    BOLT_RUN("bolt-run"),
    /**
     * Bolt: {@code session.run} as {@link #BOLT_RUN}, with the transaction metadata {@code {sluice: {counters:
     * false}}}: the client reads no update counters, so sluice may coalesce the writes (not a default style).
     */
    BOLT_RUN_UNCOUNTED("bolt-run-uncounted"),
    /** Bolt: {@code session.executeWrite(tx -> tx.run(statement, row).consume())}: a managed transaction per row. */
    BOLT_EXECUTE_WRITE("bolt-execute-write"),
    /** Bolt: {@code driver.executableQuery(statement).withParameters(row).execute()}, a row per call. */
    BOLT_EXECUTABLE_QUERY("bolt-executable-query"),
    /**
     * Bolt: {@link #BOLT_EXECUTE_WRITE} where 5% of the transactions (seeded per client) throw after their
     * statement, so that the driver rolls them back: what rollbacks cost grouped transactions (not a default style).
     */
    BOLT_EXECUTE_WRITE_ROLLBACK("bolt-execute-write-rollback"),
    /**
     * Bolt: {@link #BOLT_EXECUTE_WRITE} where 5% of the transactions (seeded per client) run, instead of the
     * scenario's statement, one that writes a node and then fails ({@code Neo.ClientError.Statement.ArithmeticError},
     * which the driver does not retry): what failing members cost grouped transactions (not a default style).
     */
    BOLT_EXECUTE_WRITE_FAIL("bolt-execute-write-fail"),
    /**
     * Bolt: {@code session.executeWrite} of three statements, the scenario's statement with three rows in turn: a
     * managed transaction of several statements (not a default style).
     */
    BOLT_EXECUTE_WRITE_3("bolt-execute-write-3"),
    /**
     * Bolt: {@code session.beginTransaction()}, the scenario's statement with three rows in turn, {@code commit()}:
     * an application's own (unmanaged) transaction of three statements, which its driver does not retry (not a
     * default style).
     */
    BOLT_TRANSACTION_3("bolt-transaction-3");

    /** The share of {@link #BOLT_EXECUTE_WRITE_ROLLBACK}'s transactions that roll back, and of the failing style's. */
    public static final double ROLLBACK_SHARE = 0.05;

    /** What {@code --api} calls the Bolt apis together: each of {@code --bolt-styles} in turn. */
    public static final String BOLT = "bolt";
    /** The Bolt styles' names in {@code --bolt-styles}, all of them, in the order they run by default. */
    public static final String BOLT_STYLES = "run,execute-write,executable-query";

    private final String label;

    BenchApi(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** Whether the rows go over Bolt, through the official driver, rather than over HTTP. */
    public boolean bolt() {
        return label.startsWith(BOLT + "-");
    }

    /** The request path below {@code /db/{db}}, without the query string; HTTP apis only. */
    String path(String scenario) {
        return switch (this) {
            case TEMPLATE -> "/write/" + scenario;
            case TX_COMMIT -> "/tx/commit";
            case QUERY_V2 -> "/query/v2";
            case BOLT_RUN, BOLT_RUN_UNCOUNTED, BOLT_EXECUTE_WRITE, BOLT_EXECUTABLE_QUERY, BOLT_EXECUTE_WRITE_ROLLBACK,
                    BOLT_EXECUTE_WRITE_FAIL, BOLT_EXECUTE_WRITE_3, BOLT_TRANSACTION_3 ->
                    throw new IllegalArgumentException(label + " goes over Bolt: it has no HTTP path");
        };
    }

    public static BenchApi parse(String text) {
        for (BenchApi a : values()) {
            if (a.label.equals(text.trim().toLowerCase(Locale.ROOT))) {
                return a;
            }
        }
        throw new IllegalArgumentException("unknown api '" + text + "'; use template, tx-commit, query-v2 or bolt");
    }

    /** Parses a comma-separated list such as {@code template,query-v2}; order is kept, duplicates are an error. */
    public static List<BenchApi> parseList(String text) {
        return parseList(text, null);
    }

    /**
     * {@link #parseList(String)}, where {@value #BOLT} stands for the Bolt apis of {@code boltStyles} ({@code
     * run,execute-write,executable-query} or some of them, in that order; null: all three). Styles given without
     * {@value #BOLT} in the list are an error: they would be ignored.
     */
    public static List<BenchApi> parseList(String text, String boltStyles) {
        List<BenchApi> apis = new ArrayList<>();
        boolean bolt = false;
        for (String part : text.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            List<BenchApi> these = part.strip().equalsIgnoreCase(BOLT)
                    ? boltStyles(boltStyles == null ? BOLT_STYLES : boltStyles) : List.of(parse(part));
            bolt |= part.strip().equalsIgnoreCase(BOLT);
            for (BenchApi a : these) {
                if (apis.contains(a)) {
                    throw new IllegalArgumentException("api '" + a.label + "' is listed twice in '" + text + "'");
                }
                apis.add(a);
            }
        }
        if (apis.isEmpty()) {
            throw new IllegalArgumentException("no api given in '" + text + "'");
        }
        if (boltStyles != null && !bolt) {
            throw new IllegalArgumentException("--bolt-styles choose how --api bolt writes: add bolt to --api '"
                    + text + "'");
        }
        return List.copyOf(apis);
    }

    /** The Bolt apis of {@code --bolt-styles}: {@code run}, {@code execute-write}, {@code executable-query}. */
    static List<BenchApi> boltStyles(String text) {
        List<BenchApi> apis = new ArrayList<>();
        for (String part : text.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            BenchApi a;
            try {
                a = parse(BOLT + "-" + part.strip());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown Bolt style '" + part.strip() + "'; use run, execute-write,"
                        + " executable-query, run-uncounted, execute-write-rollback, execute-write-fail, execute-write-3 or"
                        + " transaction-3", e);
            }
            if (apis.contains(a)) {
                throw new IllegalArgumentException("Bolt style '" + part.strip() + "' is listed twice in '" + text
                        + "'");
            }
            apis.add(a);
        }
        if (apis.isEmpty()) {
            throw new IllegalArgumentException("no Bolt style given in '" + text + "'");
        }
        return List.copyOf(apis);
    }
}
