package io.sluice.support;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code sluice serve} as a real child process (same JDK and classpath as the tests), for SIGTERM and kill -9
 * tests. Its output goes to {@code dataDir/../serve-N.log}; {@link #start} returns once it prints "sluice ready".
 * With {@code --neo4j URI} among the extra arguments it writes to that Neo4j and opens no Bolt port of its own.
 */
public final class SluiceProcess implements AutoCloseable {
    public final Process process;
    public final int httpPort;
    public final Path log;
    private final ChildJvm jvm;
    private final Path config;
    private final Path dataDir;
    private final String[] extra;

    private SluiceProcess(ChildJvm jvm, int httpPort, Path config, Path dataDir, String[] extra) {
        this.jvm = jvm;
        this.process = jvm.process;
        this.httpPort = httpPort;
        this.log = jvm.log;
        this.config = config;
        this.dataDir = dataDir;
        this.extra = extra.clone();
    }

    public static SluiceProcess start(Path config, Path dataDir, int httpPort, String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("serve", "--config", config.toString(), "--data", dataDir.toString(),
                "--http", "127.0.0.1:" + httpPort));
        if (!List.of(extra).contains("--neo4j")) {
            args.addAll(List.of("--bolt", "127.0.0.1:" + TestServer.freePort()));
        }
        if (!List.of(extra).contains("--warmup-write-path")) {
            args.addAll(List.of("--warmup-write-path", "0s")); // see TestServer#withoutRehearsal
        }
        args.addAll(List.of(extra));
        Path log = dataDir.resolveSibling(dataDir.getFileName() + "-serve-" + System.nanoTime() + ".log");
        // authentication on, as a user would run it, with the tests' known initial password
        return new SluiceProcess(ChildJvm.start("1g", args, "sluice ready", log,
                java.util.Map.of("NEO4J_AUTH", "neo4j/" + TestServer.PASSWORD)), httpPort, config, dataDir, extra);
    }

    /**
     * Started again with the same config, data directory, HTTP port and arguments (after {@link #kill} or
     * {@link #terminate}); its output goes to a new log file.
     */
    public SluiceProcess restart() throws IOException {
        if (process.isAlive()) {
            throw new IllegalStateException("still running: stop or kill it first");
        }
        return start(config, dataDir, httpPort, extra);
    }

    /** The {@code Authorization} header its clients send. */
    public static final String AUTH = TestServer.AUTH;

    public String url(String path) {
        return "http://127.0.0.1:" + httpPort + path;
    }

    /** SIGTERM, then wait for exit; returns the exit code. */
    public int terminate(Duration wait) throws Exception {
        return jvm.terminate(wait);
    }

    /**
     * SIGSTOP: the process stays, frozen (its connections open, its threads mid-work), as a machine that stalls
     * or a JVM in a long pause; {@link #resume} lets it go on. A kill -9 or {@link #close} ends it stopped or not.
     */
    public void suspend() throws IOException, InterruptedException {
        jvm.signal("STOP");
    }

    /** SIGCONT, after {@link #suspend}. */
    public void resume() throws IOException, InterruptedException {
        jvm.signal("CONT");
    }

    /** kill -9. */
    public void kill() throws InterruptedException {
        jvm.kill();
    }

    @Override
    public void close() {
        jvm.close();
    }
}
