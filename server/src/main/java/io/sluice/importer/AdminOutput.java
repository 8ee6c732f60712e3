package io.sluice.importer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what Neo4j's importer prints, line by line: its stages ({@code (1/4) Node import}), the estimated count
 * of each stage, its 5% progress steps, and the final {@code Imported:} counts. Every line is also copied to a
 * log (and, verbose, to the terminal); the last lines are kept for the error message when the import fails.
 *
 * <p>Written by the importer's threads, read by the progress thread: the fields it publishes are volatile and
 * each is written by one writer.
 */
final class AdminOutput extends OutputStream {
    private static final Pattern STAGE = Pattern.compile("^\\((\\d+)/(\\d+)\\) (.+?) \\d{4}-\\d{2}-\\d{2}.*");
    private static final Pattern ESTIMATE = Pattern.compile("^\\s+Estimated number of (nodes|relationships): ([\\d.]+) ?([kMGT]?)\\s*$");
    private static final Pattern PERCENT = Pattern.compile("\\s(\\d{1,3})% \u2206");
    private static final Pattern IMPORTED = Pattern.compile("^\\s+(\\d+) (nodes|relationships|properties)\\s*$");
    private static final int KEEP = 40;

    private final PrintStream log;
    private final PrintStream echo;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
    private final Deque<String> last = new ArrayDeque<>();
    private volatile String stage = "starting";
    private volatile long estimate;
    private volatile int percent;
    private volatile boolean stageEstimated;
    private volatile long nodes = -1;
    private volatile long relationships = -1;
    private volatile long properties = -1;

    /** @param echo where to copy lines as well (verbose), or null */
    AdminOutput(PrintStream log, PrintStream echo) {
        this.log = log;
        this.echo = echo;
    }

    @Override
    public synchronized void write(int b) {
        if (b == '\n') {
            onLine(line.toString(StandardCharsets.UTF_8));
            line.reset();
        } else {
            line.write(b);
        }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            write(b[i]);
        }
    }

    @Override
    public synchronized void flush() throws IOException {
        log.flush();
    }

    void onLine(String text) {
        log.println(text);
        if (echo != null) {
            echo.println(text);
        }
        last.addLast(text);
        if (last.size() > KEEP) {
            last.removeFirst();
        }
        Matcher m;
        if ((m = STAGE.matcher(text)).matches()) {
            stage = "(" + m.group(1) + "/" + m.group(2) + ") " + m.group(3);
            percent = 0;
            estimate = 0;
            stageEstimated = false;
        } else if (!stageEstimated && (m = ESTIMATE.matcher(text)).matches()) {
            estimate = scaled(m.group(2), m.group(3));
            stageEstimated = true;
        } else if ((m = PERCENT.matcher(text)).find()) {
            percent = Integer.parseInt(m.group(1));
        } else if ((m = IMPORTED.matcher(text)).matches()) {
            long n = Long.parseLong(m.group(1));
            switch (m.group(2)) {
                case "nodes" -> nodes = n;
                case "relationships" -> relationships = n;
                default -> properties = n;
            }
        }
    }

    private static long scaled(String number, String unit) {
        double v = Double.parseDouble(number);
        int shift = "kMGT".indexOf(unit.isEmpty() ? ' ' : unit.charAt(0));
        return Math.round(v * (shift < 0 ? 1 : Math.pow(1000, shift + 1)));
    }

    /** Where the importer is, in rows when its stage gave an estimate, else in percent. */
    ImportProgress.Sample sample(long rejected) {
        long est = estimate;
        int pct = percent;
        if (est > 0) {
            return new ImportProgress.Sample(stage, est * pct / 100, est, "rows", rejected);
        }
        return new ImportProgress.Sample(stage, pct, 100, "%", rejected);
    }

    long nodes() {
        return nodes;
    }

    long relationships() {
        return relationships;
    }

    long properties() {
        return properties;
    }

    synchronized List<String> lastLines() {
        return List.copyOf(last);
    }
}
