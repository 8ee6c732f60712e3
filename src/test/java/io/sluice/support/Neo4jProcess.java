package io.sluice.support;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * {@code sluice neo4j}, a plain Neo4j server with Bolt only, as a real child process: the remote database of the
 * Bolt-sink tests, which can be killed (-9) and started again on the same data directory and port. Its output
 * goes to {@code dataDir/../neo4j-N.log}.
 */
public final class Neo4jProcess implements AutoCloseable {
    public final Path dataDir;
    public final int port;
    private final ChildJvm jvm;

    private Neo4jProcess(ChildJvm jvm, Path dataDir, int port) {
        this.jvm = jvm;
        this.dataDir = dataDir;
        this.port = port;
    }

    /** Starts on a free port. */
    public static Neo4jProcess start(Path dataDir) throws IOException {
        return start(dataDir, TestServer.freePort());
    }

    /**
     * Starts on {@code port}, e.g. again on the port of a killed one; authentication off (a plain server for
     * 'serve --neo4j' tests, on loopback: sluice's own account needs no password).
     */
    public static Neo4jProcess start(Path dataDir, int port) throws IOException {
        return start(dataDir, port, "none");
    }

    /** Starts with {@code NEO4J_AUTH} set to {@code neo4jAuth} ({@code none}, or {@code neo4j/<password>}). */
    public static Neo4jProcess start(Path dataDir, int port, String neo4jAuth) throws IOException {
        Path log = dataDir.resolveSibling(dataDir.getFileName() + "-neo4j-" + System.nanoTime() + ".log");
        return new Neo4jProcess(ChildJvm.start("768m", List.of("neo4j", "--data", dataDir.toString(),
                "--bolt", "127.0.0.1:" + port, "--pagecache", "64m"), "neo4j ready", log,
                java.util.Map.of("NEO4J_AUTH", neo4jAuth)), dataDir, port);
    }

    public String uri() {
        return "bolt://127.0.0.1:" + port;
    }

    public Path log() {
        return jvm.log;
    }

    public boolean isAlive() {
        return jvm.process.isAlive();
    }

    /** SIGTERM, then wait for exit; returns the exit code. */
    public int terminate(Duration wait) throws Exception {
        return jvm.terminate(wait);
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
