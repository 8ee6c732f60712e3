package io.sluice.support;

import io.sluice.vocab.QueryKind;
import io.sluice.vocab.TxConfig;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.StatementResult;
import java.time.Duration;
import java.util.Map;

/** A {@link Sink} that passes everything to a real one; tests override what they want to break. */
public class ForwardingSink implements Sink {
    protected final Sink real;

    public ForwardingSink(Sink real) {
        this.real = real;
    }

    @Override
    public Warmed warmUp(java.util.function.BooleanSupplier stop) throws GraphException {
        return real.warmUp(stop);
    }

    /** {@link Sink}'s own warm-up (Cypher scans, as over Bolt), whatever the real sink does. */
    public Warmed warmUpByCypher(java.util.function.BooleanSupplier stop) throws GraphException {
        return Sink.super.warmUp(stop);
    }

    @Override
    public <T> T inTransaction(TxWork<T> work) throws GraphException {
        return real.inTransaction(work);
    }

    @Override
    public <T> T inTransaction(TxWork<T> work, TxConfig config) throws GraphException {
        return real.inTransaction(work, config);
    }

    @Override
    public <T> T inReadTransaction(TxWork<T> work) throws GraphException {
        return real.inReadTransaction(work);
    }

    @Override
    public <T> T inReadTransaction(TxWork<T> work, TxConfig config) throws GraphException {
        return real.inReadTransaction(work, config);
    }

    @Override
    public OpenTx begin(boolean write, TxConfig config) throws GraphException {
        return real.begin(write, config);
    }

    @Override
    public StatementResult runImplicit(String cypher, Map<String, Object> params) throws GraphException {
        return real.runImplicit(cypher, params);
    }

    @Override
    public QueryKind classify(String cypher) throws GraphException {
        return real.classify(cypher);
    }

    @Override
    public String neo4jVersion() {
        return real.neo4jVersion();
    }

    @Override
    public String describe() {
        return real.describe();
    }

    @Override
    public boolean isAvailable() {
        return real.isAvailable();
    }

    @Override
    public int maxOpenTransactions() {
        return real.maxOpenTransactions();
    }

    @Override
    public void close() {}
}
