package io.sluice.vocab;


/** A statement or transaction failed in the sink; {@link #error()} says how, in Neo4j's terms. */
public final class GraphException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient Neo4jError error;
    private final boolean commitOutcomeUnknown;
    private final transient StatementResult partial;

    public GraphException(Neo4jError error, Throwable cause) {
        this(error, cause, false);
    }

    public GraphException(Neo4jError error, Throwable cause, boolean commitOutcomeUnknown) {
        this(error, cause, commitOutcomeUnknown, null);
    }

    private GraphException(Neo4jError error, Throwable cause, boolean commitOutcomeUnknown,
            StatementResult partial) {
        super(error.code() + ": " + error.message(), cause);
        this.error = error;
        this.commitOutcomeUnknown = commitOutcomeUnknown;
        this.partial = partial;
    }

    /**
     * The same failure of a statement that had produced {@code partial} (its columns and the rows before the
     * failure) when it failed at run time: what Neo4j streams to its client before the error.
     */
    public GraphException withPartial(StatementResult partial) {
        return new GraphException(error, getCause(), commitOutcomeUnknown, partial);
    }

    /** The statement's columns and rows before it failed, when it failed while its rows were read; else null. */
    public StatementResult partial() {
        return partial;
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
