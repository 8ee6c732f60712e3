package io.sluice.sink;

import io.sluice.vocab.StatementResult;

/**
 * A statement that failed while its rows were read (a runtime error: {@code 10 / 0}): the failure, and the columns
 * and rows it had produced before, which {@link EmbeddedErrors#translate} keeps on the {@code GraphException} (what
 * Neo4j streams to its client before the error).
 */
final class FailedWhileRead extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient StatementResult partial;

    FailedWhileRead(RuntimeException cause, StatementResult partial) {
        super(cause);
        this.partial = partial;
    }

    StatementResult partial() {
        return partial;
    }
}
