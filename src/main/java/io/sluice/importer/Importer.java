package io.sluice.importer;

import io.sluice.batch.Ticker;
import java.io.IOException;
import java.io.PrintStream;

/**
 * The entry point of {@code sluice import}: a new database through Neo4j's own importer ({@link ImportOptions.Offline}),
 * or a live one through sluice's write path ({@link ImportOptions.Online}). Progress goes to {@code err}.
 */
public final class Importer {
    private Importer() {}

    public static ImportSummary offline(ImportOptions options, ImportOptions.Offline offline, PrintStream err)
            throws IOException {
        return new OfflineImport(options, offline, err, Ticker.system(), ImportProgress.isTerminal()).run();
    }

    public static ImportSummary online(ImportOptions options, ImportOptions.Online online, PrintStream err)
            throws IOException, InterruptedException {
        return OnlineImport.run(options, online, err, Ticker.system(), ImportProgress.isTerminal());
    }
}
