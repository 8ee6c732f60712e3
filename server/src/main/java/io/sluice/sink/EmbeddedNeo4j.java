package io.sluice.sink;

import io.sluice.config.HostPort;
import io.sluice.security.UserStore;
import io.sluice.time.Time;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.neo4j.cli.ExecutionContext;
import org.neo4j.commandline.admin.security.SetInitialPasswordCommand;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.configuration.ssl.ClientAuth;
import org.neo4j.configuration.ssl.SslPolicyConfig;
import org.neo4j.configuration.ssl.SslPolicyScope;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.fs.DefaultFileSystemAbstraction;
import org.neo4j.io.locker.FileLockException;
import org.neo4j.kernel.internal.Version;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedded Neo4j DBMS in {@code dataDir}, with its Bolt connector (when asked for) so the official drivers can
 * read what sluice wrote, under Neo4j's own authentication (users in its system database) and, when configured,
 * TLS. Owns the DBMS: {@link #close()} shuts it down.
 */
public final class EmbeddedNeo4j implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedNeo4j.class);

    /**
     * How to start it. {@code settings}: more of Neo4j's settings by their {@code neo4j.conf} names (the
     * config's {@code neo4j.settings}; they may override sluice's defaults for the transaction log's retention
     * and failed logins, not what the other options set). {@code bolt} null turns the Bolt connector off. {@code importDir}: the folder {@code LOAD CSV} file URLs are confined to (relative to it), null for
     * {@code DATA/import}; without it Neo4j would let any HTTP client read any file the process can.
     */
    public record Options(Path dataDir, HostPort bolt, long pagecacheBytes, long txMemoryMaxBytes, String database,
            Path importDir, Security security, Map<String, String> settings) {
        public Options {
            security = security == null ? Security.OFF : security;
            settings = settings == null ? Map.of() : Map.copyOf(settings);
        }

        public Options(Path dataDir, HostPort bolt, long pagecacheBytes, long txMemoryMaxBytes, String database) {
            this(dataDir, bolt, pagecacheBytes, txMemoryMaxBytes, database, null, null, null);
        }

        Path importRoot() {
            return (importDir == null ? dataDir.resolve("import") : importDir).toAbsolutePath();
        }
    }

    /**
     * Neo4j's authentication and Bolt TLS. {@code auth} off: anyone who reaches Bolt is let in (as Neo4j with
     * {@code dbms.security.auth_enabled=false}). {@code initialPassword}: set for user {@code neo4j} as
     * {@code neo4j-admin dbms set-initial-password} does (it takes effect while {@code neo4j} still has the
     * default password). {@code boltTls}: null for plain Bolt.
     */
    public record Security(boolean auth, String initialPassword, boolean requirePasswordChange, BoltTls boltTls) {
        public static final Security OFF = new Security(false, null, false, null);

        @Override
        public String toString() {
            return "Security[auth=" + auth + ", initialPassword=" + (initialPassword == null ? "none" : "...")
                    + ", boltTls=" + boltTls + "]";
        }
    }

    /** TLS on the Bolt connector from PEM files (Neo4j's bolt SSL policy); {@code required}: no plain Bolt. */
    public record BoltTls(Path certificate, Path privateKey, boolean required) {}

    /** Sluice's default for {@code dbms.cypher.min_replan_interval} (Neo4j's: 10 s); see {@link #properties}. */
    public static final String MIN_REPLAN_INTERVAL = "10m";

    private final DatabaseManagementService dbms;
    private final GraphDatabaseService db;
    private final Options options;
    private final Time time;

    private EmbeddedNeo4j(DatabaseManagementService dbms, GraphDatabaseService db, Options options, Time time) {
        this.dbms = dbms;
        this.db = db;
        this.options = options;
        this.time = time;
    }

    public static EmbeddedNeo4j start(Options o) {
        return start(o, Time.SYSTEM);
    }

    /** Starts the DBMS and waits (up to 60 s) for the database; {@code time} only times the start for the log. */
    public static EmbeddedNeo4j start(Options o, Time time) {
        long t0 = time.nanos();
        try {
            Files.createDirectories(o.dataDir());
            Files.createDirectories(o.importRoot());
            // raw settings go through a properties file: the builder has no raw-setting method
            Path conf = o.dataDir().resolve("sluice-neo4j.conf");
            Files.writeString(conf, properties(o.settings()));
            Security sec = o.security();
            if (sec.auth() && sec.initialPassword() != null) {
                setInitialPassword(o.dataDir(), sec.initialPassword(), sec.requirePasswordChange());
            }
            var builder = new DatabaseManagementServiceBuilder(o.dataDir().toAbsolutePath())
                    .loadPropertiesFromFile(conf)
                    .setConfig(GraphDatabaseSettings.pagecache_memory, o.pagecacheBytes())
                    .setConfig(GraphDatabaseSettings.auth_enabled, sec.auth())
                    .setConfig(GraphDatabaseSettings.load_csv_file_url_root, o.importRoot())
                    .setConfig(BoltConnector.enabled, o.bolt() != null);
            if (o.bolt() != null) {
                // advertised as it listens: neo4j:// (routing) clients are sent to the address they came to
                SocketAddress address = new SocketAddress(o.bolt().host(), o.bolt().port());
                builder.setConfig(BoltConnector.listen_address, address)
                        .setConfig(BoltConnector.advertised_address, address)
                        .setConfig(BoltConnector.encryption_level, sec.boltTls() == null
                                ? BoltConnector.EncryptionLevel.DISABLED
                                : sec.boltTls().required() ? BoltConnector.EncryptionLevel.REQUIRED
                                : BoltConnector.EncryptionLevel.OPTIONAL);
                if (sec.boltTls() != null) {
                    BoltTls tls = sec.boltTls();
                    SslPolicyConfig policy = SslPolicyConfig.forScope(SslPolicyScope.BOLT);
                    Path certificate = tls.certificate().toAbsolutePath();
                    builder.setConfig(policy.enabled, true)
                            .setConfig(policy.base_directory, certificate.getParent())
                            .setConfig(policy.public_certificate, certificate)
                            .setConfig(policy.private_key, tls.privateKey().toAbsolutePath())
                            .setConfig(policy.client_auth, ClientAuth.NONE);
                }
            }
            if (o.txMemoryMaxBytes() > 0) {
                builder.setConfig(GraphDatabaseSettings.memory_transaction_max_size, o.txMemoryMaxBytes());
            }
            DatabaseManagementService dbms = builder.build();
            GraphDatabaseService db = dbms.database(o.database());
            if (!db.isAvailable(Duration.ofSeconds(60).toMillis())) {
                dbms.shutdown();
                throw new IllegalStateException("database '" + o.database() + "' did not become available in 60 s");
            }
            log.info("embedded Neo4j started in {} ms: data {}, bolt {}, page cache {} MiB",
                    (time.nanos() - t0) / 1_000_000, o.dataDir(), o.bolt() == null ? "off" : o.bolt(),
                    o.pagecacheBytes() >> 20);
            return new EmbeddedNeo4j(dbms, db, o, time);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare Neo4j data directory " + o.dataDir(), e);
        } catch (RuntimeException e) {
            for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
                // the store locker's, or the page cache's lock on a store file
                if (c instanceof FileLockException
                        || c instanceof org.neo4j.io.pagecache.impl.muninn.swapper.FileLockException) {
                    throw new StoreInUseException(o.dataDir(), c);
                }
            }
            throw e;
        }
    }

    /**
     * The properties file of sluice's defaults and {@code settings} on top: the Bolt listener's quiet period
     * (a stop is not held up 2 s), one transaction log file kept (the journal, not Neo4j's log, is what recovery
     * replays), repeated failed logins lock a user name (Neo4j's default: 3, then 5 s; sluice's HTTP adds a
     * limit per address), a client's transaction timeout enforced within 100 ms of it (Neo4j's monitor looks every
     * 2 s by default), and a cached plan replanned at most every {@link #MIN_REPLAN_INTERVAL} rather than
     * every 10 s: on a growing graph the statistics move all the time, and each replan of a template's statement
     * made its writes wait for Cypher's planner and then for the JIT to compile the new plan (measured:
     * docs/BENCHMARKS.md, "Neo4j's settings").
     */
    static String properties(Map<String, String> settings) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("internal.dbms.bolt.netty_server_shutdown_quiet_period_duration", "0s");
        all.put(GraphDatabaseSettings.keep_logical_logs.name(), "1 files");
        all.put(GraphDatabaseSettings.auth_max_failed_attempts.name(), "3");
        // a client's tx_timeout ends its transaction when Neo4j's monitor next looks (every 2 s by default): a write
        // waiting on a lock with a 250 ms timeout was told LockClientStopped after about 1 s, and a grouped
        // transaction holding that lock was taken out of its group for silence (group_member_timeout) first
        all.put("db.transaction.monitor.check.interval", "100ms");
        all.put(GraphDatabaseSettings.cypher_min_replan_interval.name(), MIN_REPLAN_INTERVAL);
        all.putAll(settings);
        StringBuilder text = new StringBuilder();
        all.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        return text.toString();
    }

    /** Whether Neo4j has never run in {@code dataDir} (no system database yet). */
    public static boolean isFresh(Path dataDir) {
        return !Files.exists(dataDir.resolve("data").resolve("databases").resolve("system"));
    }

    /** Whether an initial password was set offline and waits for the first start ({@code auth.ini}). */
    public static boolean hasInitialPassword(Path dataDir) {
        return Files.exists(dataDir.resolve("data").resolve("dbms").resolve("auth.ini"));
    }

    /**
     * Writes the initial password of user {@code neo4j} with Neo4j's own admin command
     * ({@code neo4j-admin dbms set-initial-password}, in-process: {@code DATA/data/dbms/auth.ini}).
     */
    public static void setInitialPassword(Path dataDir, String password, boolean requireChange) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
        Path home = dataDir.toAbsolutePath();
        var command = new SetInitialPasswordCommand(
                new ExecutionContext(home, home.resolve("conf"), print, print,
                        new DefaultFileSystemAbstraction()));
        String[] args = requireChange ? new String[] {password, "--require-password-change"} : new String[] {password};
        int rc = new picocli.CommandLine(command).execute(args);
        if (rc != 0) {
            throw new IllegalArgumentException("cannot set the initial password: "
                    + out.toString(StandardCharsets.UTF_8).replace(password, "...").strip());
        }
    }

    /** Neo4j's users, for checking HTTP callers' credentials (the same ones Bolt checks). */
    public UserStore users() {
        return new EmbeddedUsers(dbms);
    }

    /** Neo4j's system database (users live there); for administration and tests. */
    public GraphDatabaseService system() {
        return dbms.database("system");
    }

    public GraphDatabaseService database() {
        return db;
    }

    public Sink sink() {
        return new EmbeddedSink(db, dbms.database("system"), "embedded neo4j "
                + Version.getNeo4jVersion() + " (" + options.dataDir() + ")");
    }

    @Override
    public void close() {
        long t0 = time.nanos();
        dbms.shutdown();
        log.info("embedded Neo4j stopped in {} ms", (time.nanos() - t0) / 1_000_000);
    }
}
