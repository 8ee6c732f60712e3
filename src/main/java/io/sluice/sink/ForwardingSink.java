package io.sluice.sink;

import java.util.Map;

/**
 * A {@link Sink} that passes everything to a real one, for a sink that changes one thing about another (the
 * write path's rehearsal rolls every transaction back, tests break what they test); {@link #close} does not close
 * the real one, whose owner does.
 */
public class ForwardingSink implements Sink {
    protected final Sink real;

    public ForwardingSink(Sink real) {
        this.real = real;
    }

    @Override
    public Warmed warmUp(java.util.function.BooleanSupplier stop) throws SinkException {
        return real.warmUp(stop);
    }

    /** {@link Sink}'s own warm-up (Cypher scans, as over Bolt), whatever the real sink does. */
    public Warmed warmUpByCypher(java.util.function.BooleanSupplier stop) throws SinkException {
        return Sink.super.warmUp(stop);
    }

    @Override
    public <T> T inTransaction(TxWork<T> work) throws SinkException {
        return real.inTransaction(work);
    }

    @Override
    public <T> T inRolledBackTransaction(TxWork<T> work) throws SinkException {
        return real.inRolledBackTransaction(work);
    }

    @Override
    public <T> T inReadTransaction(TxWork<T> work) throws SinkException {
        return real.inReadTransaction(work);
    }

    @Override
    public OpenTx begin(boolean write) throws SinkException {
        return real.begin(write);
    }

    @Override
    public StatementResult runImplicit(String cypher, Map<String, Object> params) throws SinkException {
        return real.runImplicit(cypher, params);
    }

    @Override
    public QueryKind classify(String cypher) throws SinkException {
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

    /** Leaves the real sink open: its owner closes it. */
    @Override
    public void close() {}
}
