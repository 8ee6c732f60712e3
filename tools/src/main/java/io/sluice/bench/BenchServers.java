package io.sluice.bench;

import io.sluice.config.HostPort;
import io.sluice.config.SluiceConfig;
import io.sluice.security.InitialAuth;
import io.sluice.server.SluiceServer;
import io.sluice.sink.BoltSink;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servers the bench measures, each fresh: a sluice ({@link #onFreshServer}: embedded Neo4j in a temporary
 * directory, HTTP on an ephemeral loopback port, a Bolt listener when the run's api is Bolt; or over Bolt to
 * {@link BenchOptions#remote}, emptied first), or Neo4j's own ({@link #onPeer}, {@link Neo4jPeer}): started, given
 * the work, stopped, and its directory deleted. On Kafka, each run's server gets a topic and consumer group of its
 * own ({@link #config}).
 */
final class BenchServers {
    /** Bench's logger: the bench's warnings name one logger, as before the split. */
    private static final Logger log = LoggerFactory.getLogger(Bench.class);

    private final BenchOptions options;
    private final Time time;
    private final PrintStream progress;
    /** Kafka's bootstrap servers with {@link BenchOptions#kafka}; else null. */
    private final String kafka;

    BenchServers(BenchOptions options, Time time, PrintStream progress, String kafka) {
        this.options = options;
        this.time = time;
        this.progress = progress;
        this.kafka = kafka;
    }

    /**
     * The run's server config; on Kafka, a topic and consumer group of the run's own, so that no run reads what
     * another wrote (the broker outlives the servers).
     */
    SluiceConfig config(BenchPlan.Run run) {
        SluiceConfig c = options.serverConfig(run.appliers(), run.coalesce(), run.settings());
        if (!ModeResult.KAFKA.equals(run.journal())) {
            return c;
        }
        var k = c.journal().withKafka(kafka).kafka();
        String name = "sluice-bench-" + options.scenario().name() + "-" + Long.toHexString(time.nanos());
        return c.with(c.journal().withKafka(k.withTopic(name).withGroup(name)));
    }

    /** Work on a sluice; {@code bolt}: its Bolt address, {@code bolt://host:port}, or null when it has none. */
    @FunctionalInterface
    interface OnServer<T> {
        T run(SluiceServer server, String bolt) throws InterruptedException;
    }

    /**
     * {@link #onFreshServer} for Neo4j's own server ({@link Neo4jPeer}), where {@code kind} says: started on a
     * fresh home, given {@code work}, stopped.
     */
    <T> T onPeer(BenchPeer kind, boolean auth, OnPeer<T> work) throws InterruptedException {
        Path dir = tempDir(BenchMode.NEO4J);
        try (Neo4jPeer peer = Neo4jPeer.start(kind, dir, options.serverConfig(), auth, options.scenario().schema(),
                time, progress)) {
            return work.run(peer);
        } finally {
            deleteTree(dir);
        }
    }

    @FunctionalInterface
    interface OnPeer<T> {
        T run(Neo4jPeer peer) throws InterruptedException;
    }

    /**
     * A fresh sluice, given {@code work}, stopped, its directory deleted; with {@code bolt}, started with a Bolt
     * listener on a free loopback port ({@link #freeLoopbackPort}), whatever sluice serves there.
     */
    <T> T onFreshServer(BenchMode mode, SluiceConfig config, boolean auth, boolean bolt,
            OnServer<T> work) throws InterruptedException {
        Path dir = tempDir(mode);
        // the bench warms the JIT itself (the prime), and measures from the first request: no rehearsal
        config = config.with(config.warmup().withoutRehearsal());
        try {
            HostPort boltAddress = bolt ? freeLoopbackPort() : null;
            SluiceServer.Options so = new SluiceServer.Options(config, dir, new HostPort("127.0.0.1", 0), boltAddress);
            if (options.remote() != null) {
                wipeRemote();
                so = new SluiceServer.Options(config, dir, new HostPort("127.0.0.1", 0), boltAddress,
                        options.remote(), null);
            }
            so = so.withInitialAuth(auth ? new InitialAuth.Given(Bench.PASSWORD, false) : new InitialAuth.Off());
            try (SluiceServer server = SluiceServer.start(so)) {
                return work.run(server, boltAddress == null ? null : "bolt://" + boltAddress);
            }
        } finally {
            deleteTree(dir);
        }
    }

    /**
     * A loopback port free a moment ago, for sluice's Bolt listener: sluice does not say which port it bound when
     * given port 0, so the bench chooses one and starts sluice on it. Another process could take it in between;
     * then the start fails, saying so.
     */
    static HostPort freeLoopbackPort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return new HostPort("127.0.0.1", s.getLocalPort());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot find a free loopback port for sluice's Bolt listener", e);
        }
    }

    /** Empties the remote database (data and sluice's offset node; the schema stays) so each mode starts fresh. */
    private void wipeRemote() {
        try (BoltSink sink = BoltSink.connect(options.remote(), Duration.ofSeconds(60), time)) {
            sink.runImplicit("MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS", Map.of());
        } catch (GraphException e) {
            throw new IllegalStateException("cannot empty the Neo4j at " + options.remote().uri() + ": " + e.getMessage(), e);
        }
    }

    private Path tempDir(BenchMode mode) {
        try {
            Files.createDirectories(options.workDir());
            return Files.createTempDirectory(options.workDir(), "sluice-bench-" + mode.label() + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a temporary database directory in " + options.workDir(), e);
        }
    }

    /** Deletes a temporary database; a failure is logged, not thrown (the measurement is already taken). */
    static void deleteTree(Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.delete(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    if (e != null) {
                        throw e;
                    }
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            log.warn("could not delete the bench database {}: {}", dir, e.toString());
        }
    }
}
