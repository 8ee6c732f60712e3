package io.sluice.bolt;

import io.sluice.group.TransactionGroups;
import java.util.function.Predicate;

/**
 * The drivers' managed write transactions group-committed ({@code transactions.group}): the groups, and whose
 * transactions join them (by user name; null is the anonymous user). {@link #OFF} when no one's do: the Bolt front
 * end then does not ask drivers for TELEMETRY, as Neo4j does not by default.
 */
public record Grouping(TransactionGroups groups, Predicate<String> user) {
    public static final Grouping OFF = new Grouping(null, user -> false);

    boolean on() {
        return groups != null;
    }
}
