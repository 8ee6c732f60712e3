package io.sluice.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.bench.Scenario.RowSource;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The body of one request in the form of its {@link BenchApi}: a template write's row (one JSON object) or rows
 * (an array); {@code tx/commit}'s statements, one per row, the row as the statement's parameters; the Query API's
 * one statement. Each is what a client of that API would send, built the same way (Jackson from maps) for all.
 */
final class RequestBody {
    private static final ObjectMapper JSON = new ObjectMapper();

    private RequestBody() {}

    /** {@code rawCypher}: the scenario's statement with parameters, for the raw APIs. */
    static byte[] of(BenchApi api, String rawCypher, RowSource rows, int rowsPerRequest) {
        try {
            return JSON.writeValueAsBytes(switch (api) {
                case TEMPLATE -> rowsPerRequest == 1 ? rows.next() : rows(rows, rowsPerRequest);
                case TX_COMMIT -> {
                    List<Object> statements = new ArrayList<>(rowsPerRequest);
                    for (Map<String, Object> row : rows(rows, rowsPerRequest)) {
                        statements.add(Map.of("statement", rawCypher, "parameters", row));
                    }
                    yield Map.of("statements", statements);
                }
                case QUERY_V2 -> {
                    if (rowsPerRequest != 1) {
                        throw new IllegalArgumentException("the Query API takes one statement per request, so one row");
                    }
                    yield Map.of("statement", rawCypher, "parameters", rows.next());
                }
                case BOLT_RUN, BOLT_RUN_UNCOUNTED, BOLT_EXECUTE_WRITE, BOLT_EXECUTABLE_QUERY, BOLT_EXECUTE_WRITE_ROLLBACK,
                        BOLT_EXECUTE_WRITE_FAIL, BOLT_EXECUTE_WRITE_3, BOLT_TRANSACTION_3 ->
                        throw new IllegalArgumentException(api.label() + " goes over Bolt: it has no HTTP body");
            });
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot encode a row", e);
        }
    }

    private static List<Map<String, Object>> rows(RowSource rows, int n) {
        List<Map<String, Object>> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(rows.next());
        }
        return list;
    }
}
