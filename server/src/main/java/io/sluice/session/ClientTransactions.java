package io.sluice.session;

import io.sluice.config.Access;
import io.sluice.txn.TxRegistry;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.TxConfig;
import io.sluice.write.Caller;
import io.sluice.write.ExplicitTransactions;
import io.sluice.write.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A front end's explicit transactions ({@link ExplicitTransactions}) over its {@link TxRegistry}: each request holds
 * its transaction exclusively while it runs (a second request at once is refused, as Neo4j does), and releasing it
 * restarts its idle clock. A user who may send only templates gets none; a read-only user gets read transactions.
 * With grouping on for a caller ({@link Grouping}), a write transaction is a {@link GroupedTransaction}: it joins a
 * group at its first statement. Each statement's kind comes from the write path's classifier (its cache), once, and
 * travels with the step. Thread-safe.
 */
public final class ClientTransactions implements ExplicitTransactions {
    private final TxRegistry registry;
    private final Grouping grouping;
    private final Function<String, QueryKind> kinds;

    /** Over {@code registry}, grouping as {@code grouping} says, statements classified by {@code kinds}. */
    public ClientTransactions(TxRegistry registry, Grouping grouping, Function<String, QueryKind> kinds) {
        this.registry = registry;
        this.grouping = grouping;
        this.kinds = kinds;
    }

    /** The groups and who joins them. */
    Grouping grouping() {
        return grouping;
    }

    /**
     * An HTTP client's: grouped only where grouping of all is on for its user (an HTTP client has no transaction
     * function: nothing says it retries a transaction told to).
     */
    @Override
    public Step open(List<Statement> statements, Caller caller) throws GraphException {
        return open(statements, caller, grouping.applies(caller, false) ? new Demotion(registry.time()) : null,
                TxConfig.NONE);
    }

    /**
     * Opens one for {@code caller}: a grouped one when {@code demotion} is given (the caller may join groups, and the
     * session's strikes go there), else a real Neo4j transaction with {@code config}'s timeout and metadata.
     */
    Step open(List<Statement> statements, Caller caller, Demotion demotion, TxConfig config) throws GraphException {
        if (caller.access() == Access.TEMPLATES) {
            throw new GraphException(new Neo4jError(Neo4jStatus.Security.FORBIDDEN,
                    "this user may send the named templates only (/db/{db}/write/{template}), not Cypher"), null);
        }
        TxRegistry.Opened opened = demotion != null && caller.access() == Access.CYPHER
                ? registry.register(new GroupedTransaction(grouping.groups(), registry, grouping.gate(), kinds,
                        demotion), caller.owner())
                : registry.open(caller.access() != Access.READ, caller.owner(), config);
        if (statements.isEmpty()) {
            return new Step(List.of(), null, opened.id(), opened.expires(), List.of());
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
                return new Step(ran.results(), e.error(), id, ran.expires(), ran.kinds());
            }
            return ran;
        }
    }

    /** Runs each statement until one fails, which rolls the transaction back and ends the step. */
    private Step runIn(TxRegistry.Held held, List<Statement> statements) {
        List<StatementResult> results = new ArrayList<>(statements.size());
        List<QueryKind> ran = new ArrayList<>(statements.size());
        for (Statement s : statements) {
            QueryKind kind = kinds.apply(s.cypher());
            if (kind != null) {
                ran.add(kind);
            }
            try {
                results.add(held.run(s.cypher(), s.params()));
            } catch (GraphException e) {
                return new Step(results, e.error(), held.id(), held.expires(), ran, e.partial());
            }
        }
        return new Step(results, null, held.id(), held.expires(), ran);
    }

    @Override
    public boolean isOpen(String id) {
        return registry.isOpen(id);
    }

    @Override
    public void rollback(String id, Caller caller) throws GraphException {
        registry.rollback(id, caller.owner());
    }

    @Override
    public void abandon(String id, Caller caller) throws GraphException {
        registry.abandon(id, caller.owner());
    }

    @Override
    public boolean isNotFound(Neo4jError e) {
        return registry.ids().isNotFound(e);
    }
}
