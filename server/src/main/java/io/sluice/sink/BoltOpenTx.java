package io.sluice.sink;

import io.sluice.vocab.GraphException;
import io.sluice.vocab.StatementResult;
import java.util.Map;
import org.neo4j.driver.Session;
import org.neo4j.driver.Transaction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A driver transaction held open across calls ({@link BoltSink#begin}), on a session (and so a pooled connection)
 * of its own until it ends. The driver's blocking API is not bound to a thread; the caller orders the calls, so
 * this is not thread-safe.
 */
final class BoltOpenTx implements Sink.OpenTx {
    private static final Logger log = LoggerFactory.getLogger(BoltOpenTx.class);
    private final Session session;
    private final Transaction tx;
    private boolean finished;

    BoltOpenTx(Session session, Transaction tx) {
        this.session = session;
        this.tx = tx;
    }

    @Override
    public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
        if (finished) {
            throw EmbeddedErrors.finishedError();
        }
        try {
            return BoltResults.materialise(tx.run(cypher, BoltValues.params(params)), ResultBudget.forTransaction());
        } catch (RuntimeException e) {
            GraphException failure = BoltErrors.translate(e, false);
            rollback(); // an error inside an explicit transaction ends it, as in Neo4j's HTTP APIs
            throw failure;
        }
    }

    @Override
    public void commit() throws GraphException {
        if (finished) {
            throw EmbeddedErrors.finishedError();
        }
        finished = true;
        try {
            tx.commit();
        } catch (RuntimeException e) {
            throw BoltErrors.translate(e, true);
        } finally {
            closeQuietly(tx);
            closeQuietly(session);
        }
    }

    @Override
    public void rollback() {
        if (finished) {
            return;
        }
        finished = true;
        try {
            tx.rollback();
        } catch (RuntimeException e) {
            log.warn("rolling back an explicit transaction failed: {}", e.toString());
        } finally {
            closeQuietly(tx);
            closeQuietly(session);
        }
    }

    /** Closes a driver session or transaction; a failure to (after a commit: it is not the outcome) is logged. */
    static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            log.debug("closing a Bolt session or transaction: {}", e.toString());
        }
    }
}
