package io.sluice.sink;

import io.sluice.security.Credentials;
import io.sluice.vocab.Committed;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.TxConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryExecutionType;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.internal.kernel.api.security.LoginContext;
import org.neo4j.kernel.api.security.AuthManager;
import org.neo4j.kernel.impl.api.KernelTransactions;
import org.neo4j.kernel.impl.coreapi.InternalTransaction;
import org.neo4j.kernel.api.security.exception.InvalidAuthTokenException;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.kernel.internal.Version;
import org.neo4j.storageengine.api.TransactionIdStore;

/**
 * A {@link Sink} over an embedded {@link GraphDatabaseService}. Thread-safe; transactions are thread-confined. Its
 * parts, as {@link BoltSink}'s: {@link EmbeddedOpenTx} (a transaction held open across calls),
 * {@link EmbeddedResults} (results detached, statements run whole), {@link EmbeddedErrors} (failures as sluice's
 * errors), {@link PageCacheWarmer} (the warm-up).
 */
public final class EmbeddedSink implements Sink {
    private final GraphDatabaseService db;
    private final GraphDatabaseService system;
    private final String description;
    private final AvailabilityLog availability = new AvailabilityLog("the embedded Neo4j");

    public EmbeddedSink(GraphDatabaseService db, String description) {
        this(db, null, description);
    }

    /** With the DBMS's {@code system} database too, for {@link #system}. */
    public EmbeddedSink(GraphDatabaseService db, GraphDatabaseService system, String description) {
        this.db = db;
        this.system = system;
        this.description = description;
    }

    @Override
    public Optional<Committed> lastCommitted() {
        // asked after every Bolt commit: the store and the id are resolved once
        if (transactionIds == null) {
            var api = (GraphDatabaseAPI) db;
            databaseId = api.databaseId().databaseId().uuid();
            transactionIds = api.getDependencyResolver().resolveDependency(
                    TransactionIdStore.class);
        }
        return Optional.of(new Committed(databaseId, transactionIds.getLastCommittedTransactionId()));
    }

    private volatile TransactionIdStore transactionIds;
    private volatile UUID databaseId;

    /**
     * Logs {@code as} in once, with Neo4j's own login (the user's security context, as Neo4j's Bolt server holds
     * it for a connection): the session then needs no password, and survives the user's own password change.
     */
    @Override
    public SystemSession system(Credentials as) throws GraphException {
        if (system == null) {
            return Sink.super.system(as);
        }
        if (as == null) {
            return (cypher, params) -> EmbeddedResults.runWhole(system, cypher, params);
        }
        var api = (GraphDatabaseAPI) system;
        LoginContext login;
        try {
            login = EmbeddedUsers.login(api.getDependencyResolver().resolveDependency(
                    AuthManager.class), as);
        } catch (InvalidAuthTokenException e) {
            throw new GraphException(new Neo4jError(Neo4jStatus.Security.UNAUTHORIZED, e.getMessage()), e);
        }
        return (cypher, params) -> EmbeddedResults.runWhole(api, cypher, params, login);
    }

    @Override
    public <T> T inTransaction(TxWork<T> work) throws GraphException {
        return transact(work, true);
    }

    @Override
    public <T> T inReadTransaction(TxWork<T> work) throws GraphException {
        return transact(work, false);
    }

    @Override
    public <T> T inReadTransaction(TxWork<T> work, TxConfig config) throws GraphException {
        return transact(work, false, config, tx -> {});
    }

    /** Marked as a batch's ({@link EmbeddedRunning#BATCH}), seen through Neo4j's registry of transactions. */
    @Override
    public <T> T inBatchTransaction(TxWork<T> work, Duration timeout, Consumer<Running> opened)
            throws GraphException {
        return transact(work, true, TxConfig.timeout(timeout), tx -> {
            InternalTransaction internal = (InternalTransaction) tx;
            internal.setMetaData(EmbeddedRunning.BATCH);
            opened.accept(new EmbeddedRunning(internal.kernelTransaction(), kernelTransactions()));
        });
    }

    /** A transaction with {@code config}'s timeout (Neo4j's {@code TransactionTimedOutClientConfiguration}) and metadata. */
    private Transaction beginTx(TxConfig config) {
        Duration timeout = config.timeout();
        Transaction tx = timeout == null ? db.beginTx() : db.beginTx(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!config.metadata().isEmpty()) {
            try {
                ((InternalTransaction) tx).setMetaData(Values.embeddedParams(config.metadata()));
            } catch (RuntimeException e) {
                tx.close();
                throw e;
            }
        }
        return tx;
    }

    private KernelTransactions kernelTransactions() {
        if (kernelTransactions == null) {
            kernelTransactions = ((GraphDatabaseAPI) db).getDependencyResolver().resolveDependency(
                    KernelTransactions.class);
        }
        return kernelTransactions;
    }

    private volatile KernelTransactions kernelTransactions;

    @Override
    public <T> T inTransaction(TxWork<T> work, TxConfig config) throws GraphException {
        return transact(work, true, config, tx -> {});
    }

    private <T> T transact(TxWork<T> work, boolean commit) throws GraphException {
        return transact(work, commit, TxConfig.NONE, tx -> {});
    }

