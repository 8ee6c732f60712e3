package io.sluice.vocab;

import java.util.Objects;

/**
 * An error as Neo4j reports it: a status code such as {@code Neo.ClientError.Schema.ConstraintValidationFailed}
 * and a message. Sluice's own errors use the same shape and Neo4j's code families. {@code outcomeUnknown}: a commit
 * that may or may not have happened ({@link #commitOutcomeUnknown}), which no one may retry blindly; each protocol
 * tells it its own way (HTTP's statuses in {@code http.Reply}, Bolt's FAILUREs in {@code bolt.BoltFailures}).
 */
public record Neo4jError(String code, String message, boolean outcomeUnknown) {
    public Neo4jError {
        Objects.requireNonNull(code, "code");
        message = message == null ? "" : message;
    }

    /** An error as Neo4j reports it: its code and message. */
    public Neo4jError(String code, String message) {
        this(code, message, false);
    }

    /** A client's mistake: retrying the same request cannot succeed. */
    public boolean isClientError() {
        return code.startsWith(Neo4jStatus.Classification.CLIENT_ERROR);
    }

    /** Worth retrying as is: deadlocks, lock timeouts, a database that is briefly unavailable. */
    public boolean isTransient() {
        return code.startsWith(Neo4jStatus.Classification.TRANSIENT_ERROR);
    }

    /**
     * A schema command found its index or constraint already there (the equivalent one, or one of that name):
     * for an idempotent start-up, not an error.
     */
    public boolean isAlreadyExists() {
        return switch (code) {
            case Neo4jStatus.Schema.EQUIVALENT_SCHEMA_RULE_ALREADY_EXISTS,
                 Neo4jStatus.Schema.CONSTRAINT_ALREADY_EXISTS,
                 Neo4jStatus.Schema.INDEX_ALREADY_EXISTS -> true;
            default -> false;
        };
    }

    /** How the message of {@link #commitOutcomeUnknown} begins, for whoever reads it. */
    private static final String OUTCOME_UNKNOWN = "the outcome of the commit is unknown:";

    /**
     * A commit whose outcome is unknown (the connection to a remote Neo4j lost during it): transient for HTTP,
     * as before; a front end whose clients retry transient errors by themselves must not say so
     * ({@link #isCommitOutcomeUnknown}).
     */
    public static Neo4jError commitOutcomeUnknown(String detail) {
        return new Neo4jError(Neo4jStatus.General.DATABASE_UNAVAILABLE, OUTCOME_UNKNOWN
                + " the transaction may or may not have been committed (" + detail + ")", true);
    }

    /** Whether this is a {@link #commitOutcomeUnknown}: retrying it could apply a write twice. */
    public boolean isCommitOutcomeUnknown() {
        return outcomeUnknown;
    }

    /** Something went wrong that has no better code: a bug, or an exception sluice did not expect. */
    public static Neo4jError unknown(String message) {
        return new Neo4jError(Neo4jStatus.General.UNKNOWN_ERROR, message);
    }

    public static Neo4jError invalidFormat(String message) {
        return new Neo4jError(Neo4jStatus.Request.INVALID_FORMAT, message);
    }

    public static Neo4jError invalid(String message) {
        return new Neo4jError(Neo4jStatus.Request.INVALID, message);
    }

    public static Neo4jError parameterMissing(String message) {
        return new Neo4jError(Neo4jStatus.Statement.PARAMETER_MISSING, message);
    }

    public static Neo4jError typeError(String message) {
        return new Neo4jError(Neo4jStatus.Statement.TYPE_ERROR, message);
    }
}
