package io.sluice.importer;

import io.sluice.online.OnlineImport;
import io.sluice.time.Time;
import java.io.Console;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * Shows an import's progress: rows done, rows/s, ETA and rejected rows, per phase. On a terminal, a progress bar
 * (me.tongfei progressbar) per phase; otherwise a plain line per interval, for logs and CI:
 * <pre>
 * import nodes: 1,234,000 of ~2,000,000 rows (61.7%), 152,300 rows/s, ETA 5 s, rejected 3
 * </pre>
 * Polls a {@link Sample} supplier on a thread of its own ({@code sluice-import-progress}), started here and
 * stopped by {@link #close()}, which prints a last line (plain output) or completes the bar. A failing poll
 * is reported and the next one still runs. The offline path feeds it the importer's stages; {@link #online}
 * adapts it to the online engine's status.
 */
public final class ImportProgress implements AutoCloseable {

    /**
     * Where an import is.
     *
     * @param phase    what is being done ({@code nodes}, {@code relationships}, {@code (1/4) Node import})
     * @param done     units done in this phase
     * @param total    units in this phase, an estimate; 0 when unknown
     * @param unit     what is counted ({@code rows}, {@code %})
     * @param rejected rejected rows so far (whole import)
     */
    record Sample(String phase, long done, long total, String unit, long rejected) {}

    private final Supplier<Sample> source;
    private final PrintStream err;
    private final Time time;
    private final boolean terminal;
    private final long intervalNanos;
    private final ScheduledExecutorService timer;
    private String phase;
    private long phaseStartNanos;
    private long phaseStartDone;
    private long lastLineNanos;
    private ProgressBar bar;

    private ImportProgress(Supplier<Sample> source, boolean terminal, PrintStream err, Duration interval, Time time) {
        this.source = source;
        this.terminal = terminal;
        this.err = err;
        this.time = time;
        this.intervalNanos = interval.toNanos();
        this.timer = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("sluice-import-progress").daemon(true).factory());
    }

    static ImportProgress start(Supplier<Sample> source, boolean terminal, PrintStream err, Duration interval, Time time) {
        ImportProgress p = new ImportProgress(source, terminal, err, interval, time);
        long every = terminal ? 250 : Math.max(50, Math.min(1000, interval.toMillis()));
        p.timer.scheduleAtFixedRate(p::safeTick, every, every, TimeUnit.MILLISECONDS);
        return p;
    }

    /**
     * The display of an online import's progress, in rows ({@link OnlineImport#showing}): started when the import
     * starts reading, closed after its last batch.
     */
    public static Function<Supplier<OnlineImport.Status>, Runnable> online(boolean terminal, PrintStream err,
            Duration interval, Time time) {
        return status -> start(() -> {
            OnlineImport.Status s = status.get();
            return s == null ? null : new Sample(s.phase(), s.done(), s.total(), "rows", s.rejected());
        }, terminal, err, interval, time)::close;
    }

    /** Whether standard output is an interactive terminal (JDK 22+ can tell a redirected console apart). */
    static boolean isTerminal() {
        Console c = System.console();
        if (c == null) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(c);
        } catch (ReflectiveOperationException e) {
            return true; // JDK 21: a console exists only for a terminal
        }
    }

    private void safeTick() {
        try {
            tick(false);
        } catch (RuntimeException e) {
            err.println("import: progress failed: " + e);
        }
    }

    private synchronized void tick(boolean last) {
        Sample s = source.get();
        if (s == null) {
            return;
        }
        long now = time.nanos();
        if (!s.phase().equals(phase)) {
            if (phase != null && !terminal && !last) {
                line(s, now);
            }
            closeBar();
            phase = s.phase();
            phaseStartNanos = now;
            phaseStartDone = s.done();
            lastLineNanos = now;
        }
        if (terminal) {
            bar(s);
        } else if (last || now - lastLineNanos >= intervalNanos) {
            line(s, now);
            lastLineNanos = now;
        }
    }

    private void bar(Sample s) {
        if (bar == null) {
            bar = new ProgressBarBuilder().setTaskName("import " + s.phase()).setInitialMax(Math.max(s.total(), 0))
                    .setUnit(" " + s.unit(), 1).setStyle(ProgressBarStyle.COLORFUL_UNICODE_BLOCK).showSpeed()
                    .setUpdateIntervalMillis(250).setConsumer(new ConsoleProgressBarConsumer(err)).build();
        }
        if (s.total() > 0) {
            bar.maxHint(Math.max(s.total(), s.done()));
        }
        bar.stepTo(s.done());
        bar.setExtraMessage(s.rejected() > 0 ? "rejected " + s.rejected() : "");
    }

    private void line(Sample s, long now) {
        err.println(format(s, (now - phaseStartNanos) / 1e9, s.done() - phaseStartDone));
    }

    /** The plain progress line. */
    static String format(Sample s, double seconds, long doneInPhase) {
        double rate = seconds > 0 ? doneInPhase / seconds : 0;
        StringBuilder b = new StringBuilder("import ").append(s.phase()).append(": ")
                .append(String.format(Locale.ROOT, "%,d", s.done()));
        if (s.total() > 0) {
            b.append(String.format(Locale.ROOT, " of ~%,d %s (%.1f%%)", s.total(), s.unit(),
                    100.0 * Math.min(s.done(), s.total()) / s.total()));
        } else {
            b.append(' ').append(s.unit());
        }
        b.append(String.format(Locale.ROOT, ", %,.0f %s/s", rate, s.unit()));
        if (s.total() > 0 && rate > 0 && s.done() < s.total()) {
            b.append(", ETA ").append(eta((s.total() - s.done()) / rate));
        }
        return b.append(", rejected ").append(s.rejected()).toString();
    }

    static String eta(double seconds) {
        long s = Math.round(seconds);
        return s < 60 ? s + " s" : s < 3600 ? (s / 60) + " min " + (s % 60) + " s" : (s / 3600) + " h " + (s % 3600 / 60) + " min";
    }

    private void closeBar() {
        if (bar != null) {
            bar.close();
            bar = null;
        }
    }

    /** Stops polling and shows where the import ended. */
    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            tick(true);
        } catch (RuntimeException e) {
            err.println("import: progress failed: " + e);
        }
        closeBar();
    }
}
