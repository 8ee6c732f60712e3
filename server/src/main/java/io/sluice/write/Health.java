package io.sluice.write;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The write path's state, as /health reports it: {@code status} first (what a load balancer reads), then the
 * bounds and queues, the journal's own fields ({@code journal}: they differ between the local journal and Kafka)
 * and the warm-up's ({@code warmup}, null when the server has no warmer), and what the server's doors add, by
 * section ({@code doors}: the application topics' partitions this instance applies as {@code sources}; empty when
 * no door adds anything).
 */
public record Health(Status status, String sink, long pendingRows, long pendingBytes, long queuedRows, int appliers,
        boolean lockOrder, List<Integer> batchLimitRows, int batchMaxRows, Duration batchMaxWait, Set<String> templates,
        Map<String, Object> journal, long deadLetters, Map<String, Object> warmup, Map<String, Object> doors) {

    /**
     * {@code UP}: taking and applying writes; {@code WARMING}: taking writes while the page cache or the write path
     * warms (503 for a load balancer, which should wait); {@code DOWN}: the database does not answer;
     * {@code STOPPING}: shutting down, refusing new writes.
     */
    public enum Status {
        UP, WARMING, DOWN, STOPPING;

        /** What /health answers with: 200 when UP, else 503. */
        public boolean up() {
            return this == UP;
        }
    }

    public Health {
        batchLimitRows = List.copyOf(batchLimitRows);
        templates = Collections.unmodifiableSortedSet(new TreeSet<>(templates));
        journal = journal == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(journal));
        doors = doors == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(doors));
    }

    /** The /health document: its field names and order as sluice has always answered them. */
    public Map<String, Object> fields() {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("status", status.name());
        h.put("sink", sink);
        h.put("pending_rows", pendingRows);
        h.put("pending_bytes", pendingBytes);
        h.put("queued_rows", queuedRows);
        h.put("appliers", appliers);
        h.put("lock_order", lockOrder);
        h.put("batch_limit_rows", batchLimitRows);
        h.put("batch_max_rows", batchMaxRows);
        h.put("batch_max_wait", batchMaxWait.toString());
        h.put("templates", templates);
        h.putAll(journal);
        h.put("dead_letters", deadLetters);
        if (warmup != null) {
            h.put("warmup", warmup);
        }
        h.putAll(doors);
        return h;
    }
}
