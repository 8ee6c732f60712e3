package io.sluice.cli;

import io.sluice.config.ConfigLoader;
import io.sluice.config.HostPort;
import io.sluice.config.Sizes;
import io.sluice.config.SluiceConfig;
import io.sluice.config.Sources;
import io.sluice.security.InitialAuth;
import io.sluice.server.SluiceServer;
import io.sluice.sink.BoltSink;
import io.sluice.connector.ConnectorConfig;
import io.sluice.source.SourceChecks;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice serve}: the HTTP and Bolt front ends over embedded Neo4j, or over a Neo4j of one's own with
 * {@code --neo4j URI}. Stops cleanly on SIGTERM / Ctrl-C.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Run the gateway: HTTP and Bolt over embedded Neo4j, or over a Neo4j server with --neo4j.")
final class ServeCommand implements Callable<Integer> {
    static final String PASSWORD_ENV = "SLUICE_NEO4J_PASSWORD";
    /** Neo4j's container convention: {@code none}, or {@code neo4j/<initial password>[/true]}. */
    static final String AUTH_ENV = "NEO4J_AUTH";
    private static final String DEFAULT_BOLT = "127.0.0.1:7687";

    @Option(names = "--config", defaultValue = "${env:SLUICE_CONFIG}",
            description = "YAML config file (templates, schema, limits; env SLUICE_CONFIG)")
    Path config;

    @Option(names = "--data", defaultValue = "${env:SLUICE_DATA:-data}", description = "data directory: embedded Neo4j,"
            + " the journal and dead letters (env SLUICE_DATA; default: ${DEFAULT-VALUE})")
    Path data;

    @Option(names = "--http", defaultValue = "${env:SLUICE_HTTP:-127.0.0.1:7474}",
            description = "HTTP listen address (env SLUICE_HTTP; default: ${DEFAULT-VALUE})")
    String http;

    @Option(names = "--bolt", defaultValue = "${env:SLUICE_BOLT}", description = "sluice's Bolt listen address, for the"
            + " official drivers (env SLUICE_BOLT; default: " + DEFAULT_BOLT + "; with --neo4j: none unless given; none:"
            + " no Bolt listener)")
    String bolt;

    @Option(names = "--https", paramLabel = "HOST:PORT", defaultValue = "${env:SLUICE_HTTPS}",
            description = "HTTPS listen address (needs tls.certificate and tls.private_key in the config; env"
                    + " SLUICE_HTTPS)")
    String https;

    @Option(names = "--kafka", paramLabel = "HOST:PORT[,HOST:PORT...]", defaultValue = "${env:SLUICE_KAFKA}",
            description = "put the async journal on Kafka at these bootstrap servers (config journal.kafka for the"
                    + " topic, partitions and client properties), so a fleet of sluice instances shares it; the local"
                    + " journal is the default; env SLUICE_KAFKA)")
    String kafka;

    @Option(names = "--neo4j", paramLabel = "URI", defaultValue = "${env:SLUICE_NEO4J}",
            description = "write to this Neo4j server or cluster over Bolt (bolt://host:7687, neo4j://host:7687, "
                    + "+s for TLS) instead of embedded Neo4j; env SLUICE_NEO4J)")
    String neo4j;

    @Option(names = "--user", defaultValue = "${env:SLUICE_NEO4J_USER}", description = "Neo4j user for --neo4j (env"
            + " SLUICE_NEO4J_USER; default: neo4j when a password is given, else no auth)")
    String user;

    @Option(names = "--password", description = "Neo4j password for --neo4j (or env " + PASSWORD_ENV + ")")
    String password;

    @Option(names = "--database", defaultValue = "${env:SLUICE_DATABASE}",
            description = "Neo4j database (env SLUICE_DATABASE; default: neo4j.database in the config, neo4j)")
    String database;

    @Option(names = "--warmup-write-path", paramLabel = "DURATION", defaultValue = "${env:SLUICE_WARMUP_WRITE_PATH}",
            description = "rehearse the templates' write path for at most this long before /health says UP (config"
                    + " warmup.write_path, default 60s; 0s: not at all; embedded Neo4j only; env SLUICE_WARMUP_WRITE_PATH)")
    String warmupWritePath;

