package io.sluice.support;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code sluice neo4j}, a plain Neo4j server as a real child process: with Bolt only, the remote database of the
 * Bolt-sink tests, which can be killed (-9) and started again on the same data directory and port; or, started
 * with {@link #startHttp}, Neo4j's own Community server with its HTTP API too (the reference of the differential
 * tests). Its output goes to {@code dataDir/../neo4j-N.log}.
 */
public final class Neo4jProcess implements AutoCloseable {
    public final Path dataDir;
    /** The Bolt port. */
    public final int port;
    /** The HTTP port of a server started with {@link #startHttp}, else -1. */
    public final int httpPort;
    private final ChildJvm jvm;
    /** {@code NEO4J_AUTH} of a Bolt-only server, for {@link #restart}; null for one with HTTP. */
    private final String neo4jAuth;

    private Neo4jProcess(ChildJvm jvm, Path dataDir, int port, int httpPort, String neo4jAuth) {
        this.jvm = jvm;
        this.dataDir = dataDir;
        this.port = port;
        this.httpPort = httpPort;
        this.neo4jAuth = neo4jAuth;
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
        return new Neo4jProcess(ChildJvm.start("768m", List.of("neo4j", "--data", dataDir.toString(),
                "--bolt", "127.0.0.1:" + port, "--pagecache", "64m"), "neo4j ready", logFile(dataDir),
                Map.of("NEO4J_AUTH", neo4jAuth)), dataDir, port, -1, neo4jAuth);
    }

    /**
     * Neo4j's Community server ({@code sluice neo4j --http}) on free HTTP and Bolt ports, with {@code NEO4J_AUTH}
     * {@code neo4jAuth} and {@code settings} as extra {@code neo4j.conf} lines.
     */
    public static Neo4jProcess startHttp(Path dataDir, String neo4jAuth, Map<String, String> settings)
            throws IOException {
        int bolt = TestServer.freePort();
        int http = TestServer.freePort();
        List<String> args = new ArrayList<>(List.of("neo4j", "--data", dataDir.toString(),
                "--bolt", "127.0.0.1:" + bolt, "--http", "127.0.0.1:" + http, "--pagecache", "64m"));
        settings.forEach((k, v) -> args.addAll(List.of("--setting", k + "=" + v)));
        // the reference answers a few requests: the quick compiler alone starts it in about half the time here
        return new Neo4jProcess(ChildJvm.start("768m", List.of("-XX:TieredStopAtLevel=1"), args, "neo4j ready",
                logFile(dataDir), Map.of("NEO4J_AUTH", neo4jAuth)), dataDir, bolt, http, null);
    }

    private static Path logFile(Path dataDir) {
        return dataDir.resolveSibling(dataDir.getFileName() + "-neo4j-" + System.nanoTime() + ".log");
    }

    /** The base URL of the HTTP API ({@link #startHttp} only). */
    public String httpUrl() {
        if (httpPort < 0) {
            throw new IllegalStateException("started without HTTP");
        }
        return "http://127.0.0.1:" + httpPort;
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

    /**
     * A Bolt-only server started again on the same data directory, port and {@code NEO4J_AUTH} (after
     * {@link #terminate} or {@link #kill}); its output goes to a new log file.
     */
    public Neo4jProcess restart() throws IOException {
        if (isAlive()) {
            throw new IllegalStateException("still running: stop or kill it first");
        }
        if (neo4jAuth == null) {
            throw new IllegalStateException("restart is for a server started with Bolt only");
        }
        return start(dataDir, port, neo4jAuth);
    }

    @Override
    public void close() {
        jvm.close();
    }
}
