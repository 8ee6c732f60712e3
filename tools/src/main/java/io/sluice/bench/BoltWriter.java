package io.sluice.bench;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.neo4j.driver.AuthToken;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Config;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.QueryConfig;
import org.neo4j.driver.Session;
import org.neo4j.driver.SessionConfig;
import org.neo4j.driver.Transaction;
import org.neo4j.driver.TransactionConfig;
import org.neo4j.driver.exceptions.Neo4jException;

/**
 * The official Neo4j Java driver as the Bolt loads use it ({@link BoltLoad}, {@link BoltOpenLoad}): one driver per
 * run, on the run's loopback Bolt address, with the credentials the HTTP load would send; each row written in a
 * transaction of its own, the scenario's statement with the row as its parameters, in the style of the run's api:
 * <ul>
 *   <li>{@link BenchApi#BOLT_RUN}: {@code session.run(statement, row).consume()}, an auto-commit transaction (which
 *       the driver does not retry);</li>
 *   <li>{@link BenchApi#BOLT_RUN_UNCOUNTED}: the same with the transaction metadata
 *       {@code {sluice: {counters: false}}} (its summary's counters are not read; sluice may coalesce it);</li>
 *   <li>{@link BenchApi#BOLT_EXECUTE_WRITE}: {@code session.executeWrite(tx -> tx.run(statement, row).consume())},
 *       a managed transaction, which the driver retries on transient errors (for up to 30 s, its default);</li>
 *   <li>{@link BenchApi#BOLT_EXECUTABLE_QUERY}: {@code driver.executableQuery(statement).withParameters(row)
 *       .execute()}: a session the driver opens for the call, its bookmarks from the driver's shared manager;</li>
 *   <li>{@link BenchApi#BOLT_EXECUTE_WRITE_ROLLBACK}: as {@code BOLT_EXECUTE_WRITE}, 5% of the transactions
 *       throwing after their statement (the driver rolls them back; counted as {@link #ROLLED_BACK});</li>
 *   <li>{@link BenchApi#BOLT_EXECUTE_WRITE_FAIL}: as {@code BOLT_EXECUTE_WRITE}, 5% of the transactions running
 *       {@link #FAILING} instead, which writes and then fails on the server (counted by its code);</li>
 *   <li>{@link BenchApi#BOLT_EXECUTE_WRITE_3} and {@link BenchApi#BOLT_TRANSACTION_3}: three rows a transaction, the
 *       statement run once for each, in a managed transaction ({@code executeWrite}) or an application's own
 *       ({@code beginTransaction} ... {@code commit}); each row counts as a write.</li>
 * </ul>
 * The first two on one session per client ({@link Worker}), kept for the run as a worker thread would keep one.
 * Everything else is the driver's default, as an application gets it, but the pool: at least twice the clients'
 * connections and never fewer than the driver's default, so that no session waits for a connection handed back a
 * moment late (the pool is not what is measured).
 *
 * <p>A transaction that failed is counted by what its exception says ({@link Failure}): a Neo4j status code when the
 * server answered (it rolled the transaction back), else the exception's class, and then its rows are uncertain, as
 * an HTTP request lost in transport: committed or not, the client cannot know.
 *
 * <p>Thread-safe (the driver is); each {@link Worker} is used by one thread at a time. {@link #close} closes the
 * driver, which fails whatever is still in flight.
 */
final class BoltWriter implements AutoCloseable {
    /** The driver's own default pool size. */
    static final int DRIVER_DEFAULT_POOL = 100;
    /** The metadata of {@link BenchApi#BOLT_RUN_UNCOUNTED}'s transactions: sluice need not keep their counters. */
    private static final TransactionConfig UNCOUNTED = TransactionConfig.builder()
            .withMetadata(Map.of("sluice", Map.of("counters", false))).build();

    /** The statement of the failing style's failing transactions: a write, then a division by zero. */
    static final String FAILING = "CREATE (n:SluiceBenchFailed) WITH n, $zero AS z RETURN 1 / z AS never";

    private final Driver driver;
    private final BenchApi style;
    private final String statement;
    private final SessionConfig sessions;
    private final QueryConfig queries;

    private BoltWriter(Driver driver, BenchApi style, String statement, String database) {
        this.driver = driver;
        this.style = style;
        this.statement = statement;
        this.sessions = database == null ? SessionConfig.defaultConfig() : SessionConfig.forDatabase(database);
        this.queries = database == null ? QueryConfig.defaultConfig()
                : QueryConfig.builder().withDatabase(database).build();
    }

    /** A driver for {@code spec}: its {@code bolt://} loopback address, credentials, style and statement. */
    static BoltWriter open(LoadSpec spec) {
        if (!spec.api().bolt()) {
            throw new IllegalArgumentException(spec.api().label() + " is not a Bolt api");
        }
        URI uri = URI.create(spec.uri());
        if (!"bolt".equals(uri.getScheme()) || !loopback(uri.getHost())) {
            throw new IllegalArgumentException("the bench only drives a loopback server over plain bolt://, not "
                    + spec.uri());
        }
        Config config = Config.builder()
                .withMaxConnectionPoolSize(poolSize(spec.clients()))
                .build();
        return new BoltWriter(GraphDatabase.driver(uri, authToken(spec.authorization()), config), spec.api(),
                spec.rawCypher(), spec.database());
    }

    /** The connections the pool may open for {@code clients} sessions: see the class's note. */
    static int poolSize(int clients) {
        return Math.max(DRIVER_DEFAULT_POOL, 2 * clients);
    }

    private static boolean loopback(String host) {
        return "127.0.0.1".equals(host) || "localhost".equals(host) || "[::1]".equals(host);
    }

