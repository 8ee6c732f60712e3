package io.sluice.metrics;

import java.util.function.Supplier;

/**
 * What the write path reports. Every method is a no-op by default, so code and tests that do not care about
 * metrics pass {@link #NONE}.
 */
public interface Metrics {
    Metrics NONE = new Metrics() {};

    /** What {@link #request}'s {@code template} is for raw Cypher, and for a template name sluice does not know. */
    String CYPHER = "(cypher)";
    String UNKNOWN = "(unknown)";

    /**
     * A request answered: mode (sync, async, direct, read, alone, or invalid), the template it named ({@link #CYPHER}
     * for raw Cypher, {@link #UNKNOWN} for a name not configured, null for neither: /applied), HTTP status, the rows
     * it wrote (0 unless committed or accepted), and the time from its arrival to its answer.
     */
    default void request(String mode, String template, int status, int rows, long nanos) {}

    /** A batch committed: its rows, requests and commit latency. */
    default void batchCommitted(int rows, int requests, long nanos) {}

    /** A transaction hit a transient error (deadlock, lock timeout) and will be retried. */
    default void transientRetry(String code) {}

    /** A failing batch was split in two to isolate the bad request. */
    default void bisection() {}

    /**
     * A batch's transaction waited for a lock held outside sluice's batches and was ended: {@code requests} of it
     * (the blocked statement's) were set aside to run alone, the rest ran again at once.
     */
    default void setAside(int requests) {}

    /**
     * A client's explicit write transaction was a deadlock's victim, and {@code outcome} says how it ended:
     * {@code rerun} (its statements ran again with the same answers: the client never saw it), {@code answer_differed}
     * or {@code not_rerun} (the client got Neo4j's deadlock error).
     */
    default void deadlock(String outcome) {}

    /** A request failed while applying (constraint violation, type error ...). */
    default void writeFailed(String code) {}

    /** A Bolt connection opened ({@code +1}, after its handshake) or closed ({@code -1}). */
    default void boltConnections(int delta) {}

    /** A Bolt message received, by Bolt's name of it ({@code RUN}, {@code PULL} ..., {@code UNREADABLE}). */
    default void boltMessage(String message) {}

    /** A FAILURE sent to a Bolt client, by its Neo4j code. */
    default void boltFailure(String code) {}

    /** An explicit transaction over Bolt: {@code begin}, {@code commit} or {@code rollback}. */
    default void boltTransaction(String event) {}

    /**
     * An auto-commit statement over Bolt answered: its mode, Bolt's outcome ({@code committed}, {@code accepted},
     * {@code failed}, {@code overloaded}), the rows it wrote and the time to its answer. Its rows and latency go to
     * the same series as HTTP's requests (a dashboard's rates count both doors); its outcome to Bolt's own.
     */
    default void boltStatement(String mode, String outcome, int rows, long nanos) {}

    /**
     * An application topic's partition this instance applies, its lag in records and in seconds read on scrape
     * (NaN while another instance owns it). Called again for the same partition (a consumer of this instance was
     * given it again, maybe another one): the gauges read the latest call's suppliers.
     */
    default void sourcePartition(String topic, int partition, Supplier<Number> lagRecords,
            Supplier<Number> lagSeconds) {}

    /**
     * A source topic's records: {@code applied} (committed with their position), {@code dead_lettered},
     * {@code skipped} (failed, on_error skip) or {@code held} (a partition stopped at a failing record).
     */
    default void sourceRecords(String topic, String outcome, long n) {}

    /** A group of managed transactions committed: its members and statements, and the commit's duration. */
    default void groupCommitted(int members, int statements, long nanos) {}

    /** A group of managed transactions aborted: its members, and why ({@code rollback}, {@code failed} ...). */
    default void groupAborted(int members, String cause) {}

    /** A member taken out of its group ({@code rollback}, {@code failed} ...), the others replayed without it. */
    default void groupEvicted(String cause) {}

    /** Statements a group's replay ran again. */
    default void groupReplayed(int statements) {}

    /**
     * A Debezium connector's stream (sources.kafka.debezium): the transactions waiting for their events and the age
     * in seconds of the oldest source commit not yet applied (0 when none waits), read on scrape.
     */
    default void debeziumStream(String prefix, Supplier<Number> waiting, Supplier<Number> oldestSeconds) {}

    /**
     * A Debezium connector's unit applied: a whole source transaction ({@code rows} its events, {@code perTable}
     * per table) or a snapshot row; {@code lagMillis} from its source commit to now (-1: a snapshot row, none).
     */
    default void debeziumApplied(String prefix, int rows, java.util.Map<String, Long> perTable, long lagMillis) {}

    /** The sources' consumers: how many the config asks for, and how many still run (read on scrape). */
    default void sourceConsumers(Supplier<Number> configured, Supplier<Number> running) {}
}
