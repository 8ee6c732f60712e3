package io.sluice.write;

import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.Summary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** What became of a request. Every request gets exactly one. */
public sealed interface Outcome {

    /**
     * Committed; for Cypher requests, one result per statement; for template requests, none. {@code kinds}: what
     * the write path classified each statement of a Cypher request as (none for templates), so that no front end
     * classifies it again.
     */
    record Committed(List<StatementResult> results, int rows, List<QueryKind> kinds) implements Outcome {
        public Committed {
            kinds = List.copyOf(kinds);
        }

        public Committed(List<StatementResult> results, int rows) {
            this(results, rows, List.of());
        }

        /** The kind of the first statement (null: a template request, or not known). */
        public QueryKind kind() {
            return kinds.isEmpty() ? null : kinds.getFirst();
        }
    }

    /**
     * In the journal at {@code offset}, durable (the local journal fsynced it; Kafka acknowledged it with
     * {@code acks=all}); applied later. {@code partition}: the Kafka partition, or -1 for the local journal.
     */
    record Accepted(long offset, int rows, int partition) implements Outcome {
        public Accepted(long offset, int rows) {
            this(offset, rows, -1);
        }
    }

    /**
     * Failed, with Neo4j's code and message; nothing of the request was applied. {@code kinds}: the statements'
     * kinds where the write path knew them before it failed (empty: it failed before, e.g. a syntax error), which
     * decides where a front end reports it (Bolt: a read's runtime error after its RUN's SUCCESS). {@code partial}:
     * a read that failed at run time, its columns and the rows it produced before (null: none), which Neo4j streams
     * before the error.
     */
    record Failed(Neo4jError error, List<QueryKind> kinds, StatementResult partial) implements Outcome {
        public Failed {
            kinds = List.copyOf(kinds);
        }

        public Failed(Neo4jError error, List<QueryKind> kinds) {
            this(error, kinds, null);
        }

        public Failed(Neo4jError error) {
            this(error, List.of());
        }

        /** The kind of the first statement (null: not known). */
        public QueryKind kind() {
            return kinds.isEmpty() ? null : kinds.getFirst();
        }
    }

    /** Refused at admission (full, or shutting down): nothing was applied; try again after {@code retryAfter}. */
    record Overloaded(String reason, Duration retryAfter) implements Outcome {}

    /** This outcome with the statements' kinds (committed and failed outcomes carry them; the others do not). */
    default Outcome withKinds(List<QueryKind> kinds) {
        return switch (this) {
            case Committed c -> new Committed(c.results(), c.rows(), kinds);
            case Failed f -> new Failed(f.error(), kinds, f.partial());
            default -> this;
        };
    }

    /**
     * Each statement's result that was never read ({@link StatementResult#UNREAD}: a write that ran coalesced
     * with others, or without a result asked for) given {@code notices}, at the same index: the notifications of its
     * own plan. A result that was read says what Neo4j said of it, nothing included.
     */
    default Outcome withNotices(List<Summary> notices) {
        if (!(this instanceof Committed c) || !anyNotifications(notices)) {
            return this;
        }
        List<StatementResult> results = new ArrayList<>(c.results());
        for (int i = 0; i < results.size() && i < notices.size(); i++) {
            StatementResult r = results.get(i);
            if (r == StatementResult.UNREAD && !notices.get(i).notifications().isEmpty()) { // ran, result unread
                results.set(i, new StatementResult(r.columns(), r.rows(), r.counters(), notices.get(i)));
            }
        }
        return new Committed(results, c.rows(), c.kinds());
    }

    /** Whether any of {@code notices} has a notification (a plain loop: every sync write passes here). */
    private static boolean anyNotifications(List<Summary> notices) {
        for (Summary n : notices) {
            if (!n.notifications().isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** The one answer to a write that arrives, or is still waiting, while sluice shuts down. */
    Overloaded SHUTTING_DOWN = new Overloaded("sluice is shutting down", Duration.ofSeconds(5));
}
