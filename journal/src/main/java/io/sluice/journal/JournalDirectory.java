package io.sluice.journal;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Where a {@link Journal} comes from: a directory of segment files. A class of its own, not a static factory on
 * {@link Journal}, so that the contract does not depend on its implementation (which depends on the contract).
 */
public final class JournalDirectory {
    private JournalDirectory() {}

    /**
     * Opens (creating if absent) the journal in {@code dir}, recovering from any crash: each segment is scanned,
     * the first torn or corrupt frame and everything after it is dropped, with a warning in the log. Corrupt
     * data never makes this throw; an I/O error, or the directory being open elsewhere, does.
     */
    public static Journal open(Path dir, JournalOptions options) throws IOException {
        return SegmentedJournal.open(dir, options, SystemFileOps.INSTANCE);
    }
}
