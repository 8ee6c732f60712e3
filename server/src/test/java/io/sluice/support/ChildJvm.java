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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A sluice CLI command ({@code io.sluice.cli.Main ...}) as a real child process, on the tests' JDK and
 * classpath, for SIGTERM and kill -9 tests. Its output goes to {@code log}; {@link #start} returns once it
 * prints a line starting with {@code ready}.
 */
public final class ChildJvm implements AutoCloseable {
    public final Process process;
    public final Path log;
    private final CompletableFuture<Void> logClosed;

    private ChildJvm(Process process, Path log, CompletableFuture<Void> logClosed) {
        this.process = process;
        this.log = log;
        this.logClosed = logClosed;
    }

    public static ChildJvm start(String heap, List<String> mainArgs, String ready, Path log) throws IOException {
        return start(heap, mainArgs, ready, log, java.util.Map.of());
    }

    /** The same, with {@code env} added to the child's environment (e.g. {@code NEO4J_AUTH}). */
    public static ChildJvm start(String heap, List<String> mainArgs, String ready, Path log,
            java.util.Map<String, String> env) throws IOException {
        return start(heap, List.of(), mainArgs, ready, log, env);
    }

    /** The same, with {@code jvmOptions} added to the child's JVM flags. */
    public static ChildJvm start(String heap, List<String> jvmOptions, List<String> mainArgs, String ready, Path log,
            java.util.Map<String, String> env) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command(heap, jvmOptions, mainArgs)).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        CompletableFuture<Boolean> isReady = new CompletableFuture<>();
        CompletableFuture<Void> logClosed = new CompletableFuture<>();
        Thread.ofPlatform().name("child-jvm-log").daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                    var w = Files.newBufferedWriter(log)) {
                for (String line; (line = r.readLine()) != null; ) {
                    w.write(line);
                    w.newLine();
                    w.flush();
                    if (line.startsWith(ready)) {
                        isReady.complete(true);
                    }
                }
            } catch (IOException e) {
                // the process died; readiness below says so
            }
            isReady.complete(false);
            logClosed.complete(null);
        });
        try {
            if (!isReady.get(120, TimeUnit.SECONDS)) {
                String exit = p.waitFor(30, TimeUnit.SECONDS) ? Integer.toString(p.exitValue()) : "none yet";
                throw new IOException(mainArgs.getFirst() + " did not start; exit " + exit + ", log:\n"
                        + Files.readString(log));
            }
        } catch (Exception e) {
            p.destroyForcibly();
            throw e instanceof IOException io ? io : new IOException(e);
        }
        return new ChildJvm(p, log, logClosed);
    }

    /**
     * Runs the command to its end, for commands expected to exit by themselves (e.g. a start that must fail):
     * output and errors to {@code log}; returns the exit code; fails if it is still running after {@code timeout}
     * (and kills it).
     */
    public static int run(String heap, List<String> jvmOptions, List<String> mainArgs, Path log, Duration timeout)
            throws Exception {
        Process p = new ProcessBuilder(command(heap, jvmOptions, mainArgs)).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError(mainArgs + " still running after " + timeout + ", log:\n" + Files.readString(log));
        }
        return p.exitValue();
    }

    private static List<String> command(String heap, List<String> jvmOptions, List<String> mainArgs) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx" + heap, "-XX:+UseParallelGC",
                "--sun-misc-unsafe-memory-access=allow",
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
                "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path")));
        cmd.addAll(jvmOptions);
        cmd.add(System.getProperty("sluice.main", "io.sluice.cli.Main"));
        cmd.addAll(mainArgs);
        return cmd;
    }

    /** SIGTERM (sent with kill(1): Process.destroy() did not run the JVM's shutdown hooks from the surefire fork), then wait for exit. */
    public int terminate(Duration wait) throws Exception {
        signal("TERM");
        if (!process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(log.getFileName() + ": did not stop within " + wait + " of SIGTERM");
        }
        logClosed.get(30, TimeUnit.SECONDS);
        return process.exitValue();
    }

    /** Sends {@code kill -NAME} (e.g. {@code STOP}, {@code CONT}, {@code TERM}) and waits for kill(1) to return. */
    public void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(30, TimeUnit.SECONDS)) {
            kill.destroyForcibly();
            throw new AssertionError("kill -" + name + " " + process.pid() + " did not return within 30 s");
        }
        if (kill.exitValue() != 0) {
            throw new AssertionError("kill -" + name + " " + process.pid() + " exited with " + kill.exitValue());
        }
    }

    /** kill -9. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("process " + process.pid() + " still alive 30 s after kill -9");
        }
        try {
            logClosed.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("log of killed process not closed", e);
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
