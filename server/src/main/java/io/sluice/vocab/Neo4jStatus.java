package io.sluice.vocab;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.neo4j.kernel.api.exceptions.Status;


/**
 * The Neo4j status codes sluice uses, each named here once: every code sluice emits or tests for. They are
 * Neo4j's codes as Neo4j 2026.08 sends them ({@code Status}), grouped and named
 * after Neo4j's own ({@code Status.Security.Forbidden} is {@link Security#FORBIDDEN}), plus, in {@link Sluice},
 * the few sluice makes up in the same shape where Neo4j has none. No other class spells a code out
 * ({@code StatusCodesTest} checks both). Named {@code Neo4jStatus}, not {@code Status}, so that it never hides
 * Neo4j's {@code Status} in a file that needs both.
 */
public final class Neo4jStatus {
    /** Every code named here (each group's constants), for those that list them (the metrics' zero series). */
    public static List<String> all() {
        List<String> out = new ArrayList<>();
        for (Class<?> group : Neo4jStatus.class.getDeclaredClasses()) {
            for (Field f : group.getDeclaredFields()) {
                int m = f.getModifiers();
                if (Modifier.isStatic(m) && Modifier.isPublic(m)
                        && f.getType() == String.class) {
                    try {
                        String v = (String) f.get(null);
                        if (v.matches("Neo\\.[A-Za-z]+\\.[A-Za-z]+\\.[A-Za-z]+")) { // a code, not a prefix
                            out.add(v);
                        }
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
        return out;
    }

    private Neo4jStatus() {
    }

    /** How every code begins. */
    public static final String PREFIX = "Neo.";

    /** The first part of a code: whether retrying can help. */
    public static final class Classification {
        private Classification() {
        }

        public static final String CLIENT_ERROR = "Neo.ClientError.";
        public static final String TRANSIENT_ERROR = "Neo.TransientError.";
    }

    public static final class Request {
        private Request() {
        }

        public static final String INVALID = "Neo.ClientError.Request.Invalid";
        public static final String INVALID_FORMAT = "Neo.ClientError.Request.InvalidFormat";
        public static final String RESOURCE_EXHAUSTION = "Neo.TransientError.Request.ResourceExhaustion";
        /** Neo4j's own overload answer over Bolt (its worker pool full): drivers retry it. */
        public static final String NO_THREADS_AVAILABLE = "Neo.TransientError.Request.NoThreadsAvailable";
        /** A notification, not an error: the classic HTTP API's deprecation. */
        public static final String FEATURE_DEPRECATION_WARNING = "Neo.ClientNotification.Request.FeatureDeprecationWarning";
    }

    public static final class Security {
        private Security() {
        }

        /** How every security code begins. */
        public static final String PREFIX = "Neo.ClientError.Security.";
        public static final String UNAUTHORIZED = "Neo.ClientError.Security.Unauthorized";
        public static final String FORBIDDEN = "Neo.ClientError.Security.Forbidden";
        public static final String AUTHENTICATION_RATE_LIMIT = "Neo.ClientError.Security.AuthenticationRateLimit";
        public static final String CREDENTIALS_EXPIRED = "Neo.ClientError.Security.CredentialsExpired";
    }

    public static final class Transaction {
        private Transaction() {
        }

        public static final String TRANSACTION_NOT_FOUND = "Neo.ClientError.Transaction.TransactionNotFound";
        public static final String TRANSACTION_ACCESSED_CONCURRENTLY =
                "Neo.ClientError.Transaction.TransactionAccessedConcurrently";
        public static final String FORBIDDEN_DUE_TO_TRANSACTION_TYPE =
                "Neo.ClientError.Transaction.ForbiddenDueToTransactionType";
        public static final String MAXIMUM_TRANSACTION_LIMIT_REACHED =
                "Neo.TransientError.Transaction.MaximumTransactionLimitReached";
        public static final String DEADLOCK_DETECTED = "Neo.TransientError.Transaction.DeadlockDetected";
        /**
         * Neo4j's "state invalidated while the transaction was active; may succeed if retried": what a member of an
         * aborted transaction group is told (transient, so every driver's managed transaction retries it).
         */
        public static final String OUTDATED = "Neo.TransientError.Transaction.Outdated";
        public static final String INVALID_BOOKMARK = "Neo.ClientError.Transaction.InvalidBookmark";
        /** A commit that failed, or whose outcome is unknown: a database error, which drivers do not retry. */
        public static final String TRANSACTION_COMMIT_FAILED = "Neo.DatabaseError.Transaction.TransactionCommitFailed";
    }

    public static final class Statement {
        private Statement() {
        }

        /** A notification, not an error: a statement planned without the parameters it refers to (sluice's plans). */
        public static final String PARAMETER_NOT_PROVIDED = "Neo.ClientNotification.Statement.ParameterNotProvided";

        /** What every statement's own error's code starts with. */
        public static final String PREFIX = "Neo.ClientError.Statement.";

        public static final String ACCESS_MODE = "Neo.ClientError.Statement.AccessMode";
        public static final String ARGUMENT_ERROR = "Neo.ClientError.Statement.ArgumentError";
        public static final String PARAMETER_MISSING = "Neo.ClientError.Statement.ParameterMissing";
        public static final String TYPE_ERROR = "Neo.ClientError.Statement.TypeError";
        public static final String EXTERNAL_RESOURCE_FAILED = "Neo.ClientError.Statement.ExternalResourceFailed";
        public static final String SYNTAX_ERROR = "Neo.ClientError.Statement.SyntaxError";
        public static final String ARITHMETIC_ERROR = "Neo.ClientError.Statement.ArithmeticError";
        public static final String SEMANTIC_ERROR = "Neo.ClientError.Statement.SemanticError";
    }

    public static final class Schema {
        private Schema() {
        }

        public static final String CONSTRAINT_VALIDATION_FAILED = "Neo.ClientError.Schema.ConstraintValidationFailed";
        public static final String EQUIVALENT_SCHEMA_RULE_ALREADY_EXISTS =
                "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists";
        public static final String CONSTRAINT_ALREADY_EXISTS = "Neo.ClientError.Schema.ConstraintAlreadyExists";
        public static final String INDEX_ALREADY_EXISTS = "Neo.ClientError.Schema.IndexAlreadyExists";
    }

    public static final class Database {
        private Database() {
        }

        public static final String DATABASE_NOT_FOUND = "Neo.ClientError.Database.DatabaseNotFound";
    }

    public static final class General {
        private General() {
        }

        public static final String DATABASE_UNAVAILABLE = "Neo.TransientError.General.DatabaseUnavailable";
        public static final String UNKNOWN_ERROR = "Neo.DatabaseError.General.UnknownError";
    }

    /** Sluice's own codes, in Neo4j's shape: Neo4j 2026.08 sends none of them. */
    public static final class Sluice {
        private Sluice() {
        }

        /** A log's partition another applier has moved on (sluice's fence on the position in the graph). */
        public static final String PARTITION_FENCED = "Neo.TransientError.Sluice.PartitionFenced";
        /**
         * A log's partition held at a record that failed alone and could not be dead-lettered (none configured, or
         * the dead letters' bound per minute reached): nothing after it is applied until it is.
         */
        public static final String PARTITION_HELD = "Neo.TransientError.Sluice.PartitionHeld";
        /** A request body over {@code admission.max_body_bytes} (413). */
        public static final String ENTITY_TOO_LARGE = "Neo.ClientError.Request.EntityTooLarge";
        /** A failure Neo4j or its driver says is transient without giving a status. */
        public static final String TRANSIENT_FAILURE = "Neo.TransientError.General.TransientFailure";
        /**
         * The journal could not make an async write durable: transient (the write was not accepted, so it can be
         * sent again), where Neo4j's {@code Neo.DatabaseError.General.StorageDamageDetected} is a database error.
         */
        public static final String STORAGE_DAMAGE_DETECTED = "Neo.TransientError.General.StorageDamageDetected";
    }
}
