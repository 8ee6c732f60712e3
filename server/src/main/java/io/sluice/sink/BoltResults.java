package io.sluice.sink;

import io.sluice.vocab.Counter;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.StatementResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.neo4j.driver.Record;
import org.neo4j.driver.Result;
import org.neo4j.driver.Session;
import org.neo4j.driver.exceptions.ClientException;
import org.neo4j.driver.exceptions.DatabaseException;
import org.neo4j.driver.summary.ResultSummary;
import org.neo4j.driver.summary.SummaryCounters;

/**
 * The driver's results read into sluice's detached {@link StatementResult}s, for {@link BoltSink}: rows counted
 * against a {@link ResultBudget}, values through {@link BoltValues}, counters by Neo4j's names.
 */
final class BoltResults {
    private BoltResults() {}

    /** One auto-commit statement in {@code s}, its result materialised within the bound on its size. */
    static StatementResult runWhole(Session s, String cypher, Map<String, Object> params) throws GraphException {
        ResultBudget budget = ResultBudget.draining();
        StatementResult r = materialise(s.run(cypher, BoltValues.params(params)), budget);
        if (budget.exceeded()) {
            throw ResultBudget.ranButTooLarge(ResultBudget.MAX_VALUES);
        }
        return r;
    }

    /**
     * As {@link EmbeddedResults#materialise}: the rows detached and counted against {@code budget}; a failure the
     * server reports while the rows are read is thrown as {@link FailedWhileRead} with the rows before it.
     */
    static StatementResult materialise(Result r, ResultBudget budget) {
        List<String> columns = r.keys();
        List<List<Object>> rows = new ArrayList<>();
        try {
            while (r.hasNext()) {
                Record record = r.next();
                if (budget.keepsRows()) {
                    List<Object> values = new ArrayList<>(columns.size());
                    for (int i = 0; i < columns.size(); i++) {
                        values.add(BoltValues.detach(record.get(i).asObject()));
                    }
                    budget.add(rows, values);
                }
            }
        } catch (ResultBudget.Exceeded e) {
            throw e;
        } catch (ClientException | DatabaseException e) { // the server failed the statement after these rows (a
            // runtime error); a lost connection or another transient failure is not one
            throw new FailedWhileRead(e, new StatementResult(columns, rows, Map.of()));
        }
        ResultSummary summary = r.consume();
        return new StatementResult(columns, rows, counters(summary.counters()), BoltSummaries.of(summary));
    }

    static Map<String, Object> counters(SummaryCounters s) {
        return Counter.read(c -> switch (c) {
            case CONTAINS_UPDATES -> s.containsUpdates();
            case NODES_CREATED -> s.nodesCreated();
            case NODES_DELETED -> s.nodesDeleted();
            case PROPERTIES_SET -> s.propertiesSet();
            case RELATIONSHIPS_CREATED -> s.relationshipsCreated();
            case RELATIONSHIP_DELETED -> s.relationshipsDeleted();
            case LABELS_ADDED -> s.labelsAdded();
            case LABELS_REMOVED -> s.labelsRemoved();
            case INDEXES_ADDED -> s.indexesAdded();
            case INDEXES_REMOVED -> s.indexesRemoved();
            case CONSTRAINTS_ADDED -> s.constraintsAdded();
            case CONSTRAINTS_REMOVED -> s.constraintsRemoved();
            case CONTAINS_SYSTEM_UPDATES -> s.containsSystemUpdates();
            case SYSTEM_UPDATES -> s.systemUpdates();
        });
    }
}
