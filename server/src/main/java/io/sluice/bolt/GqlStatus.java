package io.sluice.bolt;

import io.sluice.sink.Neo4jStatus;
import java.util.Map;

/**
 * The GQL status Bolt 5.7+ sends beside Neo4j's code in a FAILURE. Drivers decide on the Neo4j code (retry,
 * exception class); the GQL status and its description are shown to people. Sluice's errors carry Neo4j codes
 * only, so the status is the one Neo4j gives the code's most common cause, and Neo4j's catch-all
 * ({@code 50N42}, a general processing exception) otherwise.
 */
record GqlStatus(String status, String description) {
    private static final GqlStatus GENERAL = new GqlStatus("50N42",
            "error: general processing exception - unexpected error");

    private static final Map<String, GqlStatus> BY_CODE = Map.ofEntries(
            Map.entry(Neo4jStatus.Statement.SYNTAX_ERROR,
                    new GqlStatus("42001", "error: syntax error or access rule violation - invalid syntax")),
            Map.entry(Neo4jStatus.Statement.PARAMETER_MISSING,
                    new GqlStatus("42N51", "error: syntax error or access rule violation - invalid parameter")),
            Map.entry(Neo4jStatus.Schema.CONSTRAINT_VALIDATION_FAILED,
                    new GqlStatus("22N41", "error: data exception - node property uniqueness constraint violated")),
            Map.entry(Neo4jStatus.Security.UNAUTHORIZED,
                    new GqlStatus("42NFF", "error: syntax error or access rule violation - permission/access denied")),
            Map.entry(Neo4jStatus.Security.FORBIDDEN,
                    new GqlStatus("42NFF", "error: syntax error or access rule violation - permission/access denied")),
            Map.entry(Neo4jStatus.Database.DATABASE_NOT_FOUND,
                    new GqlStatus("22N51", "error: data exception - graph reference not found")),
            Map.entry(Neo4jStatus.Transaction.TRANSACTION_NOT_FOUND,
                    new GqlStatus("25N11", "error: invalid transaction state - invalid transaction")),
            Map.entry(Neo4jStatus.Request.INVALID,
                    new GqlStatus("08N06", "error: connection exception - protocol error")));

    static GqlStatus of(String neo4jCode) {
        GqlStatus g = BY_CODE.get(neo4jCode);
        if (g != null) {
            return g;
        }
        return neo4jCode.startsWith(Neo4jStatus.Classification.TRANSIENT_ERROR)
                ? new GqlStatus("50N42", GENERAL.description) : GENERAL;
    }

    /** Neo4j's default diagnostic record. */
    static Map<String, Object> diagnosticRecord() {
        return Map.of("OPERATION", "", "OPERATION_CODE", "0", "CURRENT_SCHEMA", "/");
    }
}
