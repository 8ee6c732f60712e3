package io.sluice.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Kafka Connect worker (standalone, from Kafka's own {@code connect-runtime} jars on Maven Central) running
 * Debezium's PostgreSQL connector (its plugin tarball from Maven Central) in a JVM of its own, which a test can kill
 * -9 and start again on the same offsets file (Debezium then sends again what followed its last flushed offset).
 * Nothing fetched is committed: {@link #install} resolves the jars into {@code target/connect} with Maven, once.
 * Connect 4.3.0, not the 4.4.0 of the tools' broker: Debezium 3.6.1 does not run on 4.4's runtime
 * (docs/reference/debezium-postgres.md, section 4).
 */
public final class ConnectWorker implements AutoCloseable {
    public static final String CONNECT = "4.3.0";
    public static final String DEBEZIUM = "3.6.1.Final";
    static final Path HOME = Path.of("target", "connect").toAbsolutePath();
    static final long INSTALL_SECONDS = 600;

    private final Path dir;
    private final int restPort;
    private final List<String> command;
    private final String connector;
    private Process process;

    private ConnectWorker(Path dir, int restPort, List<String> command, String connector) {
        this.dir = dir;
        this.restPort = restPort;
        this.command = command;
        this.connector = connector;
    }

    /** Whether Maven is here to resolve the jars (a test skips, saying so, when not). */
    public static boolean installable() {
        try {
            Process p = new ProcessBuilder("mvn", "--version").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Resolves Connect's runtime and the connector's plugin into target/connect unless they are there. */
    public static synchronized void install() throws Exception {
        Path lib = HOME.resolve("lib");
        Path plugins = HOME.resolve("plugins");
        if (!Files.isRegularFile(HOME.resolve("installed-" + CONNECT + "-" + DEBEZIUM))) {
            TestServer.deleteRecursively(HOME);
            Files.createDirectories(plugins);
            Files.writeString(HOME.resolve("pom.xml"), """
                    <project xmlns="http://maven.apache.org/POM/4.0.0">
                      <modelVersion>4.0.0</modelVersion>
                      <groupId>io.sluice.test</groupId><artifactId>connect-worker</artifactId><version>1</version>
                      <packaging>pom</packaging>
                      <dependencies>
                        <dependency><groupId>org.apache.kafka</groupId><artifactId>connect-runtime</artifactId><version>%s</version></dependency>
                        <dependency><groupId>org.apache.kafka</groupId><artifactId>connect-json</artifactId><version>%s</version></dependency>
                        <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-simple</artifactId><version>2.0.17</version></dependency>
                      </dependencies>
                    </project>
                    """.formatted(CONNECT, CONNECT));
            run(List.of("mvn", "-B", "-q", "-f", HOME.resolve("pom.xml").toString(),
                    "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies",
                    "-DoutputDirectory=" + lib, "-DexcludeArtifactIds=slf4j-reload4j,reload4j,log4j-slf4j2-impl"));
            run(List.of("mvn", "-B", "-q", "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy",
                    "-Dartifact=io.debezium:debezium-connector-postgres:" + DEBEZIUM + ":tar.gz:plugin",
                    "-DoutputDirectory=" + HOME));
            Path tarball = HOME.resolve("debezium-connector-postgres-" + DEBEZIUM + "-plugin.tar.gz");
            run(List.of("tar", "-xzf", tarball.toString(), "-C", plugins.toString()));
            Files.writeString(HOME.resolve("installed-" + CONNECT + "-" + DEBEZIUM), "");
        }
    }

    private static void run(List<String> command) throws Exception {
        Path log = HOME.resolve("install.log");
        Process p = new ProcessBuilder(command).directory(HOME.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        boolean finished = p.waitFor(INSTALL_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (!finished || p.exitValue() != 0) {
            throw new IllegalStateException(command + " failed: " + Files.readString(log));
        }
    }

    /**
     * Starts a standalone worker in {@code dir} (its offsets file, configuration and log there) on
     * {@code bootstrap}, running the connector {@code connector} (its properties; {@code name} among them), and
     * waits until its task runs. {@code flushMillis}: how often the worker commits source offsets (what a kill
     * -9 then makes it send again).
     */
    public static ConnectWorker start(Path dir, String bootstrap, Map<String, String> connector, long flushMillis)
            throws Exception {
        install();
        Files.createDirectories(dir);
        int rest = TestServer.freePort();
        Map<String, String> worker = new LinkedHashMap<>();
        worker.put("bootstrap.servers", bootstrap);
        worker.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        worker.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        worker.put("key.converter.schemas.enable", "true");
        worker.put("value.converter.schemas.enable", "true");
        worker.put("key.converter.replace.null.with.default", "false");
        worker.put("value.converter.replace.null.with.default", "false");
        worker.put("offset.storage.file.filename", dir.resolve("offsets.dat").toString());
        worker.put("offset.flush.interval.ms", Long.toString(flushMillis));
        worker.put("plugin.path", HOME.resolve("plugins").toString());
        worker.put("listeners", "http://127.0.0.1:" + rest);
        Path workerFile = write(dir.resolve("worker.properties"), worker);
        Path connectorFile = write(dir.resolve("connector.properties"), connector);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", HOME.resolve("lib") + "/*", "org.apache.kafka.connect.cli.ConnectStandalone",
                workerFile.toString(), connectorFile.toString()));
        ConnectWorker w = new ConnectWorker(dir, rest, command, connector.get("name"));
        w.launch();
        return w;
    }

    private static Path write(Path file, Map<String, String> props) throws IOException {
        StringBuilder b = new StringBuilder();
        props.forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
        return Files.writeString(file, b.toString());
    }

    private void launch() throws Exception {
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("worker.log").toFile())).start();
        Await.until("the connector's task runs (" + dir.resolve("worker.log") + ")", Duration.ofSeconds(180),
                Duration.ofMillis(500), () -> {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("the Connect worker exited " + process.exitValue() + ": "
                                + tail());
                    }
                    JsonNode s = status();
                    if (s != null && "FAILED".equals(s.path("tasks").path(0).path("state").asText())) {
                        throw new IllegalStateException("the connector's task failed: "
                                + s.path("tasks").path(0).path("trace").asText());
                    }
                    return s != null && "RUNNING".equals(s.path("tasks").path(0).path("state").asText());
                });
    }

    /** The connector's status from the worker's REST API, or null while it does not answer. */
    public JsonNode status() {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort
                    + "/connectors/" + connector + "/status")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? new ObjectMapper().readTree(r.body()) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** kill -9: what the worker sent after its last offset flush is sent again when it starts. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Starts it again, on the same offsets, and waits until the task runs. */
    public void restart() throws Exception {
        if (process.isAlive()) {
            kill();
        }
        launch();
    }

    private String tail() {
        try {
            String s = Files.readString(dir.resolve("worker.log"));
            return s.length() > 8000 ? s.substring(s.length() - 8000) : s;
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Override
    public void close() {
        if (process != null) {
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
