package io.sluice.write;

import io.sluice.vocab.TxConfig;
import java.util.List;
import java.util.Map;

/**
 * One client request: the unit of atomicity (its statements or rows commit together or not at all) and of
 * failure isolation (a bad request fails alone). {@link #rows()} and {@link #bytes()} are what admission counts.
 */
public sealed interface WriteRequest {
    int rows();

    long bytes();

    /**
     * Raw Cypher statements (tx/commit, query/v2), run in order. {@code counters}: whether the client asked for
     * the statements' update counters ({@code includeStats}, {@code includeCounters}), which only running each
     * statement on its own gives; without it the write path may coalesce a one-statement request that returns
     * nothing with others running the same statement. {@code config}: what its client asked of its transaction
     * (Bolt's {@code tx_timeout} and {@code tx_metadata}), applied when it runs in a transaction of its own (a read,
     * direct mode, set aside for a lock: see apply.LockWatch); never journaled (an async request was answered before
     * it ran).
     */
    record CypherRequest(List<Statement> statements, long bytes, boolean counters, TxConfig config)
            implements WriteRequest {
        public CypherRequest {
            statements = List.copyOf(statements);
            config = config == null ? TxConfig.NONE : config;
        }

        /** Asking nothing of its transaction. */
        public CypherRequest(List<Statement> statements, long bytes, boolean counters) {
            this(statements, bytes, counters, TxConfig.NONE);
        }

        /** A request whose every result, counters included, is kept (in-process callers, journal replays). */
        public CypherRequest(List<Statement> statements, long bytes) {
            this(statements, bytes, true);
        }

        @Override
        public int rows() {
            return statements.size();
        }
    }

    /** Rows for a named template (write/{template}), coalesced with other rows of the same template. */
    record TemplateRequest(Template template, List<Map<String, Object>> rowList, long bytes) implements WriteRequest {
        public TemplateRequest {
            rowList = List.copyOf(rowList);
        }

        @Override
        public int rows() {
            return rowList.size();
        }
    }

    /**
     * Rows of several templates, applied in this order and atomically: an application topic's record that carries
     * several operations (or none: a tombstone its strategy ignores). No front end sends one and none is journaled;
     * the sources apply it from their own topic.
     */
    record Sequence(List<TemplateRequest> parts, long bytes) implements WriteRequest {
        public Sequence {
            parts = List.copyOf(parts);
        }

        @Override
        public int rows() {
            int rows = 0;
            for (TemplateRequest t : parts) {
                rows += t.rows();
            }
            return rows;
        }
    }
}
