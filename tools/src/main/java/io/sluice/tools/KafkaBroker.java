package io.sluice.tools;

import io.sluice.journal.DirectoryLock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Kafka (broker and KRaft controller in one), in-process, from Kafka's own jars: what
 * {@code sluice kafka} runs, for trying and testing sluice's Kafka journal without a Kafka of one's own.
 *
 * <p><b>Design.</b> It does what {@code kafka-storage format} and {@code kafka-server-start} do, minus their command
 * lines and their argument parsers (docs/SCALING.md, "./sluice kafka"):
 * <ol>
 *   <li>Lock DATA ({@code DATA/sluice-kafka.lock}) before Kafka touches anything. Kafka locks each of its log
 *       directories, but late: with one directory shared by the metadata log and the topics, a second process got
 *       as far as running its controller against the first one's metadata log. So the metadata log also gets a
 *       directory of its own ({@code DATA/metadata}, topics in {@code DATA/logs}), which Kafka's raft manager then
 *       locks at once.</li>
 *   <li>Check that the ports are free, for a one-line error before anything is formatted.</li>
 *   <li>Format on the first start (no {@code meta.properties} in the metadata directory): a new cluster id, with a
 *       static quorum of this one node ({@code controller.quorum.voters}). Static, because no controller address is
 *       written to disk: the controller's port may change from one start to the next (by default a free loopback
 *       port is chosen at each start; clients never use it).</li>
 *   <li>{@link KafkaRaftServer#startup()}, which returns once the broker is registered and serving.</li>
 * </ol>
 *
 * <p><b>Failure.</b> A start that fails before {@code startup()} leaves nothing behind (the lock is released). One
 * that fails inside it (a port taken after the check, a corrupt log) can leave Kafka's non-daemon threads running:
 * the JVM must then exit, which is what {@code sluice kafka} does, as Kafka's own main does. Kafka's fatal-fault
 * handler also exits the JVM on its own (out of memory, a lost directory lock): never run this inside
 * {@code sluice serve}.
 *
 * <p><b>Durability.</b> Kafka relies on replication, not fsync: with one node, an acknowledged record ({@code
 * acks=all}) survives kill -9 of the broker (it is in the page cache) but not a power loss, unless
 * {@link Options#fsync} flushes every append ({@code log.flush.interval.messages=1}, several times slower).
 *
 * <p><b>Settings</b> worth knowing, beyond one replica everywhere: topics are never auto-created; a crashed
 * broker's session expires in 3 s instead of 9 (a restart after kill -9 is refused until then); the log cleaner's
 * dedupe buffer is 8 MB instead of 128 MB of heap (the broker then runs in {@code -Xmx192m}); consumer offsets
 * in 4 partitions instead of 50. {@link Options#settings} are applied last, except the ones this class owns
 * ({@link #OWNED_SETTINGS}).
 *
 * <p>Threads: Kafka's own (about 90), started by {@link #start} and stopped by {@link #close}, which also runs on
 * a thread of its own ({@code kafka-broker-stop}) so that it can give up after a bound. Not thread-safe.
 */
public final class KafkaBroker implements AutoCloseable {
    static final String LOCK_FILE = "sluice-kafka.lock";
    static final String LISTENER = "PLAINTEXT";
    static final String CONTROLLER = "CONTROLLER";
    static final int NODE_ID = 1;
    static final Duration STOP_WAIT = Duration.ofSeconds(60);

    /** Broker settings that follow from the options: {@code --setting} may not change them. */
    static final Set<String> OWNED_SETTINGS = Set.of("process.roles", "node.id", "broker.id", "listeners",
            "advertised.listeners", "controller.listener.names", "inter.broker.listener.name",
            "listener.security.protocol.map", "controller.quorum.voters", "controller.quorum.bootstrap.servers",
            "log.dirs", "log.dir", "metadata.log.dir");

    private static final Logger log = LoggerFactory.getLogger(KafkaBroker.class);

    /**
     * Where and how to run. {@code controllerPort} 0: a free port on {@code controllerHost}, chosen at each start.
     * {@code settings}: further broker settings, applied after sluice's.
     */
    public record Options(Path dataDir, String host, int port, String controllerHost, int controllerPort,
            boolean fsync, Map<String, String> settings) {
        public Options {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("listen port out of range: " + port);
            }
            if (controllerPort < 0 || controllerPort > 65535) {
                throw new IllegalArgumentException("controller port out of range: " + controllerPort);
            }
            if (controllerPort == port && controllerHost.equals(host)) {
                throw new IllegalArgumentException("the controller needs a port of its own, not " + port);
            }
            for (String key : settings.keySet()) {
                if (OWNED_SETTINGS.contains(key)) {
                    throw new IllegalArgumentException("broker setting " + key + " follows from sluice kafka's"
                            + " options (--data, --listen, --controller) and cannot be set");
                }
            }
            settings = Map.copyOf(settings);
        }
    }

    private final KafkaRaftServer server;
    private final DirectoryLock lock;
    private final String bootstrap;
    private final String controller;
    private final boolean formatted;
    private boolean closed;

    private KafkaBroker(KafkaRaftServer server, DirectoryLock lock, String bootstrap, String controller,
            boolean formatted) {
        this.server = server;
        this.lock = lock;
        this.bootstrap = bootstrap;
        this.controller = controller;
        this.formatted = formatted;
    }

    /**
     * Locks, formats if new, starts; returns once the broker serves. Throws with a one-line message; after a
     * failure inside Kafka's start (see the class's note) the caller must exit the JVM.
     */
    public static KafkaBroker start(Options options) throws IOException {
        Path data = options.dataDir().toAbsolutePath();
        Files.createDirectories(data);
        DirectoryLock lock = DirectoryLock.acquire(data, LOCK_FILE, "kafka data directory");
        KafkaRaftServer server;
        String controller;
        boolean formatted;
        try {
            ensureFree(options.host(), options.port(), "listen address");
            int controllerPort = options.controllerPort() == 0
                    ? freePortBeside(options)
                    : ensureFree(options.controllerHost(), options.controllerPort(), "controller address");
            controller = address(options.controllerHost(), controllerPort);
            KafkaConfig config = KafkaConfig.fromProps(properties(data, options, controller), false);
            formatted = formatIfNew(config);
            server = new KafkaRaftServer(config, Time.SYSTEM);
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
        try {
            server.startup();
        } catch (Throwable t) {
            // Kafka's threads may live on against DATA: keep the lock; the JVM is about to exit
            throw new IOException("kafka did not start: " + describe(t), t);
        }
        return new KafkaBroker(server, lock, address(options.host(), options.port()), controller, formatted);
    }

    /**
     * A free port for the controller other than the listener's: the listener's port is free until the broker binds
     * it, so the system may hand it out as a free one (seen in the suite: both listeners on one port, the broker
     * refusing to start).
     */
    private static int freePortBeside(Options options) throws IOException {
        while (true) {
            int p = freePort(options.controllerHost());
            if (p != options.port()) {
                return p;
            }
        }
    }

    static Properties properties(Path data, Options options, String controller) {
        Map<String, String> p = new LinkedHashMap<>();
        String listen = address(options.host(), options.port());
        p.put("process.roles", "broker,controller");
        p.put("node.id", Integer.toString(NODE_ID));
        p.put("listeners", LISTENER + "://" + listen + "," + CONTROLLER + "://" + controller);
        p.put("advertised.listeners", LISTENER + "://" + listen);
        p.put("controller.listener.names", CONTROLLER);
        p.put("inter.broker.listener.name", LISTENER);
        p.put("listener.security.protocol.map", LISTENER + ":PLAINTEXT," + CONTROLLER + ":PLAINTEXT");
        p.put("controller.quorum.voters", NODE_ID + "@" + controller);
        p.put("metadata.log.dir", data.resolve("metadata").toString());
        p.put("log.dirs", data.resolve("logs").toString());
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("min.insync.replicas", "1");
        p.put("auto.create.topics.enable", "false");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("broker.session.timeout.ms", "3000");
        p.put("broker.heartbeat.interval.ms", "500");
        p.put("log.cleaner.dedupe.buffer.size", Integer.toString(8 << 20));
        if (options.fsync()) {
            p.put("log.flush.interval.messages", "1");
        }
        p.putAll(options.settings());
        Properties props = new Properties();
        props.putAll(p);
        return props;
    }

    /** What {@code kafka-storage format} does, when the metadata directory has no {@code meta.properties}. */
    private static boolean formatIfNew(KafkaConfig config) throws IOException {
        if (Files.exists(Path.of(config.metadataLogDir(), "meta.properties"))) {
            return false;
        }
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        String clusterId = Uuid.randomUuid().toString();
        Formatter formatter = new Formatter()
                .setPrintStream(new PrintStream(said, true, StandardCharsets.UTF_8))
                .setNodeId(NODE_ID)
                .setClusterId(clusterId)
                .setControllerListenerName(CONTROLLER)
                .setMetadataLogDirectory(config.metadataLogDir())
                .setWriteBootstrapSnapshot(true)   // kafka-storage: when this node is a controller
                .setHasDynamicQuorum(false)
                .setIgnoreFormatted(true);
        config.logDirs().forEach(formatter::addDirectory);
        formatter.addDirectory(config.metadataLogDir());
        try {
            formatter.run();
        } catch (Exception e) {
            throw new IOException("could not format " + config.metadataLogDir() + ": " + describe(e), e);
        }
        said.toString(StandardCharsets.UTF_8).lines().forEach(line -> log.debug("{}", line));
        log.info("formatted {} and {}: a new cluster, id {}", config.metadataLogDir(),
                String.join(", ", config.logDirs()), clusterId);
        return true;
    }

    private static int ensureFree(String host, int port, String what) throws IOException {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getByName(host))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IOException(what + " " + address(host, port) + " is not available: " + e.getMessage(), e);
        }
    }

    private static int freePort(String host) throws IOException {
        return ensureFree(host, 0, "controller address");
    }

    /** {@code host:port}, with an IPv6 literal in brackets. */
    static String address(String host, int port) {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** The message of {@code t}, and that of its root cause when it says something more. */
    static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String top = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        String deepest = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return root == t || top.contains(deepest) ? top : top + " (" + deepest + ")";
    }

    /** The clients' bootstrap address, {@code host:port}. */
    public String bootstrap() {
        return bootstrap;
    }

    /** The controller's address (Kafka's own use only). */
    public String controller() {
        return controller;
    }

    /** Whether this start formatted a new data directory. */
    public boolean formatted() {
        return formatted;
    }

    /**
     * Shuts Kafka down (its controlled shutdown: logs flushed, clean-shutdown markers written) and releases DATA;
     * gives up after {@link #STOP_WAIT}, leaving the lock held: the JVM is then expected to exit.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread stop = Thread.ofPlatform().name("kafka-broker-stop").daemon().start(() -> {
            try {
                server.shutdown();
                server.awaitShutdown();
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        try {
            if (!stop.join(STOP_WAIT)) {
                throw new IOException("kafka did not stop within " + STOP_WAIT.toSeconds() + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while kafka was stopping", e);
        }
        if (failed.get() != null) {
            throw new IOException("kafka did not stop cleanly: " + describe(failed.get()), failed.get());
        }
        lock.close();
    }
}
