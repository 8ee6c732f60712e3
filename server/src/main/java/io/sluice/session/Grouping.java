package io.sluice.session;

import io.sluice.config.Access;
import io.sluice.config.Transactions.Grouped;
import io.sluice.group.TransactionGroups;
import io.sluice.txn.TxRegistry;
import io.sluice.write.Caller;
import java.util.function.Function;

/**
 * Client transactions group-committed ({@code transactions.group}): the groups, whose transactions join them (which
 * of a user's, by user name; null is the anonymous user), and the write path's gate, where a grouped transaction
 * that must run alone takes its place (its transaction comes from its front end's registry). {@link #OFF} when no one's do: the Bolt front end
 * then does not ask drivers for TELEMETRY, as Neo4j does not by default.
 */
public record Grouping(TransactionGroups groups, Function<String, Grouped> scope, TxRegistry.Gate gate) {
    public static final Grouping OFF = new Grouping(null, user -> Grouped.OFF, TxRegistry.Gate.NONE);

    /** Whether anyone's transactions are grouped. */
    public boolean on() {
        return groups != null;
    }

    /**
     * Whether a write transaction of {@code caller}'s may join groups: grouping on for their user, who may send
     * Cypher; {@code managed}: its client retries it (a driver's transaction function or executable query), which
     * is all {@code managed} grouping takes; any other needs grouping of all.
     */
    boolean applies(Caller caller, boolean managed) {
        if (!on() || caller.access() != Access.CYPHER) {
            return false;
        }
        return switch (scope.apply(caller.user())) {
            case OFF -> false;
            case MANAGED -> managed;
            case ALL -> true;
        };
    }
}
