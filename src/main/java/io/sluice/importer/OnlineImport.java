package io.sluice.importer;

import io.sluice.batch.Ticker;
import java.io.PrintStream;

/** Online import: not yet. */
final class OnlineImport {
    private OnlineImport() {}

    static ImportSummary run(ImportOptions options, ImportOptions.Online online, PrintStream err, Ticker ticker,
            boolean terminal) {
        throw new UnsupportedOperationException("--online is not implemented yet");
    }
}
