package io.sluice.vocab;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The materialised result of one statement: its columns, its rows (values already converted by {@link Values}
 * so they outlive the transaction) and its update counters (Neo4j's names, e.g. {@code nodes_created}).
 */
public record StatementResult(List<String> columns, List<List<Object>> rows, Map<String, Object> counters) {
    public static final StatementResult EMPTY = new StatementResult(List.of(), List.of(), Map.of());

    public StatementResult {
        columns = List.copyOf(columns);
        rows = List.copyOf(rows);
        counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters));
    }
}
