package io.sluice.metrics;

import io.sluice.time.Time;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last minutes of this process's metrics, for the dashboard and {@code sluice status} ({@code GET /status}):
 * every {@code interval} a sample of the Prometheus text that {@code /metrics} serves, parsed, kept in a ring of
 * {@code capacity} samples (10 minutes at 1 s).
 *
 * <p>Why samples of the scrape text and not of the meters: the series a chart shows are then exactly the series
 * Prometheus scrapes, under the same names (an alert rule, a Grafana panel and the dashboard cannot disagree on a
 * name), and nothing here knows which meters exist. Kept: every {@code sluice_*} series but histogram buckets
 * ({@code _bucket}: Prometheus's to aggregate; the dashboard reads the quantile series), and
 * {@code process_cpu_usage}. Counters are kept as totals; readers take rates between samples.
 *
 * <p>Cost: a scrape of a few hundred lines and a map per second; 600 samples of ~100 series are ~60k numbers.
 *
 * <p>Owns one thread, {@code sluice-metrics-history}, started by {@link #start} and ended by {@link #close}
 * (bounded). {@link #sample} is public for tests, which drive it with a manual clock and no thread. Thread-safe.
 */
public final class History implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(History.class);
    public static final Duration INTERVAL = Duration.ofSeconds(1);
    public static final int CAPACITY = 600;

    private final Supplier<String> scrape;
    private final Time time;
    private final Duration interval;
    private final int capacity;
    private final ArrayDeque<Sample> samples = new ArrayDeque<>(); // guarded by this
    private volatile boolean closed;
    private Thread thread;

    /** One reading: its wall time in epoch milliseconds and every kept series' value. */
    private record Sample(long t, Map<String, Double> values) {}

    public History(Supplier<String> scrape, Time time, Duration interval, int capacity) {
        if (!interval.isPositive() || capacity < 1) {
            throw new IllegalArgumentException("interval must be positive and capacity >= 1");
        }
        this.scrape = scrape;
        this.time = time;
        this.interval = interval;
        this.capacity = capacity;
    }

    /** Starts sampling every {@code interval} on a thread of its own; returns this. */
    public synchronized History start() {
        if (thread != null) {
            throw new IllegalStateException("already started");
        }
        Time stoppable = time.stoppedBy(() -> closed, Duration.ofMillis(100));
        thread = Thread.ofPlatform().name("sluice-metrics-history").daemon(true).start(() -> {
            try {
                while (!closed) {
                    long next = stoppable.nanos() + interval.toNanos();
                    sample();
                    stoppable.sleep(Duration.ofNanos(next - stoppable.nanos()));
                }
            } catch (InterruptedException e) {
                // closed
            }
        });
        return this;
    }

    /** Takes one sample now: reads the scrape and keeps its series, dropping the oldest sample past capacity. */
    public void sample() {
        Map<String, Double> values;
        try {
            values = parse(scrape.get());
        } catch (RuntimeException e) { // a gauge that throws: skip this second, not the history
            log.debug("cannot sample the metrics: {}", e.toString());
            return;
        }
        long t = time.now().toEpochMilli();
        synchronized (this) {
            if (samples.size() == capacity) {
                samples.removeFirst();
            }
            samples.addLast(new Sample(t, values));
        }
    }

    /**
     * The samples taken after {@code since} (epoch milliseconds; 0 for all), as {@code /status} answers them:
     * {@code interval_ms}, {@code t} (each sample's epoch millis, oldest first) and {@code series} (each series
     * id, exactly as its line in /metrics, to its values aligned with {@code t}, null where it did not exist).
     */
    public Map<String, Object> since(long since) {
        List<Sample> picked = new ArrayList<>();
        synchronized (this) {
            for (Sample s : samples) {
                if (s.t() > since) {
                    picked.add(s);
                }
            }
        }
        Set<String> ids = new LinkedHashSet<>();
        List<Long> ts = new ArrayList<>(picked.size());
        for (Sample s : picked) {
            ids.addAll(s.values().keySet());
            ts.add(s.t());
        }
        Map<String, List<Double>> series = new LinkedHashMap<>();
        for (String id : ids) {
            List<Double> vs = new ArrayList<>(picked.size());
            for (Sample s : picked) {
                vs.add(s.values().get(id));
            }
            series.put(id, vs);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("interval_ms", interval.toMillis());
        out.put("t", ts);
        out.put("series", series);
        return out;
    }

    /** The kept series of a Prometheus text exposition: series id (name and labels as written) to value. */
    static Map<String, Double> parse(String text) {
        Map<String, Double> values = new HashMap<>();
        int start = 0;
        while (start < text.length()) {
            int end = text.indexOf('\n', start);
            end = end < 0 ? text.length() : end;
            String line = text.substring(start, end).strip();
            start = end + 1;
            if (line.isEmpty() || line.charAt(0) == '#' || !kept(line)) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            if (space <= 0) {
                continue;
            }
            String id = line.substring(0, space).strip();
            String value = line.substring(space + 1);
            int brace = id.lastIndexOf('}');
            if (brace < 0 && id.indexOf(' ') > 0) { // "name value timestamp": not written by Micrometer
                continue;
            }
            try {
                values.put(id, Double.parseDouble(value.replace("+Inf", "Infinity").replace("-Inf", "-Infinity")));
            } catch (NumberFormatException e) {
                // not a sample line
            }
        }
        return values;
    }

    private static boolean kept(String line) {
        int nameEnd = 0;
        while (nameEnd < line.length() && line.charAt(nameEnd) != '{' && line.charAt(nameEnd) != ' ') {
            nameEnd++;
        }
        String name = line.substring(0, nameEnd);
        return (name.startsWith("sluice_") && !name.endsWith("_bucket")) || name.equals("process_cpu_usage");
    }

    /** Whether its thread is alive. */
    synchronized boolean running() {
        return thread != null && thread.isAlive();
    }

    /** Stops the thread (within ~100 ms; bounded wait of 5 s). */
    @Override
    public void close() {
        closed = true;
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null) {
            try {
                t.join(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
