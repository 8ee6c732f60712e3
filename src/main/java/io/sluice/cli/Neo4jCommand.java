package io.sluice.cli;

import io.sluice.config.ByteSize;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.sink.EmbeddedNeo4j.HostPort;
import io.sluice.config.SluiceConfig;
import io.sluice.security.InitialAuth;
import io.sluice.server.Security;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice neo4j}: a plain Neo4j server, Bolt only (no auth, no TLS), for {@code sluice serve --neo4j}
 * to target when no Neo4j server of one's own is at hand, and for the tests of that path. Stops cleanly on
 * SIGTERM / Ctrl-C.
 */
@Command(name = "neo4j", mixinStandardHelpOptions = true,
        description = "Run a plain Neo4j server (embedded Neo4j, Bolt only) for 'sluice serve --neo4j'. Authentication"
                + " as Neo4j's container image: NEO4J_AUTH=none, or neo4j/<initial password>; unset, one is generated"
                + " into DATA/initial-password on the first start.")
final class Neo4jCommand implements Callable<Integer> {
    @Option(names = "--data", defaultValue = "neo4j-data", description = "Neo4j data directory (default: ${DEFAULT-VALUE})")
    Path data;

    @Option(names = "--bolt", defaultValue = "127.0.0.1:7687", description = "Bolt listen address (default: ${DEFAULT-VALUE})")
    String bolt;

    @Option(names = "--pagecache", defaultValue = "512m", description = "Neo4j page cache size (default: ${DEFAULT-VALUE})")
    String pagecache;

    @Override
    public Integer call() throws Exception {
        HostPort address = HostPort.parse(bolt);
        Security security = new Security(SluiceConfig.defaults(),
                InitialAuth.parse(System.getenv(ServeCommand.AUTH_ENV), 8));
        security.checkProtectedMode(address);
        EmbeddedNeo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(data, address,
                ByteSize.parse(pagecache).bytes(), 0, "neo4j", null, security.embedded(data)));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("sluice-shutdown").unstarted(() -> {
            neo4j.close();
            System.out.println("neo4j stopped");
            stopped.countDown();
        }));
        System.out.println("neo4j ready: bolt://" + address + "  data " + data + "  authentication "
                + security.describe(data));
        stopped.await();
        return 0;
    }
}
