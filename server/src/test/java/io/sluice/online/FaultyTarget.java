package io.sluice.online;

import io.sluice.vocab.Neo4jError;
import io.sluice.write.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A target that, at its {@code failAt}-th batch write, commits it and then answers as if the connection had been
 * lost: the import sees a failure for a batch that is in fact in the database (the worst case for exactly-once).
 */
final class FaultyTarget implements Target {
    private final Target inner;
    private final int failAt;
    private final AtomicInteger writes = new AtomicInteger();

    FaultyTarget(Target inner, int failAt) {
        this.inner = inner;
        this.failAt = failAt;
    }

    @Override
    public Result write(List<Statement> statements, long bytes) throws InterruptedException {
        Result r = inner.write(statements, bytes);
        if (statements.getFirst().cypher().startsWith("UNWIND") && writes.incrementAndGet() == failAt) {
            return new Result.Failed(new Neo4jError("Neo.DatabaseError.General.UnknownError",
                    "connection lost after the commit (injected)"));
        }
        return r;
    }

    @Override
    public Result run(Statement statement) throws InterruptedException {
        return inner.run(statement);
    }

    @Override
    public java.util.Map<String, Long> transientRetries() {
        return inner.transientRetries();
    }

    @Override
    public String describe() {
        return "faulty " + inner.describe();
    }

    @Override
    public void close() {
        inner.close();
    }
}
