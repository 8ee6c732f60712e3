package io.sluice.sink;

import io.sluice.security.Credentials;
import io.sluice.security.UserStore;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.TxConfig;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.neo4j.driver.AccessMode;
import org.neo4j.driver.AuthToken;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.BookmarkManager;
import org.neo4j.driver.BookmarkManagerConfig;
import org.neo4j.driver.BookmarkManagers;
import org.neo4j.driver.Config;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.driver.SessionConfig;
import org.neo4j.driver.Transaction;
import org.neo4j.driver.TransactionConfig;
import org.neo4j.driver.summary.QueryType;
import org.neo4j.driver.summary.ResultSummary;
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
 * <p>Every {@link Sink} operation is here over one driver; the error translation they all share (the driver's
 * exceptions to Neo4j's codes, and the commit-outcome flag) is {@code BoltErrors}', reading results
 * {@code BoltResults}', the transaction held open across calls {@code BoltOpenTx}, values {@code BoltValues}',
 * users {@code RemoteUsers}'.
 *
 * <p>Thread-safe (the driver is); a transaction is confined to the thread that runs its work.
 */
public final class BoltSink implements Sink {
    private static final Logger log = LoggerFactory.getLogger(BoltSink.class);
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
    /** Where {@code SHOW TRANSACTIONS} looks into batches: no bookmarks, so it waits for nothing. */
    private final SessionConfig watchSession;
    /** This sink's batches' ids on the server: one random prefix (other instances share the server), a count. */
    private final String batchIds = UUID.randomUUID().toString();
    private final AtomicLong batches = new AtomicLong();
    private final Time time;
    private final ReentrantLock probing = new ReentrantLock();
    private volatile String serverAgent = "version unknown";
    private long checkedAt;
    private boolean checked;
    private boolean available;
    private final AvailabilityLog availability;
    private final int maxConnections;

    BoltSink(Driver driver, String uri, String database, Time time, int maxConnections) {
        this.driver = driver;
        this.maxConnections = maxConnections;
        this.uri = uri;
        this.time = time;
        this.availability = new AvailabilityLog("Neo4j at " + uri);
        BookmarkManager bookmarks = BookmarkManagers.defaultManager(BookmarkManagerConfig.builder().build());
        this.writeSession = SessionConfig.builder().withDatabase(database).withDefaultAccessMode(AccessMode.WRITE)
                .withBookmarkManager(bookmarks).build();
        this.readSession = SessionConfig.builder().withDatabase(database).withDefaultAccessMode(AccessMode.READ)
                .withBookmarkManager(bookmarks).build();
        this.watchSession = SessionConfig.builder().withDatabase(database).build();
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
        BoltSink sink = new BoltSink(GraphDatabase.driver(o.uri(), auth, config), o.uri(), o.database(), time,
                o.maxConnections());
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
                GraphException t = BoltErrors.translate(e, false);
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

    @Override
    public <T> T inReadTransaction(TxWork<T> work, TxConfig config) throws GraphException {
        return transact(work, readSession, false, driverConfig(config), () -> {});
    }

    /** The driver's form of {@code config}: its timeout and metadata, the driver's values as sluice read them. */
    private static TransactionConfig driverConfig(TxConfig config) {
        if (config.isNone()) {
            return TransactionConfig.empty();
        }
        TransactionConfig.Builder c = TransactionConfig.builder();
        if (config.timeout() != null) {
            c.withTimeout(config.timeout());
        }
        if (!config.metadata().isEmpty()) {
            c.withMetadata(BoltValues.params(config.metadata()));
        }
        return c.build();
    }

    /** Marked as a batch's by its metadata, seen through {@code SHOW TRANSACTIONS} ({@link BoltRunning}). */
    @Override
    public <T> T inBatchTransaction(TxWork<T> work, Duration timeout, Consumer<Running> opened)
            throws GraphException {
        BoltRunning running = new BoltRunning(driver, watchSession, batchIds + "-" + batches.incrementAndGet());
        TransactionConfig.Builder c = TransactionConfig.builder().withMetadata(running.metadata());
        if (timeout != null) {
            c.withTimeout(timeout);
        }
        return transact(work, writeSession, true, c.build(), () -> opened.accept(running));
    }

    @Override
    public <T> T inTransaction(TxWork<T> work, TxConfig config) throws GraphException {
        return transact(work, writeSession, true, driverConfig(config), () -> {});
    }

    private <T> T transact(TxWork<T> work, SessionConfig config, boolean commit) throws GraphException {
        return transact(work, config, commit, TransactionConfig.empty(), () -> {});
    }

    private <T> T transact(TxWork<T> work, SessionConfig config, boolean commit, TransactionConfig txConfig,
            Runnable begun) throws GraphException {
        Session session = null;
        Transaction tx = null;
        boolean committing = false;
        try {
            session = driver.session(config);
            tx = session.beginTransaction(txConfig);
            begun.run();
            T value = work.run(new BoltTx(tx, ResultBudget.forTransaction()));
            if (commit) {
                committing = true;
                tx.commit();
            }
            return value;
        } catch (GraphException e) {
            throw e;
        } catch (RuntimeException e) {
            throw BoltErrors.translate(e, committing);
        } finally {
            // after a commit, a failure to release the connection changes nothing: it is not the outcome
            BoltOpenTx.closeQuietly(tx);
            BoltOpenTx.closeQuietly(session);
        }
    }

    @Override
    public OpenTx begin(boolean write, TxConfig config) throws GraphException {
        Session session = null;
        try {
            session = driver.session(write ? writeSession : readSession);
            return new BoltOpenTx(session, session.beginTransaction(driverConfig(config)));
        } catch (RuntimeException e) {
            BoltOpenTx.closeQuietly(session);
            throw BoltErrors.translate(e, false);
        }
    }

    @Override
    public StatementResult runImplicit(String cypher, Map<String, Object> params) throws GraphException {
        try (Session s = driver.session(writeSession)) {
            return BoltResults.runWhole(s, cypher, params);
        } catch (RuntimeException e) {
            // an auto-commit statement commits as it runs: a lost connection leaves its outcome unknown
            throw BoltErrors.translate(e, true);
        }
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
                return BoltResults.runWhole(s, cypher, params);
            } catch (RuntimeException e) {
                throw BoltErrors.translate(e, true);
            }
        };
    }

    @Override
    public QueryKind classify(String cypher) throws GraphException {
        return planned(cypher).kind();
    }

    @Override
    public Planned planned(String cypher) throws GraphException {
        try (Session s = driver.session(writeSession)) {
            ResultSummary summary = s.run("EXPLAIN " + cypher).consume();
            QueryType type = summary.queryType();
            QueryKind kind = type == null ? QueryKind.ALONE // a DBMS command: no plan type to go by
                    : switch (type) {
                        case READ_ONLY -> QueryKind.READ;
                        case READ_WRITE, WRITE_ONLY -> QueryKind.WRITE;
                        case SCHEMA_WRITE -> QueryKind.ALONE;
                    };
            return new Planned(kind, EmbeddedSummaries.planNotices(BoltSummaries.of(summary), "EXPLAIN ".length()));
        } catch (RuntimeException e) {
            GraphException t = BoltErrors.translate(e, false);
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

    /** Half the pool: each open transaction holds a connection, and the appliers and reads must keep theirs. */
    @Override
    public int maxOpenTransactions() {
        return Math.max(1, maxConnections / 2);
    }

    @Override
    public void close() {
        driver.close();
    }

    private record BoltTx(Transaction tx, ResultBudget budget) implements SinkTx {
        @Override
        public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
            try {
                return BoltResults.materialise(tx.run(cypher, BoltValues.params(params)), budget);
            } catch (RuntimeException e) {
                throw BoltErrors.translate(e, false);
            }
        }

        @Override
        public void runDiscarding(String cypher, Map<String, Object> params) throws GraphException {
            try {
                tx.run(cypher, BoltValues.params(params)).consume();
            } catch (RuntimeException e) {
                throw BoltErrors.translate(e, false);
            }
        }
    }
}
