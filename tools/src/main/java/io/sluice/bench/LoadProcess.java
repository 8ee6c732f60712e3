package io.sluice.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The load generator (HTTP, or Bolt through the driver) in a JVM of its own ({@code --load-process}), so that the
 * bench's process is the server alone: its CPU time from the OS is the server's, and the client's CPU, JIT and GC
 * do not mix into it.
 * One child for the whole bench run (priming included, so its JIT is as warm as the server's), running one
 * mode's load at a time: the bench writes a {@link LoadSpec} as a JSON line to its stdin, it answers with a line
 * {@value #PREFIX}{@code {"summary": ...}} (or {@code {"error": ...}}) on stdout when the load has stopped. Its
 * stderr (progress lines, logs) is copied line by line to the bench's progress stream.
 *
 * <p>Owns the child and two named reader threads; {@link #close} ends stdin (the child exits when it ends),
 * waits a bounded time, then kills it, and joins the readers. Every wait for the child is bounded. Used by one
 * thread at a time (the bench's).
 */
final class LoadProcess implements AutoCloseable {
    static final String PREFIX = "sluice-load ";
    /** What the stdout reader queues when the child's stdout ends (the child is gone); compared by identity. */
    @SuppressWarnings("StringOperationCanBeSimplified")
    private static final String GONE = new String("the load process's stdout ended");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    /** Beyond a run's own time: its last requests' time-out, and the child's summary of the samples. */
    private static final Duration ANSWER_MARGIN = HttpTarget.REQUEST_TIMEOUT.plusSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    private final List<Thread> readers = new ArrayList<>();

    private LoadProcess(Process process) {
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    }

    /**
     * Starts the child JVM on this JVM's java and class path (the launcher's module flags, a 1 GB heap,
     * {@code javaOptions} after them), and waits until it says it is ready.
     */
    static LoadProcess start(List<String> javaOptions, PrintStream progress) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms1g", "-Xmx1g", "-XX:+UseParallelGC",
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens=java.base/java.lang=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED"));
        if (Runtime.version().feature() >= 23) {
            cmd.add("--sun-misc-unsafe-memory-access=allow");
        }
        cmd.addAll(javaOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), LoadMain.class.getName()));
        LoadProcess p = new LoadProcess(new ProcessBuilder(cmd).start());
        try {
            p.read("sluice-bench-load-stdout", p.process.getInputStream(), true, line -> {
                if (line.startsWith(PREFIX)) {
                    p.answers.add(line.substring(PREFIX.length()));
                } else {
                    progress.println("load process: " + line);
                }
            });
            p.read("sluice-bench-load-stderr", p.process.getErrorStream(), false, progress::println);
            JsonNode ready = p.answer(START_TIMEOUT);
            if (!ready.path("ready").asBoolean()) {
                throw new IOException("the load process did not say it was ready: " + ready);
            }
            return p;
        } catch (IOException | InterruptedException | RuntimeException e) {
            p.close();
            throw e;
        }
    }

    /** The child, for its CPU time. */
    ProcessHandle handle() {
        return process.toHandle();
    }

    /** A load under way in the child. */
    final class Run {
        private final LoadSpec spec;

        private Run(LoadSpec spec) {
            this.spec = spec;
        }

        /** The child's figures once its load has stopped; bounded by the run's time plus a margin. */
        LoadSummary await() throws InterruptedException {
            JsonNode a = answer(spec.total().plus(ANSWER_MARGIN));
            if (a.has("error")) {
                throw new IllegalStateException("the load process failed: " + a.get("error").asText());
            }
            try {
                return JSON.treeToValue(a.get("summary"), LoadSummary.class);
            } catch (IOException e) {
                throw new UncheckedIOException("the load process sent an unreadable summary: " + a, e);
            }
        }
    }

    /** Hands {@code spec} to the child, which starts its window on reading it; returns at once. */
    Run start(LoadSpec spec) throws IOException {
        stdin.write(JSON.writeValueAsString(spec));
        stdin.write('\n');
        stdin.flush();
        return new Run(spec);
    }

    private JsonNode answer(Duration timeout) throws InterruptedException {
        String line = answers.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (line == null) {
            throw new IllegalStateException("the load process did not answer within " + timeout);
        }
        if (line == GONE) {
            answers.add(GONE); // every later wait learns it too
            throw new IllegalStateException("the load process ended (exit " + ChildProcess.exitText(process) + ")");
        }
        try {
            return JSON.readTree(line);
        } catch (IOException e) {
            throw new IllegalStateException("the load process answered an unreadable line: " + line, e);
        }
    }

    private void read(String name, InputStream stream, boolean signalsEnd, Consumer<String> each) {
        readers.add(ChildProcess.readLines(name, stream, each, signalsEnd ? () -> answers.add(GONE) : null));
    }

    /**
     * Ends the child's stdin (it exits), waits up to 10 s, then SIGTERM (5 s), then kills it; joins the readers
     * (bounded; {@link ChildProcess}). Interrupted, it kills the child at once and keeps the interrupt.
     */
    @Override
    public void close() {
        try {
            stdin.close();
        } catch (IOException e) {
            // the child is gone already
        }
        ChildProcess.stop(process, Duration.ofSeconds(10), Duration.ofSeconds(5), readers);
    }
}
