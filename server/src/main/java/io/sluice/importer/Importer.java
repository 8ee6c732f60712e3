package io.sluice.importer;

import io.sluice.online.OnlineImport;
import io.sluice.time.Time;
import io.sluice.write.InProcess;
import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The entry point of {@code sluice import}: a new database through Neo4j's own importer ({@link ImportOptions.Offline}),
 * or a live one through sluice's write path ({@link ImportOptions.Online}). The summary goes to {@code out},
 * progress to {@code err}.
 */
public final class Importer {
    private Importer() {}

    /** {@code sluice}: starts sluice in this process (to create the config's schema after the import). */
    public static ImportSummary offline(ImportOptions options, ImportOptions.Offline offline, InProcess.Starter sluice,
            PrintStream out, PrintStream err) throws IOException {
        ImportSummary s = new OfflineImport(options, offline, sluice, err, Time.SYSTEM, ImportProgress.isTerminal())
                .run();
        print(s, options, out);
        return s;
    }

    /**
     * Runs an online import. Ctrl-C (or SIGTERM) stops it after the statements in flight, prints where it got
     * to, and shuts an embedded database down cleanly; the same command resumes it. {@code sluice} starts sluice in
     * this process for an import into a database directory.
     */
    public static ImportSummary online(ImportOptions options, ImportOptions.Online online, InProcess.Starter sluice,
            PrintStream out, PrintStream err) throws IOException, InterruptedException {
        OnlineImport run = new OnlineImport(options.online(online), err, Time.SYSTEM).startingWith(sluice).showing(
                ImportProgress.online(ImportProgress.isTerminal(), err, options.progressInterval(), Time.SYSTEM));
        CountDownLatch finished = new CountDownLatch(1);
        Thread hook = Thread.ofPlatform().name("sluice-import-shutdown").unstarted(() -> {
            run.stop("interrupted");
            try {
                finished.await(2, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            ImportSummary s = ImportSummary.online(run.run());
            print(s, options, out);
            return s;
        } finally {
            finished.countDown(); // the summary is out: a shutdown in progress may now halt the JVM
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook is running
            }
        }
    }

    private static void print(ImportSummary s, ImportOptions options, PrintStream out) {
        out.print(s.text());
        if (s.rejectedTotal() > 0) {
            out.println("  report: " + options.reportFile());
        }
        out.flush();
    }
}
