package io.sluice.bolt;

import io.sluice.vocab.Neo4jStatus;
import java.util.Locale;
import java.util.Map;

/**
 * The GQL status Bolt 5.7+ sends beside Neo4j's code in a FAILURE. Drivers decide on the Neo4j code (retry,
 * exception class); the GQL status and its description are shown to people. Sluice's errors carry Neo4j codes
 * only, so the status is the one Neo4j 2026.08 gives the code's most common cause
 * (docs/reference/neo4j-bolt-behaviour.md, section 5), and Neo4j's catch-all ({@code 50N42}, a general processing
 * exception) otherwise. The diagnostic record carries the code's classification, as Neo4j's does.
 */
record GqlStatus(String status, String description) {
    private static final GqlStatus GENERAL = new GqlStatus("50N42",
            "error: general processing exception - unexpected error");
    private static final GqlStatus INVALID_SYNTAX = new GqlStatus("42001",
            "error: syntax error or access rule violation - invalid syntax");

    private static final Map<String, GqlStatus> BY_CODE = Map.ofEntries(
            Map.entry(Neo4jStatus.Statement.SYNTAX_ERROR, INVALID_SYNTAX),
            Map.entry(Neo4jStatus.Statement.SEMANTIC_ERROR, INVALID_SYNTAX),
            Map.entry(Neo4jStatus.Statement.PARAMETER_MISSING, INVALID_SYNTAX),
            Map.entry(Neo4jStatus.Database.DATABASE_NOT_FOUND, INVALID_SYNTAX),
            Map.entry(Neo4jStatus.Schema.CONSTRAINT_VALIDATION_FAILED,
                    new GqlStatus("22N79", "error: data exception - property uniqueness constraint violated")),
            Map.entry(Neo4jStatus.Statement.ARITHMETIC_ERROR,
                    new GqlStatus("22012", "error: data exception - division by zero")),
            Map.entry(Neo4jStatus.Statement.ACCESS_MODE,
                    new GqlStatus("08N03", "error: connection exception - failed to write to a read-only database")),
            Map.entry(Neo4jStatus.Security.UNAUTHORIZED, new GqlStatus("42NFF",
                    "error: syntax error or access rule violation - permission/access denied")),
            Map.entry(Neo4jStatus.Security.FORBIDDEN, new GqlStatus("42NFF",
                    "error: syntax error or access rule violation - permission/access denied")),
            Map.entry(Neo4jStatus.Transaction.INVALID_BOOKMARK,
                    new GqlStatus("08N12", "error: connection exception - failed to parse bookmarks")),
            Map.entry(Neo4jStatus.Transaction.TRANSACTION_NOT_FOUND,
                    new GqlStatus("25N11", "error: invalid transaction state - invalid transaction")),
            Map.entry(Neo4jStatus.Request.INVALID,
                    new GqlStatus("08N06", "error: connection exception - protocol error")));

    static GqlStatus of(String neo4jCode) {
        return BY_CODE.getOrDefault(neo4jCode, GENERAL);
    }

    /** Neo4j's diagnostic record of an error: its classification ({@code CLIENT_ERROR} ...). */
    static Map<String, Object> diagnosticRecord(String neo4jCode) {
        String[] parts = neo4jCode.split("\\.");
        String classification = parts.length > 1 ? parts[1].replaceAll("([a-z])([A-Z])", "$1_$2")
                .toUpperCase(Locale.ROOT) : "DATABASE_ERROR";
        return Map.of("_classification", classification);
    }
}
