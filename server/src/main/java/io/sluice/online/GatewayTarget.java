package io.sluice.online;

import io.sluice.config.Mode;
import io.sluice.config.SluiceConfig;
import io.sluice.sink.StoreInUseException;
import io.sluice.write.InProcess;
import io.sluice.write.Outcome;
import io.sluice.write.Statement;
import io.sluice.write.WritePath;
import io.sluice.write.WriteRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The embedded database in a sluice data directory, driven in-process through sluice's own write path
 * ({@link WritePath}): the same admission, batching, retry and failure isolation an HTTP client gets, without
 * HTTP. Owns the in-process sluice it starts (no HTTP listener, no Bolt); {@link #close} applies what is
 * admitted and shuts Neo4j down cleanly.
 */
final class GatewayTarget implements Target {
    private final InProcess server;
    private final WritePath writes;
    private final Mode mode;
    private final Path dataDir;
    private final boolean owned;

    private GatewayTarget(InProcess server, Mode mode, Path dataDir, boolean owned) {
        this.server = server;
        this.writes = server.writes();
        this.mode = mode;
        this.dataDir = dataDir;
        this.owned = owned;
    }

    /** Over a sluice someone else started and will close (the import benchmark's). */
    static GatewayTarget over(InProcess server, Path dataDir, boolean direct) {
        return new GatewayTarget(server, direct ? Mode.DIRECT : Mode.SYNC, dataDir, false);
    }

    static GatewayTarget start(InProcess.Starter starter, Path dataDir, SluiceConfig config, boolean direct) {
        try {
            return new GatewayTarget(starter.start(dataDir, config), direct ? Mode.DIRECT : Mode.SYNC, dataDir, true);
        } catch (StoreInUseException e) {
            throw new IllegalStateException("the database in " + dataDir + " is in use (is 'sluice serve' running on it? "
                    + "then import through it: --online http://HOST:PORT)", e);
        }
    }

    @Override
    public Result write(List<Statement> statements, long bytes) {
        return result(writes.execute(new WriteRequest.CypherRequest(statements, bytes), mode));
    }

    @Override
    public Result run(Statement statement) {
        return result(writes.execute(new WriteRequest.CypherRequest(List.of(statement), 0), Mode.SYNC));
    }

    private static Result result(Outcome o) {
        return switch (o) {
            case Outcome.Committed c -> new Result.Done(c.results());
            case Outcome.Failed f -> Result.of(f.error());
            case Outcome.Overloaded ov -> new Result.Busy(ov.reason(), ov.retryAfter());
            case Outcome.Accepted a -> throw new IllegalStateException("async outcome for a " + a.rows() + "-row import write");
        };
    }

    @Override
    public Map<String, Long> transientRetries() {
        return server.operations().transientRetries();
    }

    @Override
    public String describe() {
        return "the embedded database in " + dataDir;
    }

    @Override
    public void close() {
        if (owned) {
            server.close();
        }
    }
}
