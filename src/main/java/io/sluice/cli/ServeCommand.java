package io.sluice.cli;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.server.SluiceServer;
import io.sluice.sink.EmbeddedNeo4j.HostPort;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice serve}: embedded Neo4j with Bolt, and the HTTP API. Stops cleanly on SIGTERM / Ctrl-C. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Run the gateway: embedded Neo4j (Bolt on) and the HTTP API.")
final class ServeCommand implements Callable<Integer> {
    @Option(names = "--config", description = "YAML config file (templates, schema, limits)")
    Path config;

    @Option(names = "--data", defaultValue = "data", description = "Neo4j data directory (default: ${DEFAULT-VALUE})")
    Path data;

    @Option(names = "--http", defaultValue = "127.0.0.1:7474", description = "HTTP listen address (default: ${DEFAULT-VALUE})")
    String http;

    @Option(names = "--bolt", defaultValue = "127.0.0.1:7687", description = "Bolt listen address (default: ${DEFAULT-VALUE})")
    String bolt;

    @Override
    public Integer call() throws Exception {
        SluiceConfig c = config == null ? SluiceConfig.defaults() : ConfigLoader.load(config);
        SluiceServer server = SluiceServer.start(new SluiceServer.Options(c, data, HostPort.parse(http), HostPort.parse(bolt)));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("sluice-shutdown").unstarted(() -> {
            server.close();
            stopped.countDown();
        }));
        System.out.println("sluice ready: HTTP " + server.baseUrl() + "  Bolt bolt://" + bolt + "  data " + data);
        stopped.await();
        return 0;
    }
}
