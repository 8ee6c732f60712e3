package io.sluice.sink;

import io.sluice.config.HostPort;
import io.sluice.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.server.CommunityBootstrapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Neo4j's own Community server, HTTP (discovery, the Query API, the classic transactional API) and Bolt, run in
 * this JVM through Neo4j's {@code CommunityBootstrapper} as {@code bin/neo4j console} would run it: the real
 * server whose answers sluice's HTTP API is compared with, and the baseline its benchmarks measure against.
 *
 * <p>{@code home} is the server's home directory: {@link #start} writes {@code home/conf/neo4j.conf} from the
 * options on every start (so the options, not an edited file, say how it runs) and the store goes under
 * {@code home/data}, the layout {@link EmbeddedNeo4j} uses, so either can open the other's store. Owns the DBMS,
 * whose lifecycle includes the web server: {@link #close} shuts both down. The bootstrapper also installs its own
 * SIGTERM handler and shutdown hook (both end in the same {@code shutdown}, which Neo4j synchronises, so a
 * {@link #close} from another shutdown hook returns once the server has stopped, whoever began).
 */
public final class Neo4jServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Neo4jServer.class);

    /**
     * How to start it. {@code http} and {@code bolt}: where it listens, advertised as they are (discovery's
     * {@code bolt_*} entries, and clients that route, come back to them). {@code security}: authentication as
     * {@link EmbeddedNeo4j.Security} says (Bolt TLS is not supported here). {@code settings}: extra
     * {@code neo4j.conf} lines, written after sluice's own (the later line wins), e.g.
     * {@code server.queryapi.transaction_idle_timeout=5s}.
     */
    public record Options(Path home, HostPort http, HostPort bolt, long pagecacheBytes,
            EmbeddedNeo4j.Security security, Map<String, String> settings) {
        public Options {
            if (http == null || bolt == null) {
                throw new IllegalArgumentException("the Neo4j server needs an HTTP and a Bolt address, got http "
                        + http + " and bolt " + bolt);
            }
            security = security == null ? EmbeddedNeo4j.Security.OFF : security;
            if (security.boltTls() != null) {
                throw new IllegalArgumentException("Bolt TLS is not supported by sluice's Neo4j server mode");
            }
            settings = settings == null ? Map.of() : Map.copyOf(settings);
        }
    }

    private final DatabaseManagementService dbms;
    private final Time time;

    private Neo4jServer(DatabaseManagementService dbms, Time time) {
        this.dbms = dbms;
        this.time = time;
    }

    /** Writes the configuration, sets the initial password if one is given, starts and waits until it serves. */
    public static Neo4jServer start(Options o, Time time) {
        long t0 = time.nanos();
        Path home = o.home().toAbsolutePath();
        Path conf = home.resolve("conf").resolve("neo4j.conf");
        try {
            Files.createDirectories(conf.getParent());
            Files.createDirectories(home.resolve("import"));
            Files.writeString(conf, configuration(o, home));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the Neo4j server home " + home, e);
        }
        EmbeddedNeo4j.Security sec = o.security();
        if (sec.auth() && sec.initialPassword() != null) {
            // after the configuration: Neo4j's command reads it to find the store
            EmbeddedNeo4j.setInitialPassword(home, sec.initialPassword(), sec.requirePasswordChange());
        }
        CommunityBootstrapper b = new CommunityBootstrapper();
        int rc = b.start(home, conf, Map.of(), false, false);
        if (rc != 0) {
            b.stop();
            throw new IllegalStateException("the Neo4j server did not start (bootstrapper code " + rc + "); see "
                    + home.resolve("logs") + " and the output above");
        }
        log.info("Neo4j server started in {} ms: http://{}/ bolt://{} home {}", (time.nanos() - t0) / 1_000_000,
                o.http(), o.bolt(), home);
        return new Neo4jServer(b.getDatabaseManagementService(), time);
    }

    /** The {@code neo4j.conf} sluice writes: loopback as given, HTTPS off, the store's limits as embedded. */
    static String configuration(Options o, Path home) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("server.http.enabled", "true");
        c.put("server.http.listen_address", o.http().toString());
        c.put("server.http.advertised_address", o.http().toString());
        c.put("server.https.enabled", "false");
        c.put("server.bolt.enabled", "true");
        c.put("server.bolt.listen_address", o.bolt().toString());
        c.put("server.bolt.advertised_address", o.bolt().toString());
        c.put("server.bolt.tls_level", "DISABLED");
        c.put("dbms.security.auth_enabled", Boolean.toString(o.security().auth()));
        c.put("server.memory.pagecache.size", Long.toString(o.pagecacheBytes()));
        // LOAD CSV confined to HOME/import, as embedded (unset, Neo4j would let a query read any file)
        c.put("server.directories.import", home.resolve("import").toString());
        c.put("db.tx_log.rotation.retention_policy", "1 files");
        c.put("dbms.usage_report.enabled", "false");
        c.put("internal.dbms.bolt.netty_server_shutdown_quiet_period_duration", "0s");
        c.putAll(o.settings());
        StringBuilder text = new StringBuilder(
                "# written by sluice neo4j --http at every start: edit its options, not this file\n");
        c.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        return text.toString();
    }

    /**
     * Where the HTTP API listens, the port as bound: with port 0 in {@link Options#http}, the one the OS chose
     * (Neo4j registers each connector's bound address as it starts).
     */
    public HostPort httpAddress() {
        return bound(ConnectorType.HTTP);
    }

    /** Where Bolt listens, the port as bound ({@link #httpAddress}). */
    public HostPort boltAddress() {
        return bound(ConnectorType.BOLT);
    }

    private HostPort bound(ConnectorType type) {
        var register = ((GraphDatabaseAPI) dbms.database(
                GraphDatabaseSettings.SYSTEM_DATABASE_NAME)).getDependencyResolver()
                .resolveDependency(ConnectorPortRegister.class);
        var bound = register.getLocalAddress(type);
        if (bound == null) {
            throw new IllegalStateException("the Neo4j server has no " + type + " connector bound");
        }
        return new HostPort(bound.getHost(), bound.getPort());
    }

    /**
     * Stops the web server and the databases. Neo4j waits, on the way, for open HTTP transactions to end or time
     * out (up to their idle timeouts: 30 s classic, 60 s Query API, by default).
     */
    @Override
    public void close() {
        long t0 = time.nanos();
        // not bootstrapper.stop(): from a shutdown hook, its removal of Neo4j's own hook fails and is logged as
        // an unclean stop; the DBMS's shutdown is what both do
        dbms.shutdown();
        log.info("Neo4j server stopped in {} ms", (time.nanos() - t0) / 1_000_000);
    }
}
