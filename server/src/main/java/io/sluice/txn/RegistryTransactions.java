package io.sluice.txn;

import io.sluice.config.Access;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.StatementResult;
import io.sluice.write.Caller;
import io.sluice.write.ExplicitTransactions;
import io.sluice.write.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link ExplicitTransactions} over a {@link TxRegistry}: each request holds its transaction exclusively while it
 * runs (a second request at once is refused, as Neo4j does), and releasing it restarts its idle clock. A user who
 * may send only templates gets none; a read-only user gets read transactions. Thread-safe.
 */
public final class RegistryTransactions implements ExplicitTransactions {
    private final TxRegistry registry;

    public RegistryTransactions(TxRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Step open(List<Statement> statements, Caller caller) throws GraphException {
        if (caller.access() == Access.TEMPLATES) {
            throw new GraphException(new Neo4jError(Neo4jStatus.Security.FORBIDDEN,
                    "this user may send the named templates only (/db/{db}/write/{template}), not Cypher"), null);
        }
        TxRegistry.Opened opened = registry.open(caller.access() != Access.READ, caller.owner());
        if (statements.isEmpty()) {
            return new Step(List.of(), null, opened.id(), opened.expires());
        }
        return run(opened.id(), statements, caller);
    }

    @Override
    public Step run(String id, List<Statement> statements, Caller caller) throws GraphException {
        try (TxRegistry.Held held = registry.acquire(id, caller.owner())) {
            return runIn(held, statements);
        }
    }

    @Override
    public Step commit(String id, List<Statement> statements, Caller caller) throws GraphException {
        try (TxRegistry.Held held = registry.acquire(id, caller.owner())) {
            Step ran = runIn(held, statements);
            if (ran.failed()) {
                return ran;
            }
            try {
                held.commit();
            } catch (GraphException e) {
                return new Step(ran.results(), e.error(), id, ran.expires());
            }
            return ran;
        }
    }

    /** Runs each statement until one fails, which rolls the transaction back and ends the step. */
    private static Step runIn(TxRegistry.Held held, List<Statement> statements) {
        List<StatementResult> results = new ArrayList<>(statements.size());
        for (Statement s : statements) {
            try {
                results.add(held.run(s.cypher(), s.params()));
            } catch (GraphException e) {
                return new Step(results, e.error(), held.id(), held.expires());
            }
        }
        return new Step(results, null, held.id(), held.expires());
    }

    @Override
    public void rollback(String id, Caller caller) throws GraphException {
        registry.rollback(id, caller.owner());
    }

    @Override
    public boolean isNotFound(Neo4jError e) {
        return registry.ids().isNotFound(e);
    }
}
