package io.sluice.sink;

import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.StatementResult;
import java.util.Map;
import org.neo4j.graphdb.QueryExecutionType;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedded transaction held open across calls ({@link EmbeddedSink#begin}). Neo4j's embedded
 * {@link Transaction} is not bound to the thread that began it (since 4.0; {@code OpenTxTest} uses one
 * from a second thread), so calls run on the caller's thread; the caller orders them.
 */
final class EmbeddedOpenTx implements Sink.OpenTx {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedOpenTx.class);
    static final String ACCESS_MODE = Neo4jStatus.Statement.ACCESS_MODE;

    private final Transaction tx;
    private final boolean write;
    private boolean finished;

    EmbeddedOpenTx(Transaction tx, boolean write) {
        this.tx = tx;
        this.write = write;
    }

    @Override
    public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
        if (finished) {
            throw EmbeddedErrors.finishedError();
        }
        GraphException failure;
        try (Result r = tx.execute(cypher, Values.embeddedParams(params))) {
            QueryExecutionType type = r.getQueryExecutionType();
            if (!write && !type.isExplained() && writes(type.queryType())) {
                // as a Bolt READ session on a server refuses it (the plan's type, before a row is read); an EXPLAIN
                // runs nothing, and Neo4j plans it in a read transaction too
                failure = new GraphException(new Neo4jError(ACCESS_MODE, "Writing in read access mode not allowed."),
                        null);
            } else {
                return EmbeddedResults.materialise(r, ResultBudget.forTransaction());
            }
        } catch (RuntimeException e) {
            failure = EmbeddedErrors.translate(e);
        }
        rollback(); // an error inside an explicit transaction ends it, as in Neo4j's HTTP APIs
        throw failure;
    }

    @Override
    public void commit() throws GraphException {
        if (finished) {
            throw EmbeddedErrors.finishedError();
        }
        finished = true;
        try (tx) {
            tx.commit();
        } catch (RuntimeException e) {
            throw EmbeddedErrors.translate(e);
        }
    }

    @Override
    public void rollback() {
        if (finished) {
            return;
        }
        finished = true;
        try (tx) {
            tx.rollback();
        } catch (RuntimeException e) {
            log.warn("rolling back an explicit transaction failed: {}", e.toString());
        }
    }

    private static boolean writes(QueryExecutionType.QueryType type) {
        return switch (type) {
            case READ_ONLY, DBMS -> false;
            case READ_WRITE, WRITE, SCHEMA_WRITE -> true;
        };
    }
}
