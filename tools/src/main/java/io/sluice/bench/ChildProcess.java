package io.sluice.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What the bench does alike with the child processes it owns (the load process, Neo4j's server, the Kafka
 * broker): stop one, every wait bounded, and say how one ended.
 */
final class ChildProcess {
    /** After SIGKILL, how long the OS gets to reap the child. */
    private static final Duration KILLED = Duration.ofSeconds(10);
    /** How long each reader of the child's output gets to see its last lines. */
    private static final Duration READER = Duration.ofSeconds(5);

    private ChildProcess() {}

    /**
     * Starts a daemon thread named {@code name} that hands each line of the child's {@code stream} to {@code each},
     * then runs {@code atEnd} (null: nothing) when the stream ends or fails: the child is gone.
     */
    static Thread readLines(String name, InputStream stream, Consumer<String> each,
            Runnable atEnd) {
        return Thread.ofPlatform().name(name).daemon(true).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(stream,
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    each.accept(line);
                }
            } catch (IOException e) {
                // the child is gone: atEnd says so
            } finally {
                if (atEnd != null) {
                    atEnd.run();
                }
            }
        });
    }

    /**
     * Waits up to {@code exit} for {@code process} to end by itself (it was told to: its stdin closed), then sends
     * SIGTERM and waits up to {@code term}, then kills it; then joins {@code readers}. SIGTERM goes through the
     * process handle: {@link Process#destroy} would also close the pipes, and the readers would lose what the child
     * says while it stops. Interrupted, it kills the child at once and keeps the interrupt.
     */
    static void stop(Process process, Duration exit, Duration term, List<Thread> readers) {
        try {
            if (!process.waitFor(exit.toMillis(), TimeUnit.MILLISECONDS)) {
                process.toHandle().destroy();
                if (!process.waitFor(term.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly().waitFor(KILLED.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
            for (Thread t : readers) {
                t.join(READER);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** {@code process}'s exit code, waiting up to 5 s for it; "none yet" if it still runs. */
    static String exitText(Process process) {
        try {
            return process.waitFor(5, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "none yet";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
