package io.sluice.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.bench.Scenario.RowSource;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The body of a template write: one JSON object, or an array of rows when there is more than one per request. */
final class RequestBody {
    private static final ObjectMapper JSON = new ObjectMapper();

    private RequestBody() {}

    static byte[] of(RowSource rows, int rowsPerRequest) {
        try {
            if (rowsPerRequest == 1) {
                return JSON.writeValueAsBytes(rows.next());
            }
            List<Map<String, Object>> list = new ArrayList<>(rowsPerRequest);
            for (int i = 0; i < rowsPerRequest; i++) {
                list.add(rows.next());
            }
            return JSON.writeValueAsBytes(list);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot encode a row", e);
        }
    }
}
