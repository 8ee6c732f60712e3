package io.sluice.session;

import io.sluice.config.Access;
import io.sluice.group.TransactionGroups;
import io.sluice.sink.Sink;
import io.sluice.txn.TxRegistry;
import io.sluice.write.Caller;
import java.util.function.Predicate;

/**
 * Client transactions group-committed ({@code transactions.group}): the groups, whose transactions join them (by
 * user name; null is the anonymous user), and what a grouped transaction that must run alone begins its own
 * transaction with (the sink, a place at the write path's gate). {@link #OFF} when no one's do: the Bolt front end
 * then does not ask drivers for TELEMETRY, as Neo4j does not by default.
 */
public record Grouping(TransactionGroups groups, Predicate<String> user, Sink sink, TxRegistry.Gate gate) {
    public static final Grouping OFF = new Grouping(null, user -> false, null, TxRegistry.Gate.NONE);

    /** Whether anyone's transactions are grouped. */
    public boolean on() {
        return groups != null;
    }

    /** Whether {@code caller}'s write transactions may join groups: grouping on for their user, who may send Cypher. */
    boolean applies(Caller caller) {
        return on() && caller.access() == Access.CYPHER && user.test(caller.user());
    }
}
