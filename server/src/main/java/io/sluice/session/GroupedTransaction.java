package io.sluice.session;

import io.sluice.group.TransactionGroups;
import io.sluice.sink.Sink;
import io.sluice.txn.TxRegistry;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import java.util.Map;
import java.util.function.Function;

/**
 * A client transaction that may share a group ({@code transactions.group}): begun without a Neo4j transaction, it
 * decides at its first statement how it runs. A read or a write joins a group as a member, unless transactions that
 * begin with it are known to take more than one statement; that one, a schema command, {@code CALL {} IN
 * TRANSACTIONS} or a statement that does not compile gets a real Neo4j transaction of its own (re-run when a deadlock
 * picks it, as the registry's own are), so its answer is Neo4j's.
 *
 * <p>Why several statements run alone: a group's members run one at a time, and a member of several statements keeps
 * the turn across its client's round trips between them, so the group waits for each client in turn while Neo4j
 * idles; measured with the Java driver (64 sessions, three statements a transaction), grouped they ran at about half
 * the writes/s they reach alone, which a shared commit does not make up (docs/BENCHMARKS.md, issue 35). A shape is
 * learned the first time one of its members sends a second statement (that member runs on in its group, or is
 * taken out and retried if another ran in between).
 *
 * <p>Held in a front end's {@link TxRegistry} like a real transaction (ids, idle expiry, one request at a time,
 * rolled back at shutdown), but registered without a place at the gate: a group holds one for all its members, and
 * the real transaction it may become takes its own.
 *
 * <p>Its state is one sealed value: {@link Deferred} (nothing ran), {@link Grouped} (a member), {@link Real}
 * (a Neo4j transaction of its own) or {@link Finished}. Every group it aborts is a strike against its
 * {@link Demotion}; a commit clears them. Used by one request at a time (the registry's hold orders them).
 */
final class GroupedTransaction implements Sink.OpenTx {

    /** How it runs now. */
    private sealed interface State permits Deferred, Grouped, Real, Finished {}

    private record Deferred() implements State {}

    private record Grouped(TransactionGroups.Member member) implements State {}

    private record Real(Sink.OpenTx tx) implements State {}

    private record Finished() implements State {}

    private static final State DEFERRED = new Deferred();
    private static final State FINISHED = new Finished();

    private final TransactionGroups groups;
    private final TxRegistry registry;
    private final TxRegistry.Gate gate;
    private final Function<String, QueryKind> kinds;
    private final Demotion demotion;
    private State state = DEFERRED;

    GroupedTransaction(TransactionGroups groups, TxRegistry registry, TxRegistry.Gate gate,
            Function<String, QueryKind> kinds, Demotion demotion) {
        this.groups = groups;
        this.registry = registry;
        this.gate = gate;
        this.kinds = kinds;
        this.demotion = demotion;
    }

    @Override
    public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
        if (state instanceof Deferred) {
            QueryKind kind = kinds.apply(cypher);
            state = (kind == QueryKind.READ || kind == QueryKind.WRITE) && !groups.multiStatement(cypher)
                    ? new Grouped(groups.member()) : real();
        }
        switch (state) {
            case Grouped g -> {
                try {
                    return g.member().run(cypher, params);
                } catch (GraphException e) {
                    state = FINISHED; // its group rolled it back
                    if (g.member().abortedGroup()) {
                        demotion.struck();
                    }
                    throw e;
                }
            }
            case Real r -> {
                try {
                    return r.tx().run(cypher, params);
                } catch (GraphException | RuntimeException e) {
                    end(r); // the sink rolled it back
                    throw e;
                }
            }
            default -> throw new IllegalStateException("the transaction has finished");
        }
    }

    /** A real Neo4j transaction of its own, with its place at the gate. */
    private State real() throws GraphException {
        gate.enter();
        try {
            return new Real(registry.beginWrite());
        } catch (GraphException | RuntimeException e) {
            gate.leave();
            state = FINISHED;
            throw e;
        }
    }

    @Override
    public void commit() throws GraphException {
        State was = state;
        state = FINISHED;
        switch (was) {
            case Deferred d -> { } // nothing ran: nothing to commit
            case Grouped g -> {
                try {
                    g.member().commit();
                } catch (GraphException e) {
                    if (g.member().abortedGroup()) {
                        demotion.struck();
                    }
                    throw e;
                }
                demotion.cleared();
            }
            case Real r -> {
                try {
                    r.tx().commit();
                } finally {
                    gate.leave();
                }
            }
            case Finished f -> throw new IllegalStateException("the transaction has finished");
        }
    }

    @Override
    public void rollback() {
        end(false);
    }

    @Override
    public void abandon() {
        end(true);
    }

    private void end(boolean disconnected) {
        State was = state;
        state = FINISHED;
        switch (was) {
            case Grouped g -> {
                if (g.member().rollback(disconnected)) {
                    demotion.struck();
                }
            }
            case Real r -> end(r);
            case Deferred d -> { }
            case Finished f -> { }
        }
    }

    private void end(Real r) {
        state = FINISHED;
        try {
            r.tx().rollback();
        } finally {
            gate.leave();
        }
    }
}