    /**
     * The driver's credentials from the HTTP load's {@code Authorization} header ({@link Bench#authorization}), so
     * that both protocols log in as the same user: {@code Basic} user and password, or none (null: a server without
     * authentication).
     */
    static AuthToken authToken(String authorization) {
        if (authorization == null) {
            return AuthTokens.none();
        }
        if (!authorization.startsWith("Basic ")) {
            throw new IllegalArgumentException("the Bolt load takes Basic credentials only");
        }
        String pair = new String(Base64.getDecoder().decode(authorization.substring("Basic ".length()).strip()),
                StandardCharsets.UTF_8);
        int colon = pair.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("Basic credentials without a ':' between user and password");
        }
        return AuthTokens.basic(pair.substring(0, colon), pair.substring(colon + 1));
    }

    /** A client's session (none for {@link BenchApi#BOLT_EXECUTABLE_QUERY}, where the driver opens one a call). */
    Worker worker() {
        return worker(0);
    }

    /** A client's session; {@code seed}: its own draws of which transactions roll back or fail (those styles). */
    Worker worker(long seed) {
        return new Worker(style == BenchApi.BOLT_EXECUTABLE_QUERY ? null : driver.session(sessions),
                new SplittableRandom(seed));
    }

    /** The rows each transaction of {@code style} writes (each counted as a write). */
    static int rowsPerTransaction(BenchApi style) {
        return style == BenchApi.BOLT_EXECUTE_WRITE_3 || style == BenchApi.BOLT_TRANSACTION_3 ? 3 : 1;
    }

    /** What a transaction of the rollback style throws so that the driver rolls it back (and does not retry it). */
    static final class RolledBackOnPurpose extends RuntimeException {
        RolledBackOnPurpose() {
            super("rolled back on purpose", null, false, false);
        }
    }

    /** How a transaction rolled back on purpose is counted: a failure the server answered, nothing uncertain. */
    static final String ROLLED_BACK = "RolledBackOnPurpose";

    @Override
    public void close() {
        driver.close();
    }

    /**
     * What failed a transaction.
     *
     * @param code      the Neo4j status code the server answered with, or the class of the exception when it gave
     *                  none (the connection failed, the driver was closed ...)
     * @param uncertain no answer from the server: the transaction may have committed
     */
    record Failure(String code, boolean uncertain) {
        static Failure of(RuntimeException e) {
            if (e instanceof RolledBackOnPurpose) {
                return new Failure(ROLLED_BACK, false);
            }
            if (e instanceof Neo4jException n && n.code() != null && n.code().startsWith("Neo.")) {
                return new Failure(n.code(), false);
            }
            return new Failure(e.getClass().getSimpleName(), true);
        }
    }

    /** One client's way to write: its session, kept for the run. Used by one thread at a time. */
    final class Worker implements AutoCloseable {
        private final Session session;
        private final SplittableRandom random;

        private Worker(Session session, SplittableRandom random) {
            this.session = session;
            this.random = random;
        }

        /**
         * Writes one transaction's rows ({@link #rowsPerTransaction}, drawn from {@code rows}) in the run's style;
         * null when it committed, else what failed.
         */
        Failure write(Scenario.RowSource rows) {
            if (rowsPerTransaction(style) == 3) {
                List<Map<String, Object>> three = List.of(rows.next(), rows.next(), rows.next());
                try {
                    if (style == BenchApi.BOLT_EXECUTE_WRITE_3) {
                        session.executeWrite(tx -> {
                            three.forEach(row -> tx.run(statement, row).consume());
                            return null;
                        });
                    } else {
                        try (Transaction tx = session.beginTransaction()) {
                            three.forEach(row -> tx.run(statement, row).consume());
                            tx.commit();
                        }
                    }
                    return null;
                } catch (RuntimeException e) {
                    return Failure.of(e);
                }
            }
            return write(rows.next());
        }

        /** Writes {@code row} in one transaction, in the run's style; null when it committed, else what failed. */
        Failure write(Map<String, Object> row) {
            try {
                switch (style) {
                    case BOLT_RUN -> session.run(statement, row).consume();
                    case BOLT_RUN_UNCOUNTED -> session.run(statement, row, UNCOUNTED).consume();
                    case BOLT_EXECUTE_WRITE -> session.executeWrite(tx -> tx.run(statement, row).consume());
                    case BOLT_EXECUTABLE_QUERY -> driver.executableQuery(statement).withParameters(row)
                            .withConfig(queries).execute();
                    case BOLT_EXECUTE_WRITE_ROLLBACK -> {
                        boolean rollback = random.nextDouble() < BenchApi.ROLLBACK_SHARE;
                        session.executeWrite(tx -> {
                            tx.run(statement, row).consume();
                            if (rollback) {
                                throw new RolledBackOnPurpose();
                            }
                            return null;
                        });
                    }
                    case BOLT_EXECUTE_WRITE_FAIL -> {
                        boolean fail = random.nextDouble() < BenchApi.ROLLBACK_SHARE;
                        session.executeWrite(tx -> fail ? tx.run(FAILING, Map.of("zero", 0)).consume()
                                : tx.run(statement, row).consume());
                    }
                    default -> throw new IllegalStateException(style.label() + " is not a Bolt api");
                }
                return null;
            } catch (RuntimeException e) { // a failed write is a measurement, counted by what failed it
                return Failure.of(e);
            }
        }

        @Override
        public void close() {
            if (session != null) {
                try {
                    session.close();
                } catch (RuntimeException e) {
                    // the driver was closed under it (a run that overran): nothing is left to close
                }
            }
        }
    }
}
