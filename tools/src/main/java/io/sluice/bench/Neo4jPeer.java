package io.sluice.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.HostPort;
import io.sluice.config.SluiceConfig;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.sink.Neo4jServer;
import io.sluice.time.Time;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The peer of {@link BenchMode#NEO4J}: Neo4j's own Community server ({@link Neo4jServer}, what
 * {@code sluice neo4j --http} runs), in a JVM of its own ({@link BenchPeer#PROCESS}, {@link PeerProcess}: the
 * default, as a user deploys it) or in the bench's JVM ({@link BenchPeer#IN_JVM}), on a temporary home, HTTP on an
 * ephemeral loopback port, Bolt too (where the Bolt apis go, {@link BenchApi#bolt}), with what the sluice
 * servers of the run get: the config's page cache, transaction memory limit and database name, the run's
 * authentication setting (the bench's password, {@link Bench#PASSWORD}), and the scenario's schema, applied
 * through its Query API before the load, then {@code CALL db.awaitIndexes(300)} as sluice does. Before that, a
 * {@code RETURN 1} through each of its two APIs, which Neo4j sets up on their first request
 * ({@link #classicQuery}). Its {@code /metrics} do not exist: what is measured of it is the client's view, its
 * CPU and GC ({@link #reading}), and what the rows left in the database, counted through the Query API
 * ({@link #count}). Owns the server; {@link #close} stops it (the caller deletes the home). Neo4j's own log goes
 * to stderr with the bench's progress ({@link #USER_LOGS}), not to stdout, where the report goes (Neo4j's daemon
 * mode would send it to a file, but by pointing the JVM's {@code System.out} and {@code System.err} at that file,
 * the bench's output with it); in a child, its stderr is copied to the progress stream.
 */
final class Neo4jPeer implements AutoCloseable {
    /** {@link ModeResult#sink} of its results: in a JVM of its own, and in the bench's. */
    static final String SINK = "neo4j-server";
    static final String SINK_IN_JVM = "neo4j-server-in-jvm";
    private static final Duration SCHEMA_TIMEOUT = Duration.ofMinutes(6);
    private static final Duration COUNT_TIMEOUT = Duration.ofMinutes(2);
    /** Neo4j's user log ({@code server.logs.user.config}): its default, with the console on stderr, no file. */
    static final String USER_LOGS = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Configuration>
                <Appenders>
                    <Console name="ConsoleAppender" target="SYSTEM_ERR">
                        <PatternLayout pattern="%d{yyyy-MM-dd HH:mm:ss.SSSZ}{GMT+0} %-5p %m%n"/>
                    </Console>
                </Appenders>
                <Loggers>
                    <Root level="info">
                        <AppenderRef ref="ConsoleAppender"/>
                    </Root>
                </Loggers>
            </Configuration>
            """;

    /** Stops the server: a {@link Neo4jServer} in this JVM, or the {@link PeerProcess}. */
    private final Runnable stop;
    /** The child running it, or null in this JVM. */
    private final PeerProcess process;
    private final String database;
    private final String baseUrl;
    private final String boltUri;
    private final String authorization;
    private final HttpClient http;
    private final ObjectMapper json = new ObjectMapper();

    private Neo4jPeer(Runnable stop, PeerProcess process, HostPort address, HostPort bolt, String database,
            String authorization) {
        this.stop = stop;
        this.process = process;
        this.database = database;
        this.baseUrl = "http://" + address;
        this.boltUri = "bolt://" + bolt;
        this.authorization = authorization;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    }

    /**
     * Starts the server in {@code home}, where {@code kind} says, as {@code config}'s sluice would run its embedded
     * Neo4j, with authentication on or off, and applies {@code schema}; throws if it does not start or a statement
     * fails. A child's output goes to {@code progress}.
     */
    static Neo4jPeer start(BenchPeer kind, Path home, SluiceConfig config, boolean auth, List<String> schema,
            Time time, PrintStream progress) throws InterruptedException {
        return kind == BenchPeer.PROCESS
                ? startProcess(home, config, auth, schema, Map.of(), PeerProcess.START_TIMEOUT, time, progress)
                : startInJvm(home, config, auth, schema, time);
    }

    /**
     * {@link #start} in a child JVM, {@code extra} settings after the bench's, the start bounded by
     * {@code timeout}.
     */
    static Neo4jPeer startProcess(Path home, SluiceConfig config, boolean auth, List<String> schema,
            Map<String, String> extra, Duration timeout, Time time, PrintStream progress) throws InterruptedException {
        Map<String, String> settings = settings(home, config);
        settings.putAll(extra);
        PeerProcess child = PeerProcess.start(home, config.neo4j().pagecache().bytes(), settings,
                auth ? "neo4j/" + Bench.PASSWORD : "none", timeout, progress, time);
        return prepared(new Neo4jPeer(child::close, child, child.httpAddress(), child.boltAddress(),
                config.neo4j().database(), auth ? Bench.AUTHORIZATION : null), schema);
    }

    private static Neo4jPeer startInJvm(Path home, SluiceConfig config, boolean auth, List<String> schema, Time time)
            throws InterruptedException {
        Neo4jServer server = Neo4jServer.start(new Neo4jServer.Options(home, new HostPort("127.0.0.1", 0),
                new HostPort("127.0.0.1", 0), config.neo4j().pagecache().bytes(), auth ? new EmbeddedNeo4j.Security(
                        true, Bench.PASSWORD, false, null) : EmbeddedNeo4j.Security.OFF, settings(home, config)), time);
        return prepared(new Neo4jPeer(server::close, null, server.httpAddress(), server.boltAddress(),
                config.neo4j().database(), auth ? Bench.AUTHORIZATION : null), schema);
    }

    /** The {@code neo4j.conf} lines of the bench's: its user log on stderr, the config's database and limits. */
    private static Map<String, String> settings(Path home, SluiceConfig config) {
        var n = config.neo4j();
        Map<String, String> settings = new LinkedHashMap<>();
        Path userLogs = home.toAbsolutePath().resolve("conf").resolve("user-logs.xml");
        try {
            Files.createDirectories(userLogs.getParent());
            Files.writeString(userLogs, USER_LOGS);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + userLogs, e);
        }
        settings.put("server.logs.user.config", userLogs.toString());
        settings.put("initial.dbms.default_database", n.database());
        if (n.txMemoryMax().bytes() > 0) {
            settings.put("db.memory.transaction.max", Long.toString(n.txMemoryMax().bytes()));
        }
        settings.putAll(n.settings()); // the same Neo4j settings as sluice's embedded one
        return settings;
    }

    /** {@code peer} with both APIs set up and {@code schema} applied; closed if that fails. */
    private static Neo4jPeer prepared(Neo4jPeer peer, List<String> schema) throws InterruptedException {
        try {
            peer.query("RETURN 1", SCHEMA_TIMEOUT);
            peer.classicQuery("RETURN 1");
            for (String statement : schema) {
                peer.query(statement, SCHEMA_TIMEOUT);
            }
            if (!schema.isEmpty()) {
                peer.query("CALL db.awaitIndexes(300)", SCHEMA_TIMEOUT);
            }
        } catch (IOException | RuntimeException e) {
            peer.close();
            throw new IllegalStateException("cannot apply the scenario's schema to the Neo4j server: " + e, e);
        } catch (InterruptedException e) {
            peer.close();
            throw e;
        }
        return peer;
    }

    /** {@link ModeResult#sink} of what it measures: {@link #SINK} in a child, {@link #SINK_IN_JVM} in this JVM. */
    String sink() {
        return process != null ? SINK : SINK_IN_JVM;
    }

    /** The child running the server, or null when it runs in this JVM. */
    ProcessHandle process() {
        return process != null ? process.handle() : null;
    }

    /**
     * Where {@code api}'s requests go: Neo4j's Query API or classic {@code tx/commit}, no query string; its Bolt
     * connector ({@code bolt://host:port}) for the Bolt apis.
     */
    String uri(BenchApi api) {
        if (api == BenchApi.TEMPLATE) {
            throw new IllegalArgumentException("Neo4j has no template endpoint");
        }
        return api.bolt() ? boltUri : baseUrl + "/db/" + database + api.path("");
    }

    /** Runs {@code cypher}, which returns one number, through the Query API, and returns it. */
    long count(String cypher) throws IOException, InterruptedException {
        JsonNode value = query(cypher, COUNT_TIMEOUT).path("data").path("values").path(0).path(0);
        if (!value.canConvertToLong()) {
            throw new IOException("the count came back as " + value);
        }
        return value.asLong();
    }

    /**
     * One statement through the classic API, to have Neo4j set it up: each of its HTTP APIs is a web application
     * made on its first request, which took seconds here (under load, up to 8 s for the classic one): a cost of
     * starting the server, not of the writes, so it is paid before the load, as the Query API's is by the first
     * {@code RETURN 1}.
     */
    private void classicQuery(String statement) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(Bench.authorized(HttpRequest.newBuilder(URI.create(uri(
                BenchApi.TX_COMMIT))), authorization).timeout(SCHEMA_TIMEOUT).header("Content-Type",
                "application/json").POST(HttpRequest.BodyPublishers.ofString(json.writeValueAsString(Map.of(
                        "statements", List.of(Map.of("statement", statement)))))).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200 || Answers.reportErrors(r.body().getBytes(StandardCharsets.UTF_8))) {
            throw new IOException(statement + ": " + r.statusCode() + " " + r.body());
        }
    }

    /** One statement through the Query API; an answer other than 2xx without errors is an {@link IOException}. */
    private JsonNode query(String statement, Duration timeout) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(Bench.authorized(HttpRequest.newBuilder(URI.create(uri(
                BenchApi.QUERY_V2))), authorization).timeout(timeout).header("Content-Type", "application/json")
                .header("Accept", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        json.writeValueAsString(Map.of("statement", statement)))).build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode body = json.readTree(r.body());
        if (r.statusCode() / 100 != 2 || !body.path("errors").isEmpty()) {
            throw new IOException(statement + ": " + r.statusCode() + " " + r.body());
        }
        return body;
    }

    /**
     * What can be read of the server without sluice's {@code /metrics}, at one instant, with {@code load}'s CPU
     * time (the load generator's process; null: none). In a child: the child's CPU time from the OS, its GC
     * pauses from its GC log and its JIT time from its perf data ({@link PeerProcess}). In this JVM: this
     * process's CPU time and this JVM's JIT time ({@link ServerStats#withProcess}), and its GC pause time from the
     * collectors' beans (their collection time, less the collectors that count concurrent cycles rather than
     * pauses), so that the {@code gc s} column compares with the sluice servers'.
     */
    ServerStats reading(ProcessHandle load) {
        if (process != null) {
            return ServerStats.ofProcess(process.handle(), load, process.gcPauseSeconds(), process.jitSeconds());
        }
        double gcMillis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            String name = gc.getName();
            boolean concurrent = name.contains("Concurrent") || name.contains("Cycles");
            if (!concurrent && gc.getCollectionTime() > 0) {
                gcMillis += gc.getCollectionTime();
            }
        }
        return new ServerStats(0, 0, 0, gcMillis / 1e3, 0, 0, 0, 0, 0).withProcess(load);
    }

    /**
     * Stops the server (Neo4j waits for open transactions: none are left by one-request writes); a child with
     * SIGTERM, bounded ({@link PeerProcess#close}).
     */
    @Override
    public void close() {
        try {
            stop.run();
        } finally {
            http.close();
        }
    }
}
