package io.sluice.vocab;


/** A statement or transaction failed in the sink; {@link #error()} says how, in Neo4j's terms. */
public final class GraphException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient Neo4jError error;
    private final boolean commitOutcomeUnknown;

    public GraphException(Neo4jError error, Throwable cause) {
        this(error, cause, false);
    }

    public GraphException(Neo4jError error, Throwable cause, boolean commitOutcomeUnknown) {
        super(error.code() + ": " + error.message(), cause);
        this.error = error;
        this.commitOutcomeUnknown = commitOutcomeUnknown;
    }

    public Neo4jError error() {
        return error;
    }

    public boolean isTransient() {
        return error.isTransient();
    }

    /**
     * The connection was lost while the transaction was committing (remote sinks only): it may or may not have
     * committed. Running the same work again could apply it twice; only the database can tell which it was.
     */
    public boolean commitOutcomeUnknown() {
        return commitOutcomeUnknown || error.isCommitOutcomeUnknown();
    }
}
