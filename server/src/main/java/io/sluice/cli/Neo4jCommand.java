package io.sluice.cli;

import io.sluice.config.ByteSize;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.config.HostPort;
import io.sluice.sink.Neo4jServer;
import io.sluice.config.SluiceConfig;
import io.sluice.security.InitialAuth;
import io.sluice.server.Security;
import io.sluice.time.Time;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice neo4j}: a plain Neo4j, for {@code sluice serve --neo4j} to target when no Neo4j server of one's
 * own is at hand, and for the tests of that path: embedded Neo4j with Bolt only; or, with {@code --http}, Neo4j's
 * own Community server (HTTP and Bolt), the reference sluice's HTTP API is compared with and the baseline of its
 * benchmarks. Either stops cleanly on SIGTERM / Ctrl-C.
 */
@Command(name = "neo4j", mixinStandardHelpOptions = true,
        description = "Run a plain Neo4j: embedded Neo4j with Bolt only (for 'sluice serve --neo4j'), or with --http"
                + " Neo4j's own Community server (HTTP: discovery, Query API, classic transactional API; and Bolt)."
                + " Authentication as Neo4j's container image: NEO4J_AUTH=none, or neo4j/<initial password>; unset,"
                + " one is generated into DATA/initial-password on the first start. With --http, port 0 lets the OS"
                + " choose; the 'neo4j ready' line gives the ports as bound.")
final class Neo4jCommand implements Callable<Integer> {
    @Option(names = "--data", defaultValue = "neo4j-data", description = "Neo4j data directory (default: ${DEFAULT-VALUE});"
            + " with --http, the server's home (conf/neo4j.conf is rewritten at every start)")
    Path data;

    @Option(names = "--bolt", defaultValue = "127.0.0.1:7687", description = "Bolt listen address (default: ${DEFAULT-VALUE})")
    String bolt;

    @Option(names = "--http", paramLabel = "HOST:PORT", description = "run Neo4j's Community server instead, its HTTP"
            + " API listening here (plain HTTP, no HTTPS)")
    String http;

    @Option(names = "--setting", paramLabel = "KEY=VALUE", description = "with --http: a neo4j.conf setting of your"
            + " own, after sluice's (e.g. server.queryapi.transaction_idle_timeout=5s); repeatable")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--pagecache", defaultValue = "512m", description = "Neo4j page cache size (default: ${DEFAULT-VALUE})")
    String pagecache;

    @Override
    public Integer call() throws Exception {
        HostPort address = HostPort.parse(bolt);
        HostPort httpAddress = http == null ? null : HostPort.parse(http);
        if (httpAddress == null && !settings.isEmpty()) {
            throw new IllegalArgumentException("--setting needs --http: the embedded Neo4j takes sluice's settings"
                    + " only");
        }
        Security security = new Security(SluiceConfig.defaults(),
                InitialAuth.parse(System.getenv(ServeCommand.AUTH_ENV), 8));
        security.checkProtectedMode(address, httpAddress);
        long pagecacheBytes = ByteSize.parse(pagecache).bytes();
        AutoCloseable neo4j = httpAddress == null
                ? EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(data, address, pagecacheBytes, 0, "neo4j", null,
                        security.embedded(data), null))
                : Neo4jServer.start(new Neo4jServer.Options(data, httpAddress, address, pagecacheBytes,
                        security.embedded(data), settings), Time.SYSTEM);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("sluice-shutdown").unstarted(() -> {
            try {
                neo4j.close();
            } catch (Exception e) {
                System.out.println("neo4j did not stop cleanly: " + e);
            }
            System.out.println("neo4j stopped");
            stopped.countDown();
        }));
        if (neo4j instanceof Neo4jServer server) { // as bound: port 0 asks the OS for a free one
            address = server.boltAddress();
            httpAddress = server.httpAddress();
        }
        System.out.println("neo4j ready: bolt://" + address + (httpAddress == null ? "" : "  http://" + httpAddress)
                + "  data " + data + "  authentication " + security.describe(data));
        stopped.await();
        return 0;
    }
}
