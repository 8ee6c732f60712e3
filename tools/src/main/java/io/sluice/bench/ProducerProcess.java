package io.sluice.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The sources bench's producer in a JVM of its own ({@link ProducerMain}), one per topic it fills: the bench's
 * process stays sluice's alone (its CPU time from the OS is sluice's, as {@code --load-process} makes it for
 * {@code sluice bench}), and the producer's JIT, GC and Kafka client threads do not mix into it.
 *
 * <p>Owns the child, two named reader threads (its stdout, where the one answer comes; its stderr, progress lines
 * and logs, copied to the bench's progress stream) and a shutdown hook that kills the child if the bench ends
 * abruptly. Every wait is bounded; {@link #close} waits a little for the child to end, then kills it.
 */
final class ProducerProcess implements AutoCloseable {
    static final String PREFIX = "sluice-produce ";
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What to produce.
     *
     * @param scenario      whose rows ({@link Scenario#named}), stream 0 of {@code seed}
     * @param records       rows to send at most ({@link Long#MAX_VALUE}: until the time is up)
     * @param rate          rows per second (0: as fast as it can)
     * @param durationNanos how long to send at most (0: until {@code records} are sent)
     * @param label         what its progress lines call it
     */
    record Spec(String bootstrap, String topic, String scenario, long seed, long records, double rate,
            long durationNanos, String label) {
        Spec {
            if (records < 1 || rate < 0 || !Double.isFinite(rate) || durationNanos < 0
                    || (records == Long.MAX_VALUE && durationNanos == 0)) {
                throw new IllegalArgumentException("a producer needs rows to send (>= 1), a rate >= 0 and a time"
                        + " >= 0, and an end (rows or time): " + records + " rows, " + rate + "/s, " + durationNanos
                        + " ns");
            }
        }
    }

    /**
     * What the producer did: rows {@code sent}, {@code acked} by the broker, {@code failed} (with the first
     * error), in {@code seconds} from the first send to the last acknowledgement, and its process's CPU time.
     */
    record Summary(long sent, long acked, long failed, String firstError, double seconds, double cpuSeconds) {
        double ratePerSecond() {
            return seconds > 0 ? acked / seconds : 0;
        }
    }

    private final Process process;
    private final Spec spec;
    private final CompletableFuture<String> answer = new CompletableFuture<>();
    private final List<Thread> readers = new ArrayList<>();
    private final Thread hook;

    private ProducerProcess(Process process, Spec spec) {
        this.process = process;
        this.spec = spec;
        this.hook = new Thread(process::destroyForcibly, "sluice-bench-producer-stop");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Starts the child on this JVM's java and class path (512 MB of heap); it sends as soon as it is up. */
    static ProducerProcess start(Spec spec, PrintStream progress) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms512m", "-Xmx512m", "-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED"));
        if (Runtime.version().feature() >= 23) {
            cmd.add("--sun-misc-unsafe-memory-access=allow");
        }
        try {
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), ProducerMain.class.getName(),
                    JSON.writeValueAsString(spec)));
            ProducerProcess p = new ProducerProcess(new ProcessBuilder(cmd).start(), spec);
            p.read("sluice-bench-producer-stdout", p.process.getInputStream(), true, line -> {
                if (line.startsWith(PREFIX)) {
                    p.answer.complete(line.substring(PREFIX.length()));
                } else {
                    progress.println("producer: " + line);
                }
            });
            p.read("sluice-bench-producer-stderr", p.process.getErrorStream(), false, progress::println);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the producer process", e);
        }
    }

    /** The child, for its CPU time. */
    ProcessHandle handle() {
        return process.toHandle();
    }

    /** Whether the producer has answered (or ended without an answer): {@link #await} returns at once. */
    boolean finished() {
        return answer.isDone();
    }

    /** The producer's figures once it has sent everything; up to {@code timeout}. */
    Summary await(Duration timeout) throws InterruptedException {
        String line;
        try {
            line = answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the producer of " + spec.topic() + " did not finish within " + timeout);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the producer of " + spec.topic() + " ended without an answer (exit "
                    + ChildProcess.exitText(process) + ")");
        }
        try {
            JsonNode a = JSON.readTree(line);
            if (a.has("error")) {
                throw new IllegalStateException("the producer of " + spec.topic() + " failed: "
                        + a.get("error").asText());
            }
            return JSON.treeToValue(a.get("summary"), Summary.class);
        } catch (IOException e) {
            throw new IllegalStateException("the producer answered an unreadable line: " + line, e);
        }
    }

    /** A reader of the child's {@code stream}; {@code signalsEnd}: its end, with no answer yet, is the child's. */
    private void read(String name, InputStream stream, boolean signalsEnd, Consumer<String> each) {
        readers.add(ChildProcess.readLines(name, stream, each, signalsEnd
                ? () -> answer.completeExceptionally(new IOException("the producer's output ended")) : null));
    }

    /** Waits up to 10 s for the child to end by itself (it exits after its answer), then SIGTERM, then kill. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook stops the child
        }
        ChildProcess.stop(process, Duration.ofSeconds(10), Duration.ofSeconds(5), readers);
    }
}
