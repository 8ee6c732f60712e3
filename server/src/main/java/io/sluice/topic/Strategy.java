package io.sluice.topic;

import io.sluice.write.Template;
import java.util.List;
import java.util.Map;

/**
 * What a topic's records become: each record's operations, in order, as rows of templates. Rows of one template
 * next to each other in a partition's batch run as one {@code UNWIND} ({@link Template#unwindCypher()}), so a
 * strategy makes one template per statement shape and reuses it (a bounded number: shapes come from the
 * configuration or from the data, and those from the data are cached up to a bound).
 *
 * <p>Implementations are called from one consumer thread at a time per instance but may be shared between
 * consumers: they must be thread-safe (immutable, or with a concurrent cache).
 */
public interface Strategy {
    /**
     * The operations of one record, in order, applied atomically; empty when the record asks for nothing (a
     * tombstone a strategy ignores). Throws {@link Invalid} for a record it cannot map (dead-lettered with the
     * message, never retried).
     */
    List<Op> ops(Message message) throws Invalid;

    /** What a dry run checks before anything is consumed. */
    List<Check> checks();

    /** One row of one template. */
    record Op(Template template, Map<String, Object> row) {}

    /**
     * A check: {@code statement} must compile against the database ({@code EXPLAIN}); each of {@code uniqueKeys}
     * should be backed by a uniqueness or key constraint (without one, MERGE on it can duplicate under concurrency
     * and scans the label).
     */
    record Check(String what, String statement, List<NodeKey> uniqueKeys) {}

    /** A label and the properties that identify its nodes. */
    record NodeKey(String label, List<String> properties) {}

    /** A record this strategy cannot map, and why (said in the dead letter's headers). */
    final class Invalid extends Exception {
        public Invalid(String message) {
            super(message);
        }
    }
}
