package io.sluice.sink;

import io.sluice.security.Credentials;
import io.sluice.vocab.Committed;
import io.sluice.vocab.Counter;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.graphdb.QueryExecutionType;
import org.neo4j.graphdb.QueryStatistics;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.graphdb.TransientFailureException;
import org.neo4j.internal.kernel.api.security.LoginContext;
import org.neo4j.io.pagecache.PageCache;
import org.neo4j.io.pagecache.PagedFile;
import org.neo4j.io.pagecache.context.CursorContext;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.kernel.api.security.AuthManager;
import org.neo4j.kernel.api.security.exception.InvalidAuthTokenException;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.kernel.internal.Version;
import org.neo4j.storageengine.api.TransactionIdStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A {@link Sink} over an embedded {@link GraphDatabaseService}. Thread-safe; transactions are thread-confined. */
public final class EmbeddedSink implements Sink {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedSink.class);
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

    /** One statement as an implicit transaction of {@code on}, its result materialised within the bound. */
    private static StatementResult runWhole(GraphDatabaseService on, String cypher, Map<String, Object> params)
            throws GraphException {
        try {
            ResultBudget budget = ResultBudget.draining();
            StatementResult r = on.executeTransactionally(cypher, Values.embeddedParams(params),
                    result -> materialise(result, budget));
            if (budget.exceeded()) {
                throw ResultBudget.ranButTooLarge(ResultBudget.MAX_VALUES);
            }
            return r;
        } catch (RuntimeException e) {
            throw translate(e);
        }
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
            return (cypher, params) -> runWhole(system, cypher, params);
        }
        var api = (GraphDatabaseAPI) system;
        LoginContext login;
        try {
            login = EmbeddedUsers.login(api.getDependencyResolver().resolveDependency(
                    AuthManager.class), as);
        } catch (InvalidAuthTokenException e) {
            throw new GraphException(new Neo4jError(Neo4jStatus.Security.UNAUTHORIZED, e.getMessage()), e);
        }
        return (cypher, params) -> onSystem(cypher, params, login);
    }

    private StatementResult onSystem(String cypher, Map<String, Object> params,
            LoginContext login) throws GraphException {
        try {
            ResultBudget budget = ResultBudget.draining();
            StatementResult r;
            var api = (GraphDatabaseAPI) system;
            try (var tx = api.beginTransaction(KernelTransaction.Type.IMPLICIT, login)) {
                try (var result = tx.execute(cypher, Values.embeddedParams(params))) {
                    r = materialise(result, budget);
                }
                tx.commit();
            }
            if (budget.exceeded()) {
                throw ResultBudget.ranButTooLarge(ResultBudget.MAX_VALUES);
            }
            return r;
        } catch (RuntimeException e) {
            throw translate(e);
        }
    }

    @Override
    public <T> T inTransaction(TxWork<T> work) throws GraphException {
        return transact(work, true);
    }

    @Override
    public <T> T inReadTransaction(TxWork<T> work) throws GraphException {
        return transact(work, false);
    }

    private <T> T transact(TxWork<T> work, boolean commit) throws GraphException {
        try (Transaction tx = db.beginTx()) {
            T value = work.run(new EmbeddedTx(tx));
            if (commit) {
                tx.commit();
            }
            return value;
        } catch (GraphException e) {
            throw e;
        } catch (RuntimeException e) {
            // begin, commit and close fail here: deadlocks found at commit, constraint checks, database down
            throw translate(e);
        }
    }

    @Override
    public OpenTx begin(boolean write) throws GraphException {
        try {
            return new EmbeddedOpenTx(db.beginTx(), write);
        } catch (RuntimeException e) {
            throw translate(e);
        }
    }

    /**
     * An embedded transaction held open across calls. Neo4j's embedded {@link Transaction} is not bound to the
     * thread that began it (since 4.0; {@code EmbeddedSinkOpenTxTest} uses one from a second thread), so calls
     * run on the caller's thread; the caller orders them.
     */
    private static final class EmbeddedOpenTx implements OpenTx {
        private final Transaction tx;
        private final boolean write;
        private boolean finished;

        EmbeddedOpenTx(Transaction tx, boolean write) {
            this.tx = tx;
            this.write = write;
        }

        @Override
        public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
            if (finished) {
                throw finishedError();
            }
            GraphException failure;
            try (Result r = tx.execute(cypher, Values.embeddedParams(params))) {
                if (!write && writes(r.getQueryExecutionType().queryType())) {
                    // as a Bolt READ session on a server refuses it (the plan's type, before a row is read)
                    failure = new GraphException(new Neo4jError(ACCESS_MODE, "Writing in read access mode not allowed."),
                            null);
                } else {
                    return materialise(r, ResultBudget.forTransaction());
                }
            } catch (RuntimeException e) {
                failure = translate(e);
            }
            rollback(); // an error inside an explicit transaction ends it, as in Neo4j's HTTP APIs
            throw failure;
        }

        @Override
        public void commit() throws GraphException {
            if (finished) {
                throw finishedError();
            }
            finished = true;
            try (tx) {
                tx.commit();
            } catch (RuntimeException e) {
                throw translate(e);
            }
        }

        @Override
        public void rollback() {
            if (finished) {
                return;
            }
            finished = true;
            try (tx) {
                tx.rollback();
            } catch (RuntimeException e) {
                log.warn("rolling back an explicit transaction failed: {}", e.toString());
            }
        }

        private static boolean writes(QueryExecutionType.QueryType type) {
            return switch (type) {
                case READ_ONLY, DBMS -> false;
                case READ_WRITE, WRITE, SCHEMA_WRITE -> true;
            };
        }
    }

    static final String ACCESS_MODE = Neo4jStatus.Statement.ACCESS_MODE;

    /** A call on a transaction already committed or rolled back (a caller's bug: the registry forgets those). */
    static GraphException finishedError() {
        return new GraphException(Neo4jError.invalid("the transaction has already been committed or rolled back"), null);
    }

    @Override
    public StatementResult runImplicit(String cypher, Map<String, Object> params) throws GraphException {
        return runWhole(db, cypher, params);
    }

    @Override
    public QueryKind classify(String cypher) throws GraphException {
        try (Transaction tx = db.beginTx(); Result r = tx.execute("EXPLAIN " + cypher)) {
            QueryExecutionType.QueryType type = r.getQueryExecutionType().queryType();
            return switch (type) {
                case READ_ONLY -> QueryKind.READ;
                case READ_WRITE, WRITE -> QueryKind.WRITE;
                case SCHEMA_WRITE, DBMS -> QueryKind.ALONE;
            };
        } catch (RuntimeException e) {
            GraphException t = translate(e);
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

    /**
     * Touches every page of this database's files mapped in Neo4j's page cache (the files of other databases,
     * such as system, are left alone), stores first and indexes ({@code schema/}) last, in chunks of
     * {@value #TOUCH_PAGES} pages: {@code PagedFile.touch} faults them in without pinning them, as Neo4j's own
     * Enterprise warmer does. A file unmapped meanwhile (a database stopping) is skipped.
     */
    @Override
    public Warmed warmUp(BooleanSupplier stop) throws GraphException {
        GraphDatabaseAPI api = (GraphDatabaseAPI) db;
        Path dir = api.databaseLayout().databaseDirectory().toAbsolutePath();
        List<PagedFile> files;
        try {
            files = new ArrayList<>(api.getDependencyResolver().resolveDependency(PageCache.class)
                    .listExistingMappings());
        } catch (IOException | RuntimeException e) {
            throw new GraphException(Neo4jError.unknown("cannot list the page cache's files: " + e), e);
        }
        files.removeIf(f -> !f.path().toAbsolutePath().startsWith(dir));
        files.sort(Comparator.comparing(f -> dir.relativize(f.path().toAbsolutePath()).toString()
                .startsWith("schema")));
        int touchedFiles = 0;
        long pages = 0;
        long bytes = 0;
        for (PagedFile f : files) {
            try {
                long last = f.getLastPageId();
                for (long p = 0; p <= last && !stop.getAsBoolean(); p += TOUCH_PAGES) {
                    int n = f.touch(p, (int) Math.min(TOUCH_PAGES, last - p + 1),
                            CursorContext.NULL_CONTEXT);
                    pages += n;
                    bytes += (long) n * f.pageSize();
                }
                touchedFiles++;
            } catch (IOException | RuntimeException e) {
                log.debug("warm-up skipped {}: {}", f.path(), e.toString());
            }
            if (stop.getAsBoolean()) {
                break;
            }
        }
        return new Warmed("page cache", touchedFiles, pages, bytes);
    }

    /** Pages asked of {@code PagedFile.touch} at a time. */
    private static final int TOUCH_PAGES = 256;

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
                return materialise(r, budget);
            } catch (RuntimeException e) {
                throw translate(e);
            }
        }

        @Override
        public void runDiscarding(String cypher, Map<String, Object> params) throws GraphException {
            try (Result r = tx.execute(cypher, Values.embeddedParams(params))) {
                r.accept(row -> true);
            } catch (RuntimeException e) {
                throw translate(e);
            }
        }
    }

    /** The result, its rows detached and counted against {@code budget} (which says what happens past it). */
    static StatementResult materialise(Result r, ResultBudget budget) {
        List<String> columns = r.columns();
        List<List<Object>> rows = new ArrayList<>();
        while (r.hasNext()) {
            Map<String, Object> row = r.next();
            if (budget.keepsRows()) {
                List<Object> values = new ArrayList<>(columns.size());
                for (String c : columns) {
                    values.add(Values.detach(row.get(c)));
                }
                budget.add(rows, values);
            }
        }
        return new StatementResult(columns, rows, counters(r.getQueryStatistics()));
    }

    static Map<String, Object> counters(QueryStatistics s) {
        return Counter.read(c -> switch (c) {
            case CONTAINS_UPDATES -> s.containsUpdates();
            case NODES_CREATED -> s.getNodesCreated();
            case NODES_DELETED -> s.getNodesDeleted();
            case PROPERTIES_SET -> s.getPropertiesSet();
            case RELATIONSHIPS_CREATED -> s.getRelationshipsCreated();
            case RELATIONSHIP_DELETED -> s.getRelationshipsDeleted();
            case LABELS_ADDED -> s.getLabelsAdded();
            case LABELS_REMOVED -> s.getLabelsRemoved();
            case INDEXES_ADDED -> s.getIndexesAdded();
            case INDEXES_REMOVED -> s.getIndexesRemoved();
            case CONSTRAINTS_ADDED -> s.getConstraintsAdded();
            case CONSTRAINTS_REMOVED -> s.getConstraintsRemoved();
            case CONTAINS_SYSTEM_UPDATES -> s.containsSystemUpdates();
            case SYSTEM_UPDATES -> s.getSystemUpdates();
        });
    }

    /** A {@code LOAD CSV} whose file could not be read as CSV (Neo4j's CSV reader threw). */
    private static boolean badCsv(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c.getClass().getName().startsWith("org.neo4j.csv.reader.")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Neo4j's status code for a failure, found by walking the cause chain: a transient code anywhere in the
     * chain wins (a deadlock inside {@code CALL {} IN TRANSACTIONS} arrives wrapped in a non-transient one).
     */
    static GraphException translate(Throwable e) {
        ResultBudget.Exceeded big = ResultBudget.Exceeded.in(e);
        if (big != null) {
            return new GraphException(big.error(), e);
        }
        Neo4jError first = null;
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String code = null;
            if (c instanceof Status.HasStatus hs && hs.status() != null) {
                code = hs.status().code().serialize();
            } else if (c instanceof QueryExecutionException q && q.getStatusCode() != null) {
                code = q.getStatusCode();
            } else if (c instanceof TransientFailureException) {
                code = Neo4jStatus.Sluice.TRANSIENT_FAILURE;
            }
            if (code == null) {
                continue;
            }
            Neo4jError err = new Neo4jError(code, c.getMessage());
            if (err.isTransient()) {
                return new GraphException(err, e);
            }
            if (first == null) {
                first = err;
            }
        }
        if (first == null && badCsv(e)) {
            // LOAD CSV of a malformed file: Neo4j's CSV reader throws without a status; the file is the client's
            first = new Neo4jError(Neo4jStatus.Statement.EXTERNAL_RESOURCE_FAILED, String.valueOf(e.getMessage()));
        }
        return new GraphException(first != null ? first
                : Neo4jError.unknown(String.valueOf(e)), e);
    }
}
