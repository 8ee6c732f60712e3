package io.sluice.config;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A named write template: Cypher written for one row bound to {@code row}; sluice runs it as
 * {@code UNWIND $rows AS row <cypher>}.
 *
 * @param cypher the per-row Cypher
 * @param key    the row fields that define ordering and partitioning (may be empty: no order promised)
 * @param types  optional declared field types (string, integer, float, number, boolean, list, map, any),
 *               checked before a row is admitted
 * @param lockOrder the fields by which a batch's rows are sorted so that concurrent transactions lock shared
 *               nodes in one order; null derives them (the node keys of MERGE/MATCH patterns besides the key),
 *               an empty list turns sorting off
 */
public record TemplateConfig(String cypher, List<String> key, Map<String, String> types, List<String> lockOrder) {
    public TemplateConfig(String cypher, List<String> key, Map<String, String> types) {
        this(cypher, key, types, null);
    }

    public TemplateConfig {
        lockOrder = lockOrder == null ? null : List.copyOf(lockOrder);
        Objects.requireNonNull(cypher, "template needs 'cypher'");
        if (cypher.isBlank()) {
            throw new IllegalArgumentException("template 'cypher' is blank");
        }
        key = key == null ? List.of() : List.copyOf(key);
        types = types == null ? Map.of() : Map.copyOf(types);
        for (var e : types.entrySet()) {
            if (!FieldType.NAMES.contains(e.getValue())) {
                throw new IllegalArgumentException("field '" + e.getKey() + "' has unknown type '" + e.getValue()
                        + "'; known: " + FieldType.NAMES);
            }
        }
    }
}
