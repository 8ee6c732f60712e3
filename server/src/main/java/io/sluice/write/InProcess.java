package io.sluice.write;

import io.sluice.config.SluiceConfig;
import java.nio.file.Path;

/**
 * A sluice running in this process over a database directory with no front end: its write path for in-process
 * clients (the online importer, the import benchmark). Started by a {@link Starter}, which the server package
 * provides and the command line hands to whoever needs one, so that those clients reach the write path through
 * this package only.
 */
public interface InProcess extends AutoCloseable {
    WritePath writes();

    Operations operations();

    /** Refuses new writes, applies what was admitted, shuts the database down. */
    @Override
    void close();

    /** Starts one over {@code dataDir} with {@code config} (the write path's rehearsal off: no client waits for it). */
    @FunctionalInterface
    interface Starter {
        InProcess start(Path dataDir, SluiceConfig config);
    }
}
