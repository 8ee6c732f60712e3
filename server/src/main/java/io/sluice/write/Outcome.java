package io.sluice.write;

import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.StatementResult;
import java.time.Duration;
import java.util.List;

/** What became of a request. Every request gets exactly one. */
public sealed interface Outcome {

    /** Committed; for Cypher requests, one result per statement; for template requests, none. */
    record Committed(List<StatementResult> results, int rows) implements Outcome {}

    /**
     * In the journal at {@code offset}, durable (the local journal fsynced it; Kafka acknowledged it with
     * {@code acks=all}); applied later. {@code partition}: the Kafka partition, or -1 for the local journal.
     */
    record Accepted(long offset, int rows, int partition) implements Outcome {
        public Accepted(long offset, int rows) {
            this(offset, rows, -1);
        }
    }

    /** Failed, with Neo4j's code and message; nothing of the request was applied. */
    record Failed(Neo4jError error) implements Outcome {}

    /** Refused at admission (full, or shutting down): nothing was applied; try again after {@code retryAfter}. */
    record Overloaded(String reason, Duration retryAfter) implements Outcome {}

    /** The one answer to a write that arrives, or is still waiting, while sluice shuts down. */
    Overloaded SHUTTING_DOWN = new Overloaded("sluice is shutting down", Duration.ofSeconds(5));
}
