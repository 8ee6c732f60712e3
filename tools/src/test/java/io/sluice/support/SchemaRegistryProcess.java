package io.sluice.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real Confluent-compatible schema registry in a child process, for the avro format's tests: Apicurio Registry
 * 2.1.5.Final, its Confluent API at {@value #API}, its storage an H2 database in a directory of the test's (so a
 * registry stopped and started again still knows its schemas).
 *
 * <p>Installed by the test itself, once: the Quarkus application is built from Maven Central into
 * {@code target/apicurio-registry/} (the pom in the test resources says why it is built, not downloaded) and kept
 * there between runs, like the suite's pip and npm drivers. {@link #install} says {@link CannotInstall} when
 * Maven cannot fetch what the build needs (no registry reachable): the caller skips, saying so.
 */
public final class SchemaRegistryProcess implements AutoCloseable {
    public static final String API = "/apis/ccompat/v6";
    static final Path HOME = Path.of("target", "apicurio-registry");
    static final Path RUNNER = HOME.resolve("target/apicurio-runner-1-runner.jar");
    static final long INSTALL_SECONDS = 540;
    static final Duration READY = Duration.ofSeconds(120);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final Path dataDir;
    private final int port;
    private final Path log;
    private Process process;

    /** The registry could not be installed on this machine: Maven could not fetch its artifacts. */
    public static final class CannotInstall extends Exception {
        private static final long serialVersionUID = 1L;

        CannotInstall(String message) {
            super(message);
        }
    }

    private SchemaRegistryProcess(Path dataDir, int port) {
        this.dataDir = dataDir;
        this.port = port;
        this.log = dataDir.resolveSibling(dataDir.getFileName() + "-registry.log");
    }

    /**
     * The runnable registry: built now when {@code target/apicurio-registry/} has none built from the pom the test
     * resources hold; {@link CannotInstall} when Maven could not fetch what it needs.
     */
    public static synchronized Path install() throws Exception {
        String pom = resource("pom.xml");
        String properties = resource("application.properties");
        Path pomFile = HOME.resolve("pom.xml");
        Path propertiesFile = HOME.resolve("src/main/resources/application.properties");
        if (Files.exists(RUNNER) && Files.exists(pomFile) && Files.readString(pomFile).equals(pom)
                && Files.exists(propertiesFile) && Files.readString(propertiesFile).equals(properties)) {
            return RUNNER;
        }
        TestServer.deleteRecursively(HOME);
        Files.createDirectories(propertiesFile.getParent());
        Files.writeString(pomFile, pom);
        Files.writeString(propertiesFile, properties);
        List<String> command = new ArrayList<>(List.of(maven(), "-B", "-q", "package"));
        String repo = System.getProperty("sluice.maven.repo");
        if (repo != null && !repo.isBlank() && !repo.startsWith("${")) {
            command.add("-Dmaven.repo.local=" + repo);
        }
        Path buildLog = HOME.resolve("build.log");
        ProcessBuilder pb = new ProcessBuilder(command).directory(HOME.toFile()).redirectErrorStream(true)
                .redirectOutput(buildLog.toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        boolean finished = p.waitFor(INSTALL_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String output = Files.readString(buildLog);
        if (finished && p.exitValue() == 0 && Files.exists(RUNNER)) {
            return RUNNER;
        }
        Files.deleteIfExists(RUNNER);
        if (finished && unreachable(output)) {
            throw new CannotInstall("Maven could not fetch Apicurio Registry's artifacts (" + command + " in " + HOME
                    + "): " + excerpt(output));
        }
        throw new AssertionError("building the schema registry (" + command + " in " + HOME + ") "
                + (finished ? "failed, exit " + p.exitValue() : "took over " + INSTALL_SECONDS + " s") + ":\n"
                + output);
    }

    /** Maven's words for an artifact it could not fetch. */
    private static boolean unreachable(String output) {
        return output.contains("Could not transfer") || output.contains("Could not resolve")
                || output.contains("Non-resolvable")
                || output.contains("Unknown host") || output.contains("UnknownHostException")
                || output.contains("Network is unreachable") || output.contains("Connection refused")
                || output.contains("Connect timed out") || output.contains("offline mode");
    }

    private static String maven() {
        String home = System.getProperty("sluice.maven.home");
        if (home != null && !home.isBlank() && !home.startsWith("${")) {
            Path mvn = Path.of(home, "bin", "mvn");
            if (Files.isExecutable(mvn)) {
                return mvn.toString();
            }
        }
        return "mvn";
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = SchemaRegistryProcess.class.getResourceAsStream("/apicurio-registry/" + name)) {
            if (in == null) {
                throw new IOException("test resource apicurio-registry/" + name + " is missing");
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    /** Starts the registry (installed: {@link #install}) on a free port, its database in {@code dataDir}. */
    public static SchemaRegistryProcess start(Path dataDir) throws Exception {
        SchemaRegistryProcess r = new SchemaRegistryProcess(dataDir, TestServer.freePort());
        r.launch();
        return r;
    }

    private void launch() throws Exception {
        Files.createDirectories(dataDir);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = List.of(java.toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-Dquarkus.http.host=127.0.0.1", "-Dquarkus.http.port=" + port,
                "-Dquarkus.datasource.jdbc.url=jdbc:h2:file:" + dataDir.toAbsolutePath().resolve("registry"),
                "-jar", RUNNER.toAbsolutePath().toString());
        process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + READY.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the schema registry exited " + process.exitValue() + ":\n"
                        + Files.readString(log));
            }
            try {
                if (get("/subjects").statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // starting
            }
            Thread.sleep(200);
        }
        close();
        throw new IllegalStateException("the schema registry did not answer within " + READY + ":\n"
                + Files.readString(log));
    }

    /** Its Confluent-compatible API: what {@code schema_registry.url} names. */
    public String url() {
        return "http://127.0.0.1:" + port + API;
    }

    public Path log() {
        return log;
    }

    /** Registers {@code schema} (Avro's JSON) under {@code subject}; its id, as Confluent's API answers it. */
    public int register(String subject, String schema) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url() + "/subjects/" + subject
                + "/versions")).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("schema", schema))))
                .build(), HttpResponse.BodyHandlers.ofString());
        JsonNode body = JSON.readTree(r.body());
        if (r.statusCode() != 200 || !body.path("id").isInt()) {
            throw new IllegalStateException("registering " + subject + ": HTTP " + r.statusCode() + " " + r.body());
        }
        return body.path("id").intValue();
    }

    /** {@code GET {url}{path}}. */
    public HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url() + path)).timeout(Duration.ofSeconds(10)).GET()
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Stops it (SIGTERM: its database closes cleanly), waiting for the exit. */
    public void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Started again on the same port and database, after {@link #stop}. */
    public void restart() throws Exception {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("still running: stop it first");
        }
        launch();
    }

    private static String excerpt(String output) {
        List<String> lines = output.lines().filter(l -> l.contains("ERROR")).limit(3).toList();
        String s = String.join(" | ", lines.isEmpty() ? output.lines().limit(3).toList() : lines);
        return s.length() > 600 ? s.substring(0, 600) + "..." : s;
    }

    @Override
    public void close() {
        try {
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
