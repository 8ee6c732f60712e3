package io.sluice.http;

import io.sluice.config.Sizes;
import io.sluice.vocab.Neo4jError;
import io.sluice.write.Operations;
import io.sluice.write.Outcome;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The endpoints an operator, or a client waiting for its async writes, asks: {@code GET /db/{db}/applied}
 * (read-your-writes) and {@code GET /db/{db}/dead-letters}, over {@link Operations}. Pure functions of the query
 * parameters to {@link Reply}.
 */
final class OperationsApi {
    private final Operations operations;
    private final String database;

    OperationsApi(Operations operations, String database) {
        this.operations = operations;
        this.database = database;
    }

    /** GET /db/{db}/applied?offset=N&wait=5s: read-your-writes for async. */
    Reply applied(String db, String partitionText, String offsetText, String waitText) {
        Reply bad = checkDatabase(db);
        if (bad != null) {
            return bad;
        }
        long offset;
        int partition;
        Duration wait;
        try {
            partition = partitionText == null ? -1 : Integer.parseInt(partitionText.strip());
            if (partition < -1) {
                throw new IllegalArgumentException("partition must be >= 0, got " + partition);
            }
            if (offsetText == null) {
                throw new IllegalArgumentException("?offset=N is required");
            }
            offset = Long.parseLong(offsetText);
            if (offset < 0) {
                throw new IllegalArgumentException("offset must be >= 0, got " + offset);
            }
            waitText = waitText == null ? null : waitText.strip();
            if (waitText != null && !waitText.isEmpty() && Character.isDigit(waitText.charAt(waitText.length() - 1))) {
                throw new IllegalArgumentException("wait needs a unit, e.g. wait=5s or wait=500ms, got '" + waitText + "'");
            }
            wait = waitText == null ? Duration.ZERO : Sizes.duration(waitText);
            if (wait.compareTo(MAX_APPLIED_WAIT) > 0) {
                throw new IllegalArgumentException("wait must be at most " + MAX_APPLIED_WAIT.toSeconds() + "s");
            }
        } catch (IllegalArgumentException e) {
            return Reply.error(400, Neo4jError.invalid("bad applied query: " + e.getMessage()));
        }
        try {
            Operations.Applied a = operations.awaitApplied(partition, offset, wait);
            Map<String, Object> out = new LinkedHashMap<>();
            if (partition >= 0) {
                out.put("partition", partition);
            }
            out.put("offset", a.offset());
            out.put("applied", a.applied());
            out.put("applied_offset", a.appliedOffset());
            return Reply.json(200, out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Reply.overloaded(Outcome.SHUTTING_DOWN);
        }
    }

    static final Duration MAX_APPLIED_WAIT = Duration.ofSeconds(60);

    /** GET /db/{db}/dead-letters?from=0&limit=100. */
    Reply deadLetters(String db, String fromText, String limitText) throws IOException {
        Reply bad = checkDatabase(db);
        if (bad != null) {
            return bad;
        }
        long from;
        int limit;
        try {
            from = fromText == null ? 0 : Long.parseLong(fromText);
            limit = limitText == null ? 100 : (int) Math.min(10_000, Long.parseLong(limitText));
            if (from < 0 || limit < 0) {
                throw new NumberFormatException("from and limit must be >= 0");
            }
        } catch (NumberFormatException e) {
            return Reply.error(400, Neo4jError.invalid("bad dead-letters query (from and limit are integers >= 0): " + e.getMessage()));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("dead_letters", operations.deadLetters(from, limit));
        return Reply.json(200, out);
    }

    private Reply checkDatabase(String db) {
        return database.equals(db) ? null : Reply.error(404, Api.databaseNotFound(db, database));
    }
}
