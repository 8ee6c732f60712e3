package io.sluice.sink;

import io.sluice.vocab.Counter;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.StatementResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.QueryStatistics;
import org.neo4j.graphdb.Result;
import org.neo4j.internal.kernel.api.security.LoginContext;
import org.neo4j.kernel.api.KernelTransaction;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

/**
 * The embedded Neo4j's results as sluice's, detached from their transaction ({@link EmbeddedSink}'s;
 * {@link BoltResults} for Bolt's), and the statements run whole: an implicit transaction, its result read within
 * the bound on its size.
 */
final class EmbeddedResults {
    private EmbeddedResults() {}

    /** One statement as an implicit transaction of {@code on}, its result materialised within the bound. */
    static StatementResult runWhole(GraphDatabaseService on, String cypher, Map<String, Object> params)
            throws GraphException {
        try {
            ResultBudget budget = ResultBudget.draining();
            StatementResult r = on.executeTransactionally(cypher, Values.embeddedParams(params),
                    result -> materialise(result, budget));
            if (budget.exceeded()) {
                throw ResultBudget.ranButTooLarge(ResultBudget.MAX_VALUES);
            }
            return r;
        } catch (RuntimeException e) {
            throw EmbeddedErrors.translate(e);
        }
    }

    /** As {@link #runWhole}, on {@code system} in {@code login}'s security context. */
    static StatementResult runWhole(GraphDatabaseAPI system, String cypher, Map<String, Object> params,
            LoginContext login) throws GraphException {
        try {
            ResultBudget budget = ResultBudget.draining();
            StatementResult r;
            try (var tx = system.beginTransaction(KernelTransaction.Type.IMPLICIT, login)) {
                try (var result = tx.execute(cypher, Values.embeddedParams(params))) {
                    r = materialise(result, budget);
                }
                tx.commit();
            }
            if (budget.exceeded()) {
                throw ResultBudget.ranButTooLarge(ResultBudget.MAX_VALUES);
            }
            return r;
        } catch (RuntimeException e) {
            throw EmbeddedErrors.translate(e);
        }
    }

    /**
     * The result, its rows detached and counted against {@code budget} (which says what happens past it). A failure
     * while the rows are read (a runtime error: {@code 10 / 0}) is thrown as {@link FailedWhileRead}, with the rows
     * read before it, which {@link EmbeddedErrors#translate} keeps.
     */
    static StatementResult materialise(Result r, ResultBudget budget) {
        List<String> columns = r.columns();
        List<List<Object>> rows = new ArrayList<>();
        try {
            while (r.hasNext()) {
                Map<String, Object> row = r.next();
                if (budget.keepsRows()) {
                    List<Object> values = new ArrayList<>(columns.size());
                    for (String c : columns) {
                        values.add(Values.detach(row.get(c)));
                    }
                    budget.add(rows, values);
                }
            }
        } catch (ResultBudget.Exceeded e) {
            throw e;
        } catch (RuntimeException e) {
            throw new FailedWhileRead(e, new StatementResult(columns, rows, Map.of()));
        }
        return new StatementResult(columns, rows, counters(r.getQueryStatistics()), EmbeddedSummaries.of(r));
    }

    static Map<String, Object> counters(QueryStatistics s) {
        return Counter.read(c -> switch (c) {
            case CONTAINS_UPDATES -> s.containsUpdates();
            case NODES_CREATED -> s.getNodesCreated();
            case NODES_DELETED -> s.getNodesDeleted();
            case PROPERTIES_SET -> s.getPropertiesSet();
            case RELATIONSHIPS_CREATED -> s.getRelationshipsCreated();
            case RELATIONSHIP_DELETED -> s.getRelationshipsDeleted();
            case LABELS_ADDED -> s.getLabelsAdded();
            case LABELS_REMOVED -> s.getLabelsRemoved();
            case INDEXES_ADDED -> s.getIndexesAdded();
            case INDEXES_REMOVED -> s.getIndexesRemoved();
            case CONSTRAINTS_ADDED -> s.getConstraintsAdded();
            case CONSTRAINTS_REMOVED -> s.getConstraintsRemoved();
            case CONTAINS_SYSTEM_UPDATES -> s.containsSystemUpdates();
            case SYSTEM_UPDATES -> s.getSystemUpdates();
        });
    }
}
