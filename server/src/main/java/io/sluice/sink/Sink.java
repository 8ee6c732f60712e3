package io.sluice.sink;

import io.sluice.security.Credentials;
import io.sluice.vocab.Committed;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.Summary;
import io.sluice.vocab.TxConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Where writes land: a Neo4j database, embedded or over Bolt. The one seam between sluice's write path and
 * Neo4j. Implementations are thread-safe; each {@link #inTransaction} call runs in its own transaction.
 */
public interface Sink extends AutoCloseable {

    /** Work done inside one explicit transaction; it commits when the work returns normally. */
    @FunctionalInterface
    interface TxWork<T> {
        T run(SinkTx tx) throws GraphException;
    }

    /** One open transaction. Not thread-safe: used by the thread that opened it. */
    interface SinkTx {
        /** Runs a statement and materialises its result (it is consumed before this returns). */
        StatementResult run(String cypher, Map<String, Object> params) throws GraphException;

        /** Runs a statement whose result is not needed, only its effect. */
        void runDiscarding(String cypher, Map<String, Object> params) throws GraphException;
    }

    /**
     * An explicit transaction held open for a client across calls (an HTTP request per call), never part of a
     * group commit. Not thread-safe, but not thread-confined either: calls may come from different threads one
     * after another, provided the caller orders them (a lock, a hand-over through a concurrent structure).
     *
     * <p>Any failed {@link #run} rolls the transaction back before it throws, as Neo4j's HTTP APIs do; after
     * that, or after {@link #commit} or {@link #rollback}, the transaction is finished and {@link #rollback} is
     * a no-op.
     */
    interface OpenTx {
        /**
         * Runs a statement and materialises its result, detached as {@link SinkTx#run}'s; each result has a budget
         * of its own (it is released when the client has it, not kept to the commit).
         */
        StatementResult run(String cypher, Map<String, Object> params) throws GraphException;

        /** Commits; a failure leaves the transaction rolled back (or, remote, possibly committed: see the error). */
        void commit() throws GraphException;

        /** Rolls back, if not finished yet; never throws (a failure to roll back is logged, the work is lost anyway). */
        void rollback();

        /** Rolls back because its client went (a closed connection): as {@link #rollback} unless it matters whom. */
        default void abandon() {
            rollback();
        }
    }

    /**
     * How many explicit transactions it holds open at once by default ({@code transactions.max_open} unset): under
     * Neo4j's own cap ({@code db.transaction.concurrent.maximum}, 1000), leaving 100 for sluice's own transactions
     * (appliers, reads, EXPLAINs), unless each costs the sink something scarcer.
     */
    default int maxOpenTransactions() {
        return 900;
    }

    /**
     * Opens an explicit transaction, read or write. A read transaction refuses writes with Neo4j's
     * {@code Neo.ClientError.Statement.AccessMode} (and rolls back, like any failed statement).
     */
    default OpenTx begin(boolean write) throws GraphException {
        return begin(write, TxConfig.NONE);
    }

    /**
     * As {@link #begin(boolean)}, ended by the database (Neo4j's {@code TransactionTimedOutClientConfiguration})
     * once it has been open for {@code config}'s timeout, what a driver's {@code tx_timeout} asks (none: the
     * database's own), and carrying its metadata ({@code tx_metadata}).
     */
    OpenTx begin(boolean write, TxConfig config) throws GraphException;

    /** Runs {@code work} in a new write transaction and commits it; any failure rolls it back. */
    <T> T inTransaction(TxWork<T> work) throws GraphException;

    /**
     * As {@link #inTransaction(TxWork)}, with {@code config}'s timeout and metadata ({@link #begin(boolean,
     * TxConfig)}); this default, for a sink without either, applies none.
     */
    default <T> T inTransaction(TxWork<T> work, TxConfig config) throws GraphException {
        return inTransaction(work);
    }

    /**
     * A batch's transaction while it runs, as another thread sees it (the appliers' lock watch, apply.LockWatch):
     * whether it waits for a lock that a transaction other than sluice's batches holds, and ending it. Thread-safe.
     */
    interface Running {
        /** A transaction nobody can see into: never found blocked. */
        Running UNSEEN = new Running() {
            @Override
            public boolean blockedByOther() {
                return false;
            }

            @Override
            public boolean terminate() {
                return false;
            }
        };

        /**
         * Whether it waits now for a lock held by a transaction that is not a batch's: a client's explicit
         * transaction, a group's, anyone's on the same database who bypasses sluice. A wait for another batch is
         * not: that one commits soon, and batches take their locks in one order.
         */
        boolean blockedByOther() throws GraphException;

        /**
         * Ends it, rolled back: the statement it runs fails on its own thread. False when it cannot be ended any
         * more (it commits, or has finished): then it is as if this was never called.
         */
        boolean terminate() throws GraphException;
    }

    /**
     * As {@link #inTransaction}, for a batch: its transaction is marked as a batch's (so that another batch's
     * {@link Running#blockedByOther} does not count it), {@code timeout} (null: the database's own) ends it as
     * Neo4j's transaction timeout does, and {@code opened} is given its {@link Running} once it has begun, on this
     * thread. This default, for a sink that cannot see into its transactions, gives {@link Running#UNSEEN}.
     */
    default <T> T inBatchTransaction(TxWork<T> work, Duration timeout, Consumer<Running> opened)
            throws GraphException {
        opened.accept(Running.UNSEEN);
        return inTransaction(work);
    }

    /** Runs {@code work} in a new read transaction (never commits anything). */
    <T> T inReadTransaction(TxWork<T> work) throws GraphException;

    /**
     * As {@link #inReadTransaction(TxWork)}, with {@code config}'s timeout and metadata; this default, for a sink
     * without either, applies none.
     */
    default <T> T inReadTransaction(TxWork<T> work, TxConfig config) throws GraphException {
        return inReadTransaction(work);
    }

    /** Runs one statement as an implicit (auto-commit) transaction: schema, {@code CALL {} IN TRANSACTIONS}. */
    StatementResult runImplicit(String cypher, Map<String, Object> params) throws GraphException;

    /**
     * Where the database's committed history stands now (what a bookmark names: a transaction a later one reads
     * after); empty where the sink cannot tell (a remote Neo4j, whose driver keeps its own bookmarks).
     */
    default Optional<Committed> lastCommitted() {
        return Optional.empty();
    }

    /** Statements on the DBMS's {@code system} database as one user, one implicit transaction each. */
    @FunctionalInterface
    interface SystemSession {
        StatementResult run(String cypher, Map<String, Object> params) throws GraphException;
    }

    /**
     * A session on the DBMS's {@code system} database (users, databases: what an administrator sends a driver
     * session on {@code system}) as the user {@code as} names (null: as the sink's own account, when
     * authentication is off), so that {@code ALTER CURRENT USER} is theirs; a sink without one refuses.
     */
    default SystemSession system(Credentials as) throws GraphException {
        throw new GraphException(new Neo4jError(Neo4jStatus.Database.DATABASE_NOT_FOUND, "Graph not found: system"),
                null);
    }

    /**
     * Plans a statement without running it (EXPLAIN, in an explicit transaction) and says what kind it is; a
     * syntax error throws. {@code CALL {} IN TRANSACTIONS} is the caller's to recognise: it plans only outside
     * an explicit transaction.
     */
    QueryKind classify(String cypher) throws GraphException;

    /**
     * What {@link #classify} tells, with the notifications Neo4j's plan of the statement raised (a cartesian
     * product, an unknown label, a deprecation: what Neo4j says at planning), positions as the caller wrote it; a
     * sink that cannot tell gives none.
     */
    default Planned planned(String cypher) throws GraphException {
        return new Planned(classify(cypher), Summary.NONE);
    }

    /** A statement's kind, and the notifications of its plan ({@link Summary#NONE}: none). */
    record Planned(QueryKind kind, Summary notices) {}

    /** The Neo4j version behind this sink, e.g. {@code 2026.08.1} (for the discovery document). */
    String neo4jVersion();

    /** A short description for /health and logs, e.g. {@code embedded neo4j 2026.08.1}. */
    String describe();

    /** Whether the database answers right now. */
    boolean isAvailable();

    /**
     * What {@link #warmUp} read: {@code how} (page cache, or Cypher scans), {@code files} (mapped files, or
     * statements), {@code pages} (pages touched, or entities read) and {@code bytes} (the pages' size; 0 for scans).
     */
    record Warmed(String how, int files, long pages, long bytes) {}

    /**
     * Reads the database into Neo4j's page cache, the store files first and the indexes last (so that, when the
     * store is larger than the cache, what stays is what MERGE and MATCH look up first). This default, for a
     * server over Bolt, runs scans: every node's and relationship's properties, then each online node index by
     * an index scan; the embedded sink touches the mapped files' pages directly. Stops early, between steps,
     * once {@code stop} says so. May take minutes on a large store; writes go on meanwhile.
     */
    default Warmed warmUp(BooleanSupplier stop) throws GraphException {
        List<String> statements = new ArrayList<>(List.of(
                "MATCH (n) WHERE size(keys(n)) >= 0 RETURN count(*)", // keys(): the property store too
                "MATCH ()-[r]->() WHERE size(keys(r)) >= 0 RETURN count(*)"));
        StatementResult indexes = inReadTransaction(tx -> tx.run("SHOW INDEXES YIELD type, entityType, labelsOrTypes,"
                + " properties, state WHERE state = 'ONLINE' AND entityType = 'NODE' AND type <> 'LOOKUP'"
                + " RETURN labelsOrTypes, properties", Map.of()));
        for (List<Object> row : indexes.rows()) {
            if (row.get(0) instanceof List<?> labels && labels.size() == 1 && row.get(1) instanceof List<?> props
                    && !props.isEmpty()) {
                statements.add("MATCH (n:" + quote(labels.getFirst()) + ") WHERE n." + quote(props.getFirst())
                        + " IS NOT NULL RETURN count(*)");
            }
        }
        int ran = 0;
        long read = 0;
        for (String cypher : statements) {
            if (stop.getAsBoolean()) {
                break;
            }
            Object n = inReadTransaction(tx -> tx.run(cypher, Map.of())).rows().getFirst().getFirst();
            read += n instanceof Number x ? x.longValue() : 0;
            ran++;
        }
        return new Warmed("cypher scans", ran, read, 0);
    }

    /** A name as a Cypher identifier in backquotes. */
    private static String quote(Object name) {
        return "`" + String.valueOf(name).replace("`", "``") + "`";
    }

    @Override
    void close();
}