    @Option(names = "--connector-config", paramLabel = "FILE", description = "run a Neo4j Kafka Connector sink"
            + " configuration as it is (its JSON as posted to Kafka Connect, the bare map, or its .properties): its"
            + " topics become sources.kafka, its neo4j.uri the sink unless --neo4j is given (docs/SOURCES.md)")
    Path connectorConfig;

    @Option(names = "--print-config", description = "print the sluice YAML equivalent to --connector-config and exit")
    boolean printConfig;

    @Option(names = "--dry-run", description = "check the sources' mappings against the database (statements that"
            + " do not compile, MERGE keys without a constraint), print what was found and exit; consumes nothing")
    boolean dryRun;

    /** {@code --bolt none} (or an empty SLUICE_BOLT: a container's ENV cannot be unset): no Bolt listener. */
    static boolean noBolt(String bolt) {
        return bolt != null && (bolt.isBlank() || bolt.strip().equalsIgnoreCase("none"));
    }

    @Override
    public Integer call() throws Exception {
        SluiceConfig c = config == null ? SluiceConfig.defaults() : ConfigLoader.load(config);
        ConnectorConfig connector = null;
        if (connectorConfig != null) {
            connector = ConnectorConfig.load(connectorConfig);
            if (printConfig) {
                System.out.print(connector.yaml());
                return 0;
            }
            c = connector.applyTo(c);
            for (String note : connector.notes()) {
                System.err.println("note: " + note);
            }
            if (neo4j == null && connector.neo4j().uri() != null) { // the connector's Neo4j is the sink
                neo4j = connector.neo4j().uri();
                user = user != null ? user : connector.neo4j().user();
                password = password != null ? password : connector.neo4j().password();
            }
        } else if (printConfig) {
            throw new IllegalArgumentException("--print-config prints what --connector-config converts; give it one");
        }
        if (warmupWritePath != null) {
            c = c.with(c.warmup().withWritePath(Sizes.duration(warmupWritePath)));
        }
        if (kafka != null) {
            c = c.with(c.journal().withKafka(kafka));
            if (c.sources().kafka() != null && c.sources().kafka().bootstrap() == null) {
                c = c.with(new Sources(c.sources().kafka().withBootstrap(kafka)));
            }
        }
        if (https != null) {
            c = c.with(c.tls().withHttps(https));
        }
        if (database != null) {
            c = c.with(c.neo4j().withDatabase(database));
        }
        SluiceServer.Options options;
        String where;
        if (neo4j == null) {
            if (user != null || password != null) {
                throw new IllegalArgumentException("--user and --password are sluice's own account on a Neo4j server"
                        + " (--neo4j); the embedded Neo4j's initial password comes from NEO4J_AUTH");
            }
            HostPort b = noBolt(bolt) ? null : HostPort.parse(bolt == null ? DEFAULT_BOLT : bolt);
            options = new SluiceServer.Options(c, data, HostPort.parse(http), b);
            where = "embedded Neo4j";
        } else {
            String pw = password != null ? password : System.getenv(PASSWORD_ENV);
            String u = user != null ? user : pw != null ? "neo4j" : null;
            // with --neo4j, sluice's Bolt listener opens only when asked: its default port is the one a Neo4j on
            // this host would have
            options = SluiceServer.Options.remote(c, data, HostPort.parse(http), bolt == null || noBolt(bolt) ? null
                    : HostPort.parse(bolt), new BoltSink.Options(neo4j, u, pw, c.neo4j().database()));
            where = "Neo4j " + neo4j;
        }
        options = options.withInitialAuth(InitialAuth.parse(System.getenv(AUTH_ENV), 8));
        if (dryRun) {
            SourceChecks.Report report = SluiceServer.checkSources(options);
            System.out.println(report.describe());
            return report.errors().isEmpty() ? 0 : 1;
        }
        SluiceServer server = SluiceServer.start(options);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("sluice-shutdown").unstarted(() -> {
            server.close();
            stopped.countDown();
        }));
        System.out.println("sluice ready: " + server.urls() + "  " + where + "  data " + data
                + "  authentication " + server.authentication());
        stopped.await();
        return 0;
    }
}
