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
 * decides at its first statement how it runs. A read or a write joins a group as a member; a schema command,
 * {@code CALL {} IN TRANSACTIONS} or a statement that does not compile gets a real Neo4j transaction of its own,
 * so its answer is Neo4j's. Held in a front end's {@link TxRegistry} like a real transaction (ids, idle expiry,
 * one request at a time, rolled back at shutdown), but registered without a place at the gate: a group holds one
 * for all its members, and the real transaction it may become takes its own.
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
    private final Sink sink;
    private final TxRegistry.Gate gate;
    private final Function<String, QueryKind> kinds;
    private final Demotion demotion;
    private State state = DEFERRED;

    GroupedTransaction(TransactionGroups groups, Sink sink, TxRegistry.Gate gate, Function<String, QueryKind> kinds,
            Demotion demotion) {
        this.groups = groups;
        this.sink = sink;
        this.gate = gate;
        this.kinds = kinds;
        this.demotion = demotion;
    }

    @Override
    public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
        if (state instanceof Deferred) {
            QueryKind kind = kinds.apply(cypher);
            state = kind == QueryKind.READ || kind == QueryKind.WRITE ? new Grouped(groups.member()) : real();
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
            return new Real(sink.begin(true));
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
