package io.sluice.sink;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.api.KernelTransactionHandle;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.kernel.impl.api.KernelTransactions;
import org.neo4j.lock.ActiveLock;
import org.neo4j.memory.EmptyMemoryTracker;

/**
 * An embedded batch's transaction as another thread sees it ({@link Sink.Running}), through Neo4j's own registry of
 * running transactions, what {@code SHOW TRANSACTIONS} reads: the locks its running statement waits for, and who
 * holds them. Only asked of a batch that has run for a while, so walking every transaction is fine.
 */
final class EmbeddedRunning implements Sink.Running {
    /** The metadata that marks a batch's transaction (what {@code SHOW TRANSACTIONS} shows too). */
    static final Map<String, Object> BATCH = Map.of("sluice", "batch");

    private final KernelTransaction tx;
    /** Which of its uses {@link #tx} is: Neo4j reuses the object for later transactions, this number never. */
    private final long sequence;
    private final KernelTransactions registry;

    EmbeddedRunning(KernelTransaction tx, KernelTransactions registry) {
        this.tx = Objects.requireNonNull(tx, "tx");
        this.sequence = tx.getTransactionSequenceNumber();
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public boolean blockedByOther() {
        KernelTransactionHandle mine = handle();
        if (mine == null) {
            return false;
        }
        List<ActiveLock> waiting = mine.executingQuery().map(q -> q.snapshot().waitingLocks()).orElse(List.of());
        if (waiting.isEmpty()) {
            return false;
        }
        for (KernelTransactionHandle other : registry.activeTransactions()) {
            if (other == mine || isBatch(other)) {
                continue;
            }
            for (ActiveLock held : other.activeLocks(EmptyMemoryTracker.INSTANCE)) {
                for (ActiveLock wanted : waiting) {
                    if (held.resourceType() == wanted.resourceType() && held.resourceId() == wanted.resourceId()) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    @Override
    public boolean terminate() {
        KernelTransactionHandle mine = handle();
        // false once it commits: Neo4j no longer lets a committing transaction be ended
        return mine != null && mine.markForTermination(Status.Transaction.Terminated);
    }

    /** Its handle while it runs; null once it has finished (its object may run someone else's transaction by then). */
    private KernelTransactionHandle handle() {
        for (KernelTransactionHandle h : registry.activeTransactions()) {
            if (h.isUnderlyingTransaction(tx) && h.getTransactionSequenceNumber() == sequence) {
                return h;
            }
        }
        return null;
    }

    private static boolean isBatch(KernelTransactionHandle h) {
        return BATCH.get("sluice").equals(h.getMetaData().get("sluice"));
    }
}
