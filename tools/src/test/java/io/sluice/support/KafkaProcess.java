package io.sluice.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code sluice kafka}, a single-node Kafka as a real child process ({@code -Xmx192m}, C1 only), for the tests of the Kafka
 * journal: it can be stopped (SIGTERM), killed (-9) and started again on the same data directory and port. Consumer
 * groups ({@code group.protocol=consumer}) notice a lost member after 6 s instead of 45 (see {@link #TEST_SETTINGS}).
 * Its output goes to {@code dataDir/../DATA-kafka-N.log}.
 */
public final class KafkaProcess implements AutoCloseable {
    /** Broker settings for tests: the consumer protocol's session and heartbeat, and their lower bounds, lowered. */
    static final String HEAP = "192m";
    /**
     * The quick compiler only: a test's broker serves little, and at a load average of 10 on this 2-core machine
     * its start took 15-20 s, much of it C2 compiling.
     */
    static final List<String> JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1");

    public static final Map<String, String> TEST_SETTINGS = Map.of(
            "group.consumer.min.session.timeout.ms", "3000",
            "group.consumer.session.timeout.ms", "6000",
            "group.consumer.min.heartbeat.interval.ms", "300",
            "group.consumer.heartbeat.interval.ms", "500");

    public final Path dataDir;
    public final int port;
    private final Map<String, String> settings;
    private final ChildJvm jvm;

    private KafkaProcess(ChildJvm jvm, Path dataDir, int port, Map<String, String> settings) {
        this.jvm = jvm;
        this.dataDir = dataDir;
        this.port = port;
        this.settings = settings;
    }

    /** Starts on a free port, with {@link #TEST_SETTINGS}. */
    public static KafkaProcess start(Path dataDir) throws IOException {
        return start(dataDir, TestServer.freePort());
    }

    /** Starts on {@code port}, e.g. again on the port of a stopped or killed one, with {@link #TEST_SETTINGS}. */
    public static KafkaProcess start(Path dataDir, int port) throws IOException {
        return start(dataDir, port, TEST_SETTINGS);
    }

    /** Starts on {@code port} with {@code settings} as {@code --setting}s. */
    public static KafkaProcess start(Path dataDir, int port, Map<String, String> settings) throws IOException {
        return new KafkaProcess(ChildJvm.start(HEAP, JVM_OPTIONS, args(dataDir, port, settings),
                "kafka ready", logFile(dataDir), Map.of()), dataDir, port, settings);
    }

    /**
     * Runs {@code sluice kafka} on {@code dataDir} and {@code port} expecting it to fail: returns its exit code
     * and output; fails if it is still running after {@code timeout}.
     */
    public static Exit startFailing(Path dataDir, int port, Duration timeout) throws Exception {
        Path log = logFile(dataDir);
        int code = ChildJvm.run(HEAP, JVM_OPTIONS, args(dataDir, port, TEST_SETTINGS), log, timeout);
        return new Exit(code, Files.readString(log));
    }

    /** How a command ended: its exit code and everything it printed. */
    public record Exit(int code, String output) {}

    /** The command line of {@code sluice kafka} on {@code dataDir} and {@code port}, after {@code Main}. */
    public static List<String> args(Path dataDir, int port, Map<String, String> settings) {
        List<String> args = new ArrayList<>(List.of("kafka", "--data", dataDir.toString(),
                "--listen", "127.0.0.1:" + port));
        settings.forEach((k, v) -> args.addAll(List.of("--setting", k + "=" + v)));
        return args;
    }

    public static Path logFile(Path dataDir) {
        return dataDir.resolveSibling(dataDir.getFileName() + "-kafka-" + System.nanoTime() + ".log");
    }

    /** The clients' {@code bootstrap.servers}. */
    public String bootstrap() {
        return "127.0.0.1:" + port;
    }

    public Path log() {
        return jvm.log;
    }

    public boolean isAlive() {
        return jvm.process.isAlive();
    }

    /** SIGTERM, then wait for exit; returns the exit code (143: the JVM's status after a SIGTERM). */
    public int terminate(Duration wait) throws Exception {
        return jvm.terminate(wait);
    }

    /** kill -9. */
    public void kill() throws InterruptedException {
        jvm.kill();
    }

    /** Started again on the same data directory and port (after {@link #terminate} or {@link #kill}). */
    public KafkaProcess restart() throws IOException {
        if (isAlive()) {
            throw new IllegalStateException("still running: stop or kill it first");
        }
        return start(dataDir, port, settings);
    }

    @Override
    public void close() {
        jvm.close();
    }
}
