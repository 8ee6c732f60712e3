package io.sluice.write;

import java.util.Map;
import java.util.Objects;

/** One Cypher statement and its parameters, as a client sent it. */
public record Statement(String cypher, Map<String, Object> params) {
    public Statement {
        Objects.requireNonNull(cypher, "cypher");
        params = params == null ? Map.of() : params;
    }
}
