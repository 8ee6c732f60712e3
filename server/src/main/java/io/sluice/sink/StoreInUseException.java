package io.sluice.sink;

import java.nio.file.Path;

/**
 * The Neo4j store in a data directory is locked by another process (a running {@code sluice serve}, a Neo4j, an
 * import), so it cannot be opened here. Callers that can offer another way in (the importer: through the running
 * sluice over HTTP) catch this type; everyone else sees its message.
 */
public final class StoreInUseException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final Path dataDir;

    StoreInUseException(Path dataDir, Throwable cause) {
        super("the Neo4j store in " + dataDir + " is in use by another process: " + cause.getMessage(), cause);
        this.dataDir = dataDir;
    }

    public Path dataDir() {
        return dataDir;
    }
}
