package io.sluice.sink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import io.sluice.time.Time;
import org.neo4j.io.locker.FileLockException;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedded Neo4j DBMS in {@code dataDir}, with its Bolt connector on (no auth, no TLS: loopback by default)
 * so the official drivers can read what sluice wrote. Owns the DBMS: {@link #close()} shuts it down.
 */
public final class EmbeddedNeo4j implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedNeo4j.class);

    /**
     * How to start it. {@code bolt} null turns the Bolt connector off. {@code importDir}: the folder {@code LOAD CSV} file URLs are confined to (relative to it), null for
     * {@code DATA/import}; without it Neo4j would let any HTTP client read any file the process can.
     */
    public record Options(Path dataDir, HostPort bolt, long pagecacheBytes, long txMemoryMaxBytes, String database,
            Path importDir) {
        public Options(Path dataDir, HostPort bolt, long pagecacheBytes, long txMemoryMaxBytes, String database) {
            this(dataDir, bolt, pagecacheBytes, txMemoryMaxBytes, database, null);
        }

        Path importRoot() {
            return (importDir == null ? dataDir.resolve("import") : importDir).toAbsolutePath();
        }
    }

    /** A host and port, parsed from {@code HOST:PORT}. */
    public record HostPort(String host, int port) {
        public HostPort {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
        }

        public static HostPort parse(String text) {
            int colon = text.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("expected HOST:PORT, got '" + text + "'");
            }
            try {
                return new HostPort(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("expected HOST:PORT, got '" + text + "'", e);
            }
        }

        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

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
            // internal settings go through a properties file: the builder has no raw-setting method.
            Path conf = o.dataDir().resolve("sluice-neo4j.conf");
            Files.writeString(conf, "internal.dbms.bolt.netty_server_shutdown_quiet_period_duration=0s\n");
            var builder = new DatabaseManagementServiceBuilder(o.dataDir().toAbsolutePath())
                    .loadPropertiesFromFile(conf)
                    .setConfig(GraphDatabaseSettings.pagecache_memory, o.pagecacheBytes())
                    .setConfig(GraphDatabaseSettings.auth_enabled, false)
                    .setConfig(GraphDatabaseSettings.load_csv_file_url_root, o.importRoot())
                    .setConfig(GraphDatabaseSettings.keep_logical_logs, "1 files")
                    .setConfig(BoltConnector.enabled, o.bolt() != null);
            if (o.bolt() != null) {
                // advertised as it listens: neo4j:// (routing) clients are sent to the address they came to
                SocketAddress address = new SocketAddress(o.bolt().host(), o.bolt().port());
                builder.setConfig(BoltConnector.listen_address, address)
                        .setConfig(BoltConnector.advertised_address, address)
                        .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED);
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

    public GraphDatabaseService database() {
        return db;
    }

    public Sink sink() {
        return new EmbeddedSink(db, "embedded neo4j " + org.neo4j.kernel.internal.Version.getNeo4jVersion()
                + " (" + options.dataDir() + ")");
    }

    @Override
    public void close() {
        long t0 = time.nanos();
        dbms.shutdown();
        log.info("embedded Neo4j stopped in {} ms", (time.nanos() - t0) / 1_000_000);
    }
}
