package io.sluice.vocab;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The materialised result of one statement: its columns, its rows (values already converted by {@link Values}
 * so they outlive the transaction), its update counters (Neo4j's names, e.g. {@code nodes_created}) and what else
 * Neo4j said of it ({@link Summary}: notifications, a plan).
 */
public record StatementResult(List<String> columns, List<List<Object>> rows, Map<String, Object> counters,
        Summary summary) {
    public static final StatementResult EMPTY = new StatementResult(List.of(), List.of(), Map.of());
    /**
     * What a statement that ran but whose result was never read returns (coalesced with others, or none asked for):
     * equal to {@link #EMPTY}, and told apart from it by identity ({@code Outcome.withNotices} gives it the
     * notifications of the statement's plan).
     */
    public static final StatementResult UNREAD = new StatementResult(List.of(), List.of(), Map.of());

    public StatementResult {
        columns = List.copyOf(columns);
        rows = List.copyOf(rows);
        counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters));
        summary = summary == null ? Summary.NONE : summary;
    }

    /** Nothing said besides its rows and counters. */
    public StatementResult(List<String> columns, List<List<Object>> rows, Map<String, Object> counters) {
        this(columns, rows, counters, Summary.NONE);
    }

    /**
     * Whether {@code other} gave its client the same answer: the same columns, rows and counters (what a re-run of
     * the same statements must reproduce; its notifications and a profile's timings may differ between runs).
     */
    public boolean sameAnswer(StatementResult other) {
        return columns.equals(other.columns) && rows.equals(other.rows) && counters.equals(other.counters);
    }
}
