package io.sluice.apply;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the writes set aside for a lock run ({@link LockWatch}): a thread each (virtual: each may wait as long as
 * Neo4j lets it), as many as admission lets in. Closing refuses new ones and waits, bounded, for those running; it
 * does not interrupt them (an interrupt inside Neo4j's file I/O closes its channels): what still waits then fails
 * when the database closes.
 */
public final class SetAside implements Executor, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SetAside.class);

    private final ExecutorService threads;
    private final Duration wait;

    public SetAside(ThreadFactory threads, Duration wait) {
        this.threads = Executors.newThreadPerTaskExecutor(threads);
        this.wait = wait;
    }

    /** Runs {@code write} on a thread of its own; refused (RejectedExecutionException) once closing. */
    @Override
    public void execute(Runnable write) {
        threads.execute(write);
    }

    @Override
    public void close() {
        threads.shutdown();
        try {
            if (!threads.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("writes set aside for a lock still wait after {}; they fail as the database closes", wait);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