    /** {@code begun} is given the transaction before the work runs in it. */
    private <T> T transact(TxWork<T> work, boolean commit, TxConfig config, Consumer<Transaction> begun)
            throws GraphException {
        try (Transaction tx = beginTx(config)) {
            begun.accept(tx);
            T value = work.run(new EmbeddedTx(tx));
            if (commit) {
                tx.commit();
            }
            return value;
        } catch (GraphException e) {
            throw e;
        } catch (RuntimeException e) {
            // begin, commit and close fail here: deadlocks found at commit, constraint checks, database down
            throw EmbeddedErrors.translate(e);
        }
    }

    @Override
    public OpenTx begin(boolean write, TxConfig config) throws GraphException {
        try {
            return new EmbeddedOpenTx(beginTx(config), write);
        } catch (RuntimeException e) {
            throw EmbeddedErrors.translate(e);
        }
    }

    @Override
    public StatementResult runImplicit(String cypher, Map<String, Object> params) throws GraphException {
        return EmbeddedResults.runWhole(db, cypher, params);
    }

    /**
     * The DBMS procedures that run as reads ({@link QueryKind#DBMS}): those that only tell the caller about its own
     * transaction or the DBMS's version and catalogue, which Neo4j lets a read session call. Other DBMS procedures
     * (configuration, caches, ...) run alone, as schema commands do, and are refused to read-only callers: the
     * embedded transaction runs with every right, so Neo4j's own checks of the caller's role do not apply here.
     */
    private static final Pattern READ_LIKE = Pattern.compile("(?is)\\s*CALL\\s+(?:tx\\.getMetaData|dbms\\.components|"
            + "dbms\\.showCurrentUser|dbms\\.procedures|dbms\\.functions|dbms\\.info)\\s*(?:\\(.*)?");
    private static final Pattern CALL = Pattern.compile("(?i)\\bCALL\\b");

    /** Whether {@code cypher} calls one of {@link #READ_LIKE}'s procedures and nothing else. */
    static boolean readLike(String cypher) {
        return READ_LIKE.matcher(cypher).matches() && CALL.matcher(cypher).results().count() == 1;
    }

    @Override
    public QueryKind classify(String cypher) throws GraphException {
        return planned(cypher).kind();
    }

    @Override
    public Planned planned(String cypher) throws GraphException {
        try (Transaction tx = db.beginTx(); Result r = tx.execute("EXPLAIN " + cypher)) {
            QueryExecutionType.QueryType type = r.getQueryExecutionType().queryType();
            QueryKind kind = switch (type) {
                case READ_ONLY -> QueryKind.READ;
                case READ_WRITE, WRITE -> QueryKind.WRITE;
                case SCHEMA_WRITE -> QueryKind.ALONE;
                case DBMS -> readLike(cypher) ? QueryKind.DBMS : QueryKind.ALONE;
            };
            return new Planned(kind, EmbeddedSummaries.planNotices(EmbeddedSummaries.notices(r), "EXPLAIN ".length()));
        } catch (RuntimeException e) {
            GraphException t = EmbeddedErrors.translate(e);
            throw new GraphException(new Neo4jError(t.error().code(), withoutExplain(t.error().message())), e);
        }
    }

    private static final Pattern POSITION =
            Pattern.compile("\\(line 1, column (\\d+) \\(offset: (\\d+)\\)\\)");

    /** Error positions as the client wrote the statement, without the EXPLAIN sluice put in front. */
    static String withoutExplain(String message) {
        int shift = "EXPLAIN ".length();
        String m = message.replace("\"EXPLAIN ", "\"");
        Matcher pos = POSITION.matcher(m);
        if (pos.find()) {
            m = pos.replaceFirst("(line 1, column " + (Integer.parseInt(pos.group(1)) - shift) + " (offset: "
                    + (Integer.parseInt(pos.group(2)) - shift) + "))");
            m = m.replaceFirst("\n( *) {" + shift + "}\\^", "\n$1^");
        }
        return m;
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public boolean isAvailable() {
        return availability.probed(db.isAvailable());
    }

    /** Touches every page of this database's files in Neo4j's page cache ({@link PageCacheWarmer}). */
    @Override
    public Warmed warmUp(BooleanSupplier stop) throws GraphException {
        return PageCacheWarmer.warm((GraphDatabaseAPI) db, stop);
    }

    @Override
    public void close() {
        // the DBMS is owned and shut down by EmbeddedNeo4j
    }

    @Override
    public String neo4jVersion() {
        return Version.getNeo4jVersion();
    }

    private record EmbeddedTx(Transaction tx, ResultBudget budget) implements SinkTx {
        EmbeddedTx(Transaction tx) {
            this(tx, ResultBudget.forTransaction());
        }

        @Override
        public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
            try (Result r = tx.execute(cypher, Values.embeddedParams(params))) {
                return EmbeddedResults.materialise(r, budget);
            } catch (RuntimeException e) {
                throw EmbeddedErrors.translate(e);
            }
        }

        @Override
        public void runDiscarding(String cypher, Map<String, Object> params) throws GraphException {
            try (Result r = tx.execute(cypher, Values.embeddedParams(params))) {
                r.accept(row -> true);
            } catch (RuntimeException e) {
                throw EmbeddedErrors.translate(e);
            }
        }
    }
}
