package io.sluice.sink;

/** A statement or transaction failed in the sink; {@link #error()} says how, in Neo4j's terms. */
public final class SinkException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient Neo4jError error;

    public SinkException(Neo4jError error, Throwable cause) {
        super(error.code() + ": " + error.message(), cause);
        this.error = error;
    }

    public Neo4jError error() {
        return error;
    }

    public boolean isTransient() {
        return error.isTransient();
    }
}
