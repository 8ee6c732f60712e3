package io.sluice.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code sluice bench --kafka start}: a single-node Kafka ({@code sluice kafka}) in a process of its own, on a
 * free loopback port and a temporary data directory under the bench's work directory, for the length of the
 * bench run. A process of its own so that the bench's process CPU stays the server's (the broker's is not in
 * the server's CPU per write; the report says where the journal was).
 *
 * <p>Owns the child, one named thread copying its output to the progress stream, and a shutdown hook that kills
 * the child if the bench ends abruptly; {@link #close} sends SIGTERM, waits a bounded time, kills it if need be,
 * and deletes the data directory.
 */
final class BenchBroker implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final Process process;
    private final Path data;
    private final String bootstrap;
    private final Thread reader;
    /** Stops the broker if the bench's JVM ends without {@link #close} (Ctrl-C, SIGTERM): no broker left behind. */
    private final Thread hook;

    private BenchBroker(Process process, Path data, String bootstrap, Thread reader) {
        this.process = process;
        this.data = data;
        this.bootstrap = bootstrap;
        this.reader = reader;
        this.hook = new Thread(process::destroyForcibly, "sluice-bench-kafka-stop");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Starts the broker (this JVM's java and class path, 256 MB of heap) and waits until it says it is ready. */
    static BenchBroker start(Path workDir, PrintStream progress) throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path data = Files.createTempDirectory(workDir, "sluice-bench-kafka-");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String bootstrap = "127.0.0.1:" + port;
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms256m", "-Xmx256m", "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED"));
        if (Runtime.version().feature() >= 23) {
            cmd.add("--sun-misc-unsafe-memory-access=allow");
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.sluice.tools.ToolsMain", "kafka",
                "--data", data.toString(), "--listen", bootstrap));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        CompletableFuture<Boolean> ready = new CompletableFuture<>();
        Thread reader = Thread.ofPlatform().name("sluice-bench-kafka-output").daemon(true).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    if (line.startsWith("kafka ready")) {
                        ready.complete(true);
                        progress.println("bench: " + line);
                    } else if (!ready.isDone()) {
                        progress.println("kafka: " + line);
                    }
                }
            } catch (IOException e) {
                // the child is gone
            } finally {
                ready.complete(false);
            }
        });
        BenchBroker broker = new BenchBroker(p, data, bootstrap, reader);
        try {
            if (!ready.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IOException("the bench's Kafka broker ended before it was ready (exit "
                        + (p.waitFor(5, TimeUnit.SECONDS) ? p.exitValue() : "none yet") + ")");
            }
            return broker;
        } catch (ExecutionException | TimeoutException e) {
            broker.close();
            throw new IOException("the bench's Kafka broker was not ready within " + START_TIMEOUT, e);
        } catch (IOException | InterruptedException | RuntimeException e) {
            broker.close();
            throw e;
        }
    }

    /** The clients' {@code bootstrap.servers}. */
    String bootstrap() {
        return bootstrap;
    }

    /** The broker's process, for its CPU time. */
    ProcessHandle handle() {
        return process.toHandle();
    }

    /** SIGTERM, up to 30 s for a clean stop, then kill -9; then the data directory is deleted. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook stops the broker
        }
        ChildProcess.stop(process, Duration.ZERO, Duration.ofSeconds(30), List.of(reader));
        BenchServers.deleteTree(data);
    }
}
