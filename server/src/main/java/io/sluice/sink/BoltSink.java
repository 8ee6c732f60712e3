package io.sluice.sink;

import io.sluice.security.Credentials;
import io.sluice.security.UserStore;
import io.sluice.time.Time;
import io.sluice.vocab.Counter;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.neo4j.driver.AccessMode;
import org.neo4j.driver.AuthToken;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.BookmarkManager;
import org.neo4j.driver.BookmarkManagerConfig;
import org.neo4j.driver.BookmarkManagers;
import org.neo4j.driver.Config;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Record;
import org.neo4j.driver.Result;
import org.neo4j.driver.Session;
import org.neo4j.driver.SessionConfig;
import org.neo4j.driver.Transaction;
import org.neo4j.driver.exceptions.ClientException;
import org.neo4j.driver.exceptions.DiscoveryException;
import org.neo4j.driver.exceptions.Neo4jException;
import org.neo4j.driver.exceptions.RetryableException;
import org.neo4j.driver.exceptions.ServiceUnavailableException;
import org.neo4j.driver.exceptions.SessionExpiredException;
import org.neo4j.driver.summary.QueryType;
import org.neo4j.driver.summary.SummaryCounters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Sink} over Bolt, through the official Java driver: a Neo4j server or cluster of one's own
 * ({@code bolt://} or, with routing, {@code neo4j://}; {@code +s} / {@code +ssc} for TLS).
 *
 * <p>Each {@link #inTransaction} is one explicit transaction on a session of its own (sessions are cheap; the
 * driver pools connections). All sessions share one bookmark manager, so a read, or the journal applier's offset
 * read, sees every write committed before it, also on a cluster's followers. The driver's own retries are off:
 * the {@code apply} package retries, and knows when retrying is safe.
 *
 * <p>Errors: what the server reports keeps its code. A lost connection (server down, network gone, cluster
 * leader changing) is {@code Neo.TransientError.General.DatabaseUnavailable}, so it is retried and async mode
 * keeps the journal until the server is back. Lost <em>while committing</em>, the transaction may or may not
 * have committed: that error is marked {@link GraphException#commitOutcomeUnknown()} and must not be blindly
 * retried.
 *
 * <p>Its size (over 400 lines): every {@link Sink} operation is here over one driver, with the one error
 * translation they all share ({@code translate}: the driver's exceptions to Neo4j's codes and the commit-outcome
 * flag); values are {@code BoltValues}', users {@code RemoteUsers}'.
 *
 * <p>Thread-safe (the driver is); a transaction is confined to the thread that runs its work.
 */
public final class BoltSink implements Sink {
    private static final Logger log = LoggerFactory.getLogger(BoltSink.class);
    static final String UNAVAILABLE = Neo4jStatus.General.DATABASE_UNAVAILABLE;
    private static final Set<String> SCHEMES = Set.of("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc");
    private static final long AVAILABILITY_TTL_NANOS = Duration.ofSeconds(1).toNanos();
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    /**
     * Where and how to connect. {@code user} null: no authentication. {@code maxConnections} bounds the pool,
     * shared by the appliers (one sync, one journal) and by reads and direct writes, which wait for a connection.
     */
    public record Options(String uri, String user, String password, String database, int maxConnections,
            Duration connectTimeout) {
        public Options {
            URI parsed;
            try {
                parsed = URI.create(uri);
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new IllegalArgumentException("not a Neo4j URI: '" + uri + "'", e);
            }
            if (parsed.getScheme() == null || !SCHEMES.contains(parsed.getScheme()) || parsed.getHost() == null) {
                throw new IllegalArgumentException("expected a Neo4j URI such as bolt://host:7687 or neo4j://host:7687"
                        + " (schemes " + SCHEMES + "), got '" + uri + "'");
            }
            if (parsed.getUserInfo() != null) {
                throw new IllegalArgumentException("put credentials in --user and --password (or SLUICE_NEO4J_PASSWORD),"
                        + " not in the URI");
            }
            if (database == null || database.isBlank()) {
                throw new IllegalArgumentException("database name must not be empty");
            }
            if (maxConnections < 2) {
                throw new IllegalArgumentException("maxConnections must be >= 2 (one per applier), got " + maxConnections);
            }
        }

        public Options(String uri, String user, String password, String database) {
            this(uri, user, password, database, 32, Duration.ofSeconds(5));
        }

        /** Never shows the password (records print every field). */
        @Override
        public String toString() {
            return "Options[uri=" + uri + ", user=" + user + ", password=" + (password == null ? "none" : "...")
                    + ", database=" + database + ", maxConnections=" + maxConnections + "]";
        }
    }

    private final Driver driver;
    private final String uri;
    private final SessionConfig writeSession;
    private final SessionConfig readSession;
    private final Time time;
    private final ReentrantLock probing = new ReentrantLock();
    private volatile String serverAgent = "version unknown";
    private long checkedAt;
    private boolean checked;
    private boolean available;
    private final AvailabilityLog availability;

    BoltSink(Driver driver, String uri, String database, Time time) {
        this.driver = driver;
        this.uri = uri;
        this.time = time;
        this.availability = new AvailabilityLog("Neo4j at " + uri);
        BookmarkManager bookmarks = BookmarkManagers.defaultManager(BookmarkManagerConfig.builder().build());
        this.writeSession = SessionConfig.builder().withDatabase(database).withDefaultAccessMode(AccessMode.WRITE)
                .withBookmarkManager(bookmarks).build();
        this.readSession = SessionConfig.builder().withDatabase(database).withDefaultAccessMode(AccessMode.READ)
                .withBookmarkManager(bookmarks).build();
    }

    /**
     * Creates the driver and waits up to {@code wait} for the server to answer (it may be starting alongside
     * sluice). Wrong credentials, an unknown database or a server still down after {@code wait} throw.
     */
    public static BoltSink connect(Options o, Duration wait, Time time) throws GraphException {
        Config config = Config.builder()
                .withMaxConnectionPoolSize(o.maxConnections())
                .withConnectionAcquisitionTimeout(30, TimeUnit.SECONDS)
                .withConnectionTimeout(o.connectTimeout().toMillis(), TimeUnit.MILLISECONDS)
                // the driver's default fetch size (1000 records a PULL): a write's few records still take one PULL,
                // and a large read streams, so ResultBudget stops it before the driver has buffered it all
                .withAutoCommitRetriesDisabled(true)
                .withTelemetryDisabled(true)
                .withUserAgent("sluice/0.1.0")
                .build();
        AuthToken auth = o.user() == null ? AuthTokens.none() : AuthTokens.basic(o.user(), o.password() == null ? "" : o.password());
        BoltSink sink = new BoltSink(GraphDatabase.driver(o.uri(), auth, config), o.uri(), o.database(), time);
        try {
            sink.awaitServer(wait);
            return sink;
        } catch (GraphException | RuntimeException e) {
            sink.close();
            throw e;
        }
    }

    private void awaitServer(Duration wait) throws GraphException {
        long deadline = time.nanos() + wait.toNanos();
        while (true) {
            try (Session s = driver.session(writeSession)) {
                serverAgent = s.run("RETURN 1").consume().server().agent().replace('/', ' ');
                log.info("connected to {} ({})", uri, serverAgent);
                return;
            } catch (RuntimeException e) {
                GraphException t = translate(e, false);
                if (!t.isTransient() || time.nanos() > deadline) {
                    throw new GraphException(new Neo4jError(t.error().code(),
                            "cannot use Neo4j at " + uri + ": " + t.error().message()), e);
                }
                log.warn("Neo4j at {} not reachable yet ({}); retrying", uri, t.error().message());
                LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
            }
        }
    }

    @Override
    public <T> T inTransaction(TxWork<T> work) throws GraphException {
        return transact(work, writeSession, true);
    }

    @Override
    public <T> T inReadTransaction(TxWork<T> work) throws GraphException {
        return transact(work, readSession, false);
    }

    private <T> T transact(TxWork<T> work, SessionConfig config, boolean commit) throws GraphException {
        Session session = null;
        Transaction tx = null;
        boolean committing = false;
        try {
            session = driver.session(config);
            tx = session.beginTransaction();
            T value = work.run(new BoltTx(tx, ResultBudget.forTransaction()));
            if (commit) {
                committing = true;
                tx.commit();
            }
            return value;
        } catch (GraphException e) {
            throw e;
        } catch (RuntimeException e) {
            throw translate(e, committing);
        } finally {
            // after a commit, a failure to release the connection changes nothing: it is not the outcome
            closeQuietly(tx);
            closeQuietly(session);
        }
    }

    @Override
    public OpenTx begin(boolean write) throws GraphException {
        Session session = null;
        try {
            session = driver.session(write ? writeSession : readSession);
            return new BoltOpenTx(session, session.beginTransaction());
        } catch (RuntimeException e) {
            closeQuietly(session);
            throw translate(e, false);
        }
    }

    /**
     * A driver transaction held open across calls, on a session (and so a pooled connection) of its own until it
     * ends. The driver's blocking API is not bound to a thread; the caller orders the calls.
     */
    private static final class BoltOpenTx implements OpenTx {
        private final Session session;
        private final Transaction tx;
        private boolean finished;

        BoltOpenTx(Session session, Transaction tx) {
            this.session = session;
            this.tx = tx;
        }

        @Override
        public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
            if (finished) {
                throw EmbeddedSink.finishedError();
            }
            try {
                return materialise(tx.run(cypher, BoltValues.params(params)), ResultBudget.forTransaction());
            } catch (RuntimeException e) {
                GraphException failure = translate(e, false);
                rollback(); // an error inside an explicit transaction ends it, as in Neo4j's HTTP APIs
                throw failure;
            }
        }

        @Override
        public void commit() throws GraphException {
            if (finished) {
                throw EmbeddedSink.finishedError();
            }
            finished = true;
            try {
                tx.commit();
            } catch (RuntimeException e) {
                throw translate(e, true);
            } finally {
                closeQuietly(tx);
                closeQuietly(session);
            }
        }

        @Override
        public void rollback() {
            if (finished) {
                return;
            }
            finished = true;
            try {
                tx.rollback();
            } catch (RuntimeException e) {
                log.warn("rolling back an explicit transaction failed: {}", e.toString());
            } finally {
                closeQuietly(tx);
                closeQuietly(session);
            }
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            log.debug("closing a Bolt session or transaction: {}", e.toString());
        }
    }

    @Override
    public StatementResult runImplicit(String cypher, Map<String, Object> params) throws GraphException {
        try (Session s = driver.session(writeSession)) {
            return runWhole(s, cypher, params);
        } catch (RuntimeException e) {
            // an auto-commit statement commits as it runs: a lost connection leaves its outcome unknown
            throw translate(e, true);
        }
    }

    /** One auto-commit statement in {@code s}, its result materialised within the bound on its size. */
    private static StatementResult runWhole(Session s, String cypher, Map<String, Object> params) throws GraphException {
        ResultBudget budget = ResultBudget.draining();
        StatementResult r = materialise(s.run(cypher, BoltValues.params(params)), budget);
        if (budget.exceeded()) {
            throw ResultBudget.ranButTooLarge(ResultBudget.MAX_VALUES);
        }
        return r;
    }

    /**
     * Statements on the remote {@code system} database as {@code as}, through the driver's per-session
     * authentication: the session keeps the credentials (the driver logs in with them for each statement), so
     * after the user changes their own password, the next statement fails until they log in again.
     */
    @Override
    public SystemSession system(Credentials as) {
        SessionConfig system = SessionConfig.forDatabase("system");
        return (cypher, params) -> {
            try (Session s = switch (as) {
                case null -> driver.session(system);
                case Credentials.Basic b -> driver.session(Session.class, system,
                        AuthTokens.basic(b.user(), b.password()));
                case Credentials.Bearer b -> driver.session(Session.class, system,
                        AuthTokens.bearer(b.token()));
            }) {
                return runWhole(s, cypher, params);
            } catch (RuntimeException e) {
                throw translate(e, true);
            }
        };
    }

    @Override
    public QueryKind classify(String cypher) throws GraphException {
        try (Session s = driver.session(writeSession)) {
            QueryType type = s.run("EXPLAIN " + cypher).consume().queryType();
            if (type == null) {
                return QueryKind.ALONE; // a DBMS command: no plan type to go by
            }
            return switch (type) {
                case READ_ONLY -> QueryKind.READ;
                case READ_WRITE, WRITE_ONLY -> QueryKind.WRITE;
                case SCHEMA_WRITE -> QueryKind.ALONE;
            };
        } catch (RuntimeException e) {
            GraphException t = translate(e, false);
            throw new GraphException(new Neo4jError(t.error().code(), EmbeddedSink.withoutExplain(t.error().message())), e);
        }
    }

    /**
     * The server's users: HTTP callers are checked against them (writes still run as sluice's own account). A
     * server whose authentication is off accepts any credentials, which is logged as a warning here.
     */
    public UserStore users() {
        return new RemoteUsers(driver);
    }

    /** Whether the server accepts credentials it cannot know: its authentication is off (logged as a warning). */
    public boolean acceptsAnyCredentials() {
        boolean open = new RemoteUsers(driver).acceptsAnything();
        if (open) {
            log.warn("the Neo4j at {} accepts any credentials (its authentication is off), so sluice's HTTP"
                    + " callers are in effect not authenticated either", uri);
        }
        return open;
    }

    @Override
    public String neo4jVersion() {
        return serverAgent.startsWith("Neo4j ") ? serverAgent.substring("Neo4j ".length()) : serverAgent;
    }

    @Override
    public String describe() {
        return "bolt " + uri + " (" + serverAgent + ")";
    }

    /** Whether the server answers: the driver's connectivity check, at most once a second, bounded by 2 s. */
    @Override
    public boolean isAvailable() {
        probing.lock();
        try {
            if (checked && time.nanos() - checkedAt < AVAILABILITY_TTL_NANOS) {
                return available;
            }
            available = availability.probed(probe());
            checkedAt = time.nanos();
            checked = true;
            return available;
        } finally {
            probing.unlock();
        }
    }

    private boolean probe() {
        try {
            driver.verifyConnectivityAsync().toCompletableFuture().get(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() {
        driver.close();
    }

    private record BoltTx(Transaction tx, ResultBudget budget) implements SinkTx {
        @Override
        public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
            try {
                return materialise(tx.run(cypher, BoltValues.params(params)), budget);
            } catch (RuntimeException e) {
                throw translate(e, false);
            }
        }

        @Override
        public void runDiscarding(String cypher, Map<String, Object> params) throws GraphException {
            try {
                tx.run(cypher, BoltValues.params(params)).consume();
            } catch (RuntimeException e) {
                throw translate(e, false);
            }
        }
    }

    /** As {@link EmbeddedSink#materialise}: the rows detached and counted against {@code budget}. */
    static StatementResult materialise(Result r, ResultBudget budget) {
        List<String> columns = r.keys();
        List<List<Object>> rows = new ArrayList<>();
        while (r.hasNext()) {
            Record record = r.next();
            if (budget.keepsRows()) {
                List<Object> values = new ArrayList<>(columns.size());
                for (int i = 0; i < columns.size(); i++) {
                    values.add(BoltValues.detach(record.get(i).asObject()));
                }
                budget.add(rows, values);
            }
        }
        return new StatementResult(columns, rows, counters(r.consume().counters()));
    }

    static Map<String, Object> counters(SummaryCounters s) {
        return Counter.read(c -> switch (c) {
            case CONTAINS_UPDATES -> s.containsUpdates();
            case NODES_CREATED -> s.nodesCreated();
            case NODES_DELETED -> s.nodesDeleted();
            case PROPERTIES_SET -> s.propertiesSet();
            case RELATIONSHIPS_CREATED -> s.relationshipsCreated();
            case RELATIONSHIP_DELETED -> s.relationshipsDeleted();
            case LABELS_ADDED -> s.labelsAdded();
            case LABELS_REMOVED -> s.labelsRemoved();
            case INDEXES_ADDED -> s.indexesAdded();
            case INDEXES_REMOVED -> s.indexesRemoved();
            case CONSTRAINTS_ADDED -> s.constraintsAdded();
            case CONSTRAINTS_REMOVED -> s.constraintsRemoved();
            case CONTAINS_SYSTEM_UPDATES -> s.containsSystemUpdates();
            case SYSTEM_UPDATES -> s.systemUpdates();
        });
    }

    /**
     * A driver failure in Neo4j's terms. {@code committing}: the failure came from a commit (or an auto-commit
     * statement), so a lost connection means the outcome is unknown.
     */
    static GraphException translate(RuntimeException e, boolean committing) {
        ResultBudget.Exceeded big = ResultBudget.Exceeded.in(e);
        if (big != null) {
            return new GraphException(big.error(), e);
        }
        String message = e.getMessage() == null ? e.toString() : e.getMessage();
        if (e instanceof ServiceUnavailableException || e instanceof SessionExpiredException
                || e instanceof DiscoveryException) {
            return lostConnection(e, message, committing);
        }
        String code = e instanceof Neo4jException n ? n.code() : null;
        if (code != null && code.startsWith(Neo4jStatus.PREFIX)) {
            return new GraphException(new Neo4jError(code, message), e); // the server said so: the outcome is known
        }
        if (e instanceof RetryableException) {
            return new GraphException(new Neo4jError(Neo4jStatus.Sluice.TRANSIENT_FAILURE, message), e);
        }
        if (e instanceof ClientException) {
            return new GraphException(Neo4jError.invalid(message), e); // refused by the driver, e.g. a parameter type
        }
        if (committing) {
            return lostConnection(e, message, true); // no word from the server about the commit: assume the worst
        }
        return new GraphException(Neo4jError.unknown(message), e);
    }

    private static GraphException lostConnection(RuntimeException e, String message, boolean committing) {
        if (committing) {
            return new GraphException(Neo4jError.commitOutcomeUnknown("the connection to Neo4j was lost while"
                    + " committing: " + message), e, true);
        }
        return new GraphException(new Neo4jError(UNAVAILABLE, "Neo4j is not reachable: " + message), e);
    }
}
