package io.sluice.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code sluice serve} as a real child process (same JDK and classpath as the tests), for SIGTERM and kill -9
 * tests. Its output goes to {@code dataDir/../serve-N.log}; {@link #start} returns once it prints "sluice ready".
 */
public final class SluiceProcess implements AutoCloseable {
    public final Process process;
    public final int httpPort;
    public final Path log;
    private final CompletableFuture<Void> logClosed;

    private SluiceProcess(Process process, int httpPort, Path log, CompletableFuture<Void> logClosed) {
        this.process = process;
        this.httpPort = httpPort;
        this.log = log;
        this.logClosed = logClosed;
    }

    public static SluiceProcess start(Path config, Path dataDir, int httpPort, String... extra) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx1g", "-XX:+UseParallelGC",
                "--sun-misc-unsafe-memory-access=allow",
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
                "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), "io.sluice.cli.Main", "serve",
                "--config", config.toString(), "--data", dataDir.toString(),
                "--http", "127.0.0.1:" + httpPort, "--bolt", "127.0.0.1:" + TestServer.freePort()));
        cmd.addAll(List.of(extra));
        Path log = dataDir.resolveSibling(dataDir.getFileName() + "-serve-" + System.nanoTime() + ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        CompletableFuture<Boolean> ready = new CompletableFuture<>();
        CompletableFuture<Void> logClosed = new CompletableFuture<>();
        Thread.ofPlatform().name("sluice-process-log").daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                    var w = Files.newBufferedWriter(log)) {
                for (String line; (line = r.readLine()) != null; ) {
                    w.write(line);
                    w.newLine();
                    w.flush();
                    if (line.startsWith("sluice ready")) {
                        ready.complete(true);
                    }
                }
            } catch (IOException e) {
                // the process died; readiness below says so
            }
            ready.complete(false);
            logClosed.complete(null);
        });
        try {
            if (!ready.get(120, TimeUnit.SECONDS)) {
                throw new IOException("sluice did not start; exit " + p.waitFor() + ", log:\n" + Files.readString(log));
            }
        } catch (Exception e) {
            p.destroyForcibly();
            throw e instanceof IOException io ? io : new IOException(e);
        }
        return new SluiceProcess(p, httpPort, log, logClosed);
    }

    public String url(String path) {
        return "http://127.0.0.1:" + httpPort + path;
    }

    /** SIGTERM (sent with kill(1): Process.destroy() did not run the JVM's shutdown hooks from the surefire fork), then wait for exit. */
    public int terminate(Duration wait) throws Exception {
        new ProcessBuilder("kill", "-TERM", Long.toString(process.pid())).inheritIO().start().waitFor();
        if (!process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("sluice did not stop within " + wait + " of SIGTERM");
        }
        logClosed.get(30, TimeUnit.SECONDS);
        return process.exitValue();
    }

    /** kill -9. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
        try {
            logClosed.get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("log of killed sluice not closed", e);
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
