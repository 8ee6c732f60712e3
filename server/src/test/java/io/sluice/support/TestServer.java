package io.sluice.support;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.security.InitialAuth;
import io.sluice.server.SluiceServer;
import io.sluice.sink.BoltSink;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.StatementResult;
import io.sluice.config.HostPort;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * An in-process sluice on ephemeral ports over a temporary data directory (embedded Neo4j, or a Neo4j over Bolt),
 * plus a tiny HTTP client.
 */
public final class TestServer implements AutoCloseable {
    /** The initial password of user {@code neo4j} in every test server, and the header that carries it. */
    public static final String PASSWORD = "test-password-1";
    public static final String AUTH = "Basic " + java.util.Base64.getEncoder().encodeToString(
            ("neo4j:" + PASSWORD).getBytes(java.nio.charset.StandardCharsets.UTF_8));

    /** An {@code Authorization: Basic} value for {@code user} and {@code password}. */
    public static String basic(String user, String password) {
        return "Basic " + java.util.Base64.getEncoder().encodeToString(
                (user + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    public final SluiceServer server;
    public final Path dataDir;
    public final HostPort bolt;
    /** Longer than any wait a test asks of the server (the longest is {@code applied?wait=60s}). */
    public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(90);
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private TestServer(SluiceServer server, Path dataDir, HostPort bolt) {
        this.server = server;
        this.dataDir = dataDir;
        this.bolt = bolt;
    }

    /** Starts with the given YAML config; pagecache kept small for tests unless the YAML sets it. */
    public static TestServer start(String yaml, boolean withBolt) {
        try {
            SluiceConfig c = withoutRehearsal(yaml, ConfigLoader.parse(yaml.contains("pagecache") ? yaml
                    : yaml + "\nneo4j: {pagecache: 64m}\n"));
            Path dir = Files.createTempDirectory("sluice-test-");
            HostPort bolt = withBolt ? new HostPort("127.0.0.1", freePort()) : null;
            return new TestServer(SluiceServer.start(new SluiceServer.Options(c, dir, new HostPort("127.0.0.1", 0), bolt)
                    .withInitialAuth(new InitialAuth.Given(PASSWORD, false))), dir, bolt);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts over a Neo4j reached through Bolt at {@code uri} (a {@link Neo4jProcess}) instead of embedded Neo4j;
     * {@link #bolt} is then that Neo4j's address, and {@code server.neo4j()} is null.
     */
    public static TestServer startRemote(String yaml, String uri) {
        return startRemote(yaml, uri, null, null);
    }

    /** The same, logging in to that Neo4j as {@code user} with {@code password} (null: no authentication). */
    public static TestServer startRemote(String yaml, String uri, String user, String password) {
        try {
            SluiceConfig c = withoutRehearsal(yaml, ConfigLoader.parse(yaml));
            Path dir = Files.createTempDirectory("sluice-test-");
            URI u = URI.create(uri);
            return new TestServer(SluiceServer.start(SluiceServer.Options.remote(c, dir, new HostPort("127.0.0.1", 0),
                    new BoltSink.Options(uri, user, password, c.neo4j().database()))
                    .withInitialAuth(new InitialAuth.Given(PASSWORD, false))), dir, new HostPort(u.getHost(), u.getPort()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts over a Neo4j reached through Bolt at {@code uri} as {@code user}, with sluice's own Bolt listener:
     * {@link #bolt} is then sluice's.
     */
    public static TestServer startRemoteWithBolt(String yaml, String uri, String user, String password) {
        try {
            SluiceConfig c = withoutRehearsal(yaml, ConfigLoader.parse(yaml));
            Path dir = Files.createTempDirectory("sluice-test-");
            HostPort bolt = new HostPort("127.0.0.1", freePort());
            return new TestServer(SluiceServer.start(SluiceServer.Options.remote(c, dir, new HostPort("127.0.0.1", 0),
                    bolt, new BoltSink.Options(uri, user, password, c.neo4j().database()))
                    .withInitialAuth(new InitialAuth.Given(PASSWORD, false))), dir, bolt);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Tests start without the write path's rehearsal (it would add up to its time limit of CPU beside every
     * test's start) unless their YAML asks for it ({@code write_path}).
     */
    private static SluiceConfig withoutRehearsal(String yaml, SluiceConfig c) {
        return yaml.contains("write_path") ? c : c.with(c.warmup().withoutRehearsal());
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    public String url(String path) {
        return server.baseUrl() + path;
    }

    public HttpResponse<String> post(String path, String body) {
        return send(HttpRequest.newBuilder(URI.create(url(path))).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").build());
    }

    public HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(url(path))).GET().build());
    }

    /** Sends {@code r} with the test user's credentials unless it carries its own {@code Authorization}. */
    public HttpResponse<String> send(HttpRequest r) {
        return sendRaw(r.headers().firstValue("Authorization").isPresent() ? r
                : HttpRequest.newBuilder(r, (name, value) -> true).header("Authorization", AUTH).build());
    }

    /**
     * Sends {@code r} as it is (no credentials added); one without a timeout of its own gets
     * {@link #REQUEST_TIMEOUT}, so no client hangs forever.
     */
    public HttpResponse<String> sendRaw(HttpRequest r) {
        HttpRequest bounded = r.timeout().isPresent() ? r
                : HttpRequest.newBuilder(r, (name, value) -> true).timeout(REQUEST_TIMEOUT).build();
        try {
            return http.send(bounded, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** {@code GET /health}, parsed. */
    public com.fasterxml.jackson.databind.JsonNode health() {
        try {
            return HEALTH_JSON.readTree(get("/health").body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper HEALTH_JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    /** The value of one exact series of the server's {@code /metrics} (labels included), 0 when absent. */
    public double metric(String series) {
        for (String line : server.metrics().scrape().split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        return 0;
    }

    /** A count from Cypher run directly on the database (not through sluice's HTTP API). */
    public long count(String cypher) {
        return count(cypher, Map.of());
    }

    /**
     * A count from Cypher run directly on the database: the embedded one, or, over Bolt, through the server's
     * sink (a read transaction of its own, not sluice's write path).
     */
    public long count(String cypher, Map<String, Object> params) {
        if (server.neo4j() != null) {
            return server.neo4j().database().executeTransactionally(cypher, params,
                    r -> ((Number) r.next().values().iterator().next()).longValue());
        }
        try {
            StatementResult r = server.sink().inReadTransaction(tx -> tx.run(cypher, params));
            return ((Number) r.rows().getFirst().getFirst()).longValue();
        } catch (GraphException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } finally {
            deleteRecursively(dataDir);
        }
    }

    public static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
