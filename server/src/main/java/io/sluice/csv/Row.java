package io.sluice.csv;

import java.util.Map;

/**
 * One data row after parsing: where it came from, the key it is partitioned on (the raw node ID or start ID),
 * and either the values sent to Neo4j or the reason it was rejected.
 *
 * <p>{@code values} holds {@code k} (node ID), {@code s}/{@code e} (start/end ID), {@code l} (labels of a
 * {@code :LABEL} column), {@code t} (type of a {@code :TYPE} column), {@code p<column>} (a property sent as
 * itself) and {@code c<column>} (one a Cypher function converts: temporal, point); an empty field has no entry.
 * The position in its batch, {@code i},
 * is added when the batch is formed; the map is the row's own and is not shared.
 */
public record Row(int file, long line, String partitionKey, Map<String, Object> values, Rejection rejection) {

    public boolean isRejected() {
        return rejection != null;
    }
}
