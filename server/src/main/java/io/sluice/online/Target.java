package io.sluice.online;

import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.StatementResult;
import io.sluice.write.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Where an online import sends its statements: sluice's write path, in-process ({@link GatewayTarget}) or of a
 * running sluice over HTTP ({@link RemoteTarget}). Each {@link #write} is one request: its statements commit together or not at all.
 * Thread-safe: the import's workers call it concurrently.
 */
interface Target extends AutoCloseable {

    /** Runs {@code statements} as one write request; {@code bytes} is what admission counts. */
    Result write(List<Statement> statements, long bytes) throws InterruptedException;

    /** Runs one statement alone: a read, or a schema command. */
    Result run(Statement statement) throws InterruptedException;

    /**
     * Transient retries (deadlocks, lock timeouts ...) sluice's write path has made since it started, per Neo4j
     * status code; an import reports the difference between its start and its end.
     */
    Map<String, Long> transientRetries();

    /** For messages: {@code embedded neo4j in ./data}, {@code sluice at http://...}. */
    String describe();

    @Override
    void close();

    /** What became of a request. */
    sealed interface Result {
        /** Committed; one result per statement. */
        record Done(List<StatementResult> results) implements Result {}

        /** Refused by Neo4j (its error); nothing of the request was applied. */
        record Failed(Neo4jError error) implements Result {}

        /** Not now (overloaded, deadlocked past the retries, database unavailable); nothing applied; try again. */
        record Busy(String reason, Duration retryAfter) implements Result {}

        /** Maps a refusal: transient errors are {@link Busy}, the rest {@link Failed}. */
        static Result of(Neo4jError e) {
            return e.isTransient() ? new Busy(e.code() + ": " + e.message(), Duration.ofMillis(100)) : new Failed(e);
        }
    }
}
