package io.sluice.importer;

import io.sluice.csv.Rejection;
import io.sluice.online.OnlineImport;
import io.sluice.vocab.Neo4jStatus;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What an import did, printed at its end.
 *
 * @param path          {@code offline} or {@code online}
 * @param nodes         nodes created
 * @param relationships relationships created
 * @param properties    properties set
 * @param rejected      rejected rows per problem
 * @param rows          data rows read (offline: nodes + relationships + rejected)
 * @param resumed       rows skipped because an earlier run had imported them (online resume)
 * @param seconds       wall-clock time
 * @param stopped       why the import stopped before the end, or null when it finished
 * @param retries       online: transient errors retried by sluice's write path, per Neo4j status code
 *                      (deadlocks are {@code Neo.TransientError.Transaction.DeadlockDetected}), plus batches the
 *                      import sent again ({@code resent}); none of them failed a row
 */
public record ImportSummary(String path, long nodes, long relationships, long properties,
        Map<Rejection.Problem, Long> rejected, long rows, long resumed, double seconds, String stopped,
        Map<String, Long> retries) {

    public static final String DEADLOCK = Neo4jStatus.Transaction.DEADLOCK_DETECTED;

    public ImportSummary {
        rejected = rejected.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(rejected));
        retries = retries == null ? Map.of() : Map.copyOf(retries);
    }

    /** An online import's result. */
    public static ImportSummary online(OnlineImport.Result r) {
        return new ImportSummary("online", r.nodes(), r.relationships(), r.properties(), r.rejected(), r.rows(),
                r.resumed(), r.seconds(), r.stopped(), r.retries());
    }

    /** Deadlocks that sluice retried (each retried batch then committed, or the import says it stopped). */
    public long deadlockRetries() {
        return retries.getOrDefault(DEADLOCK, 0L);
    }

    public long rejectedTotal() {
        return rejected.values().stream().mapToLong(Long::longValue).sum();
    }

    public boolean finished() {
        return stopped == null;
    }

    /** Records (nodes and relationships, plus rejected rows) per second. */
    public double recordsPerSecond() {
        return seconds <= 0 ? 0 : (nodes + relationships + rejectedTotal()) / seconds;
    }

    public String text() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%s import %s in %.1f s%n", path, stopped == null ? "done" : "STOPPED", seconds));
        b.append(String.format(Locale.ROOT, "  nodes created          %,15d%n", nodes));
        b.append(String.format(Locale.ROOT, "  relationships created  %,15d%n", relationships));
        b.append(String.format(Locale.ROOT, "  properties set         %,15d%n", properties));
        b.append(String.format(Locale.ROOT, "  rejected rows          %,15d", rejectedTotal()));
        if (!rejected.isEmpty()) {
            b.append("  (");
            StringBuilder parts = new StringBuilder();
            rejected.forEach((p, n) -> parts.append(parts.isEmpty() ? "" : ", ").append(p.name()).append(' ').append(n));
            b.append(parts).append(')');
        }
        b.append(System.lineSeparator());
        if (resumed > 0) {
            b.append(String.format(Locale.ROOT, "  resumed (already done) %,15d rows%n", resumed));
        }
        b.append(String.format(Locale.ROOT, "  records/s              %,15.0f%n", recordsPerSecond()));
        if (!retries.isEmpty()) {
            b.append("  retried (not failed)   ").append(new TreeMap<>(retries)).append(System.lineSeparator());
        }
        if (stopped != null) {
            b.append("  stopped: ").append(stopped).append(System.lineSeparator());
        }
        return b.toString();
    }
}
