package io.sluice.gateway;

import io.sluice.sink.Neo4jError;
import io.sluice.sink.SinkException;
import io.sluice.sink.StatementResult;
import io.sluice.txn.Flavour;
import io.sluice.txn.TxRegistry;
import io.sluice.write.Access;
import io.sluice.write.ExplicitTransactions;
import io.sluice.write.Statement;

/**
 * {@link ExplicitTransactions} over a {@link TxRegistry}: each request holds its transaction exclusively while it
 * runs (a second request at once is refused, as Neo4j does), and releasing it restarts its idle clock. A user who
 * may send only templates gets none; a read-only user gets read transactions. Thread-safe.
 */
final class RegistryTransactions implements ExplicitTransactions {
    private final TxRegistry registry;
    private final Flavour flavour;

    RegistryTransactions(TxRegistry registry, Flavour flavour) {
        this.registry = registry;
        this.flavour = flavour;
    }

    @Override
    public Step open(Statement first, Access access, Object owner) throws SinkException {
        if (access == Access.TEMPLATES) {
            throw new SinkException(new Neo4jError("Neo.ClientError.Security.Forbidden",
                    "this user may send the named templates only (/db/{db}/write/{template}), not Cypher"), null);
        }
        TxRegistry.Opened opened = registry.open(access != Access.READ, owner);
        if (first == null) {
            return new Step(null, opened.id(), opened.expires());
        }
        return run(opened.id(), first, owner);
    }

    @Override
    public Step run(String id, Statement statement, Object owner) throws SinkException {
        StatementResult r;
        try (TxRegistry.Held held = registry.acquire(id, owner)) {
            r = statement == null ? null : held.run(statement.cypher(), statement.params());
        }
        return new Step(r, id, registry.expires());
    }

    @Override
    public StatementResult commit(String id, Statement last, Object owner) throws SinkException {
        try (TxRegistry.Held held = registry.acquire(id, owner)) {
            StatementResult r = last == null ? null : held.run(last.cypher(), last.params());
            held.commit();
            return r;
        }
    }

    @Override
    public void rollback(String id, Object owner) throws SinkException {
        registry.rollback(id, owner);
    }

    @Override
    public boolean isNotFound(Neo4jError e) {
        return flavour.isNotFound(e);
    }
}
