package io.sluice.gateway;

import io.sluice.sink.Sink;
import io.sluice.sink.SinkException;
import io.sluice.time.Time;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warm-up: reads the database into Neo4j's page cache ({@link Sink#warmUp}) on a thread of its own,
 * {@code sluice-warmup}, one warm-up at a time, at start (config {@code warmup.on_start}) or when asked
 * ({@code POST /db/{db}/warmup}). While it runs, {@code /health} says WARMING (503), so a load balancer sends
 * nothing yet; writes that come anyway are taken as usual (only slower). A warm-up that fails is logged and ends:
 * health does not stay WARMING, an unwarmed database is still a working one.
 *
 * <p>Owns its thread; {@link #close} asks the sink to stop between steps and waits up to 30 s. Thread-safe.
 */
public final class Warmer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Warmer.class);

    /** Where the last warm-up stands. */
    public enum State { NONE, WARMING, DONE, FAILED }

    private final Sink sink;
    private final Time time;
    private volatile boolean closed;
    // guarded by this
    private State state = State.NONE;
    private Instant started;
    private long tookMillis = -1;
    private Sink.Warmed result;
    private String error;
    private Thread thread;

    public Warmer(Sink sink, Time time) {
        this.sink = sink;
        this.time = time;
    }

    /** Starts a warm-up unless one runs (or this is closed); true when this call started it. */
    public synchronized boolean start() {
        if (closed || state == State.WARMING) {
            return false;
        }
        state = State.WARMING;
        started = time.now();
        tookMillis = -1;
        result = null;
        error = null;
        thread = Thread.ofPlatform().name("sluice-warmup").daemon(true).start(this::run);
        return true;
    }

    private void run() {
        long t0 = time.nanos();
        log.info("warm-up started: reading {} into Neo4j's page cache", sink.describe());
        try {
            Sink.Warmed w = sink.warmUp(() -> closed);
            long ms = (time.nanos() - t0) / 1_000_000;
            synchronized (this) {
                result = w;
                tookMillis = ms;
                state = State.DONE;
            }
            log.info("warm-up done in {} ms{}: {} ({} files, {} pages{})", ms, closed ? " (cut short by stopping)" : "",
                    w.how(), w.files(), w.pages(), w.bytes() > 0 ? String.format(Locale.ROOT, ", %.1f MiB",
                    w.bytes() / 1048576.0) : "");
        } catch (SinkException | RuntimeException e) {
            long ms = (time.nanos() - t0) / 1_000_000;
            synchronized (this) {
                error = e.getMessage();
                tookMillis = ms;
                state = State.FAILED;
            }
            log.warn("warm-up failed after {} ms: {}; health says UP without it", ms, e.getMessage());
        }
    }

    /** Whether a warm-up runs now. */
    public synchronized boolean warming() {
        return state == State.WARMING;
    }

    /** For /health and the warm-up endpoint: state, start, duration, and what was read or what failed. */
    public synchronized Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("state", state.name());
        if (started != null) {
            d.put("started", started.toString());
        }
        if (tookMillis >= 0) {
            d.put("took_ms", tookMillis);
        }
        if (result != null) {
            d.put("how", result.how());
            d.put("files", result.files());
            d.put("pages", result.pages());
            d.put("bytes", result.bytes());
        }
        if (error != null) {
            d.put("error", error);
        }
        return d;
    }

    /** Stops a warm-up in progress (between steps) and waits for it, at most 30 s. */
    @Override
    public void close() {
        closed = true;
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null) {
            try {
                if (!t.join(Duration.ofSeconds(30))) {
                    log.warn("the warm-up did not stop within 30 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
