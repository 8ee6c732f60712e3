package io.sluice.vocab;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Neo4j's update counters, in the order and with the names its classic HTTP API gives them ({@code nodes_created},
 * and its {@code relationship_deleted}, singular). The one list of them: each sink maps every counter from its own
 * API in an exhaustive switch, so a counter cannot be forgotten by one sink, or named two ways.
 */
public enum Counter {
    CONTAINS_UPDATES, NODES_CREATED, NODES_DELETED, PROPERTIES_SET, RELATIONSHIPS_CREATED, RELATIONSHIP_DELETED,
    LABELS_ADDED, LABELS_REMOVED, INDEXES_ADDED, INDEXES_REMOVED, CONSTRAINTS_ADDED, CONSTRAINTS_REMOVED,
    CONTAINS_SYSTEM_UPDATES, SYSTEM_UPDATES;

    /** The name in Neo4j's classic API, e.g. {@code nodes_created}. */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The name in Neo4j's Query API ({@code includeCounters}), e.g. {@code nodesCreated}; there the deleted
     * relationships are plural ({@code relationshipsDeleted}).
     */
    public String queryApiKey() {
        if (this == RELATIONSHIP_DELETED) {
            return "relationshipsDeleted";
        }
        StringBuilder b = new StringBuilder();
        boolean up = false;
        for (char c : key().toCharArray()) {
            if (c == '_') {
                up = true;
            } else {
                b.append(up ? Character.toUpperCase(c) : c);
                up = false;
            }
        }
        return b.toString();
    }

    /**
     * The name Bolt gives the counter named {@code key} ({@link #key()}) in a summary's {@code stats}, e.g.
     * {@code nodes-created}; there too the deleted relationships are plural.
     */
    public static String boltKey(String key) {
        return key.equals(RELATIONSHIP_DELETED.key()) ? "relationships-deleted" : key.replace('_', '-');
    }

    /** Every counter, read by {@code value}, keyed by {@link #key()}, in Neo4j's order. */
    public static Map<String, Object> read(Function<Counter, Object> value) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Counter c : values()) {
            out.put(c.key(), value.apply(c));
        }
        return out;
    }
}
