package io.sluice.gateway;

import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warm-up, on a thread of its own, {@code sluice-warmup}, one warm-up at a time: reads the database into Neo4j's
 * page cache ({@link Sink#warmUp}), at start (config {@code warmup.on_start}) or when asked
 * ({@code POST /db/{db}/warmup}); and at start, after that, the write path's {@link Rehearsal} (config
 * {@code warmup.write_path}: the JIT compiles the path before the first client's write needs it). While it runs,
 * {@code /health} says WARMING (503), so a load balancer sends nothing yet; writes that come anyway are taken as
 * usual (only slower). A step that fails is logged and ends: health does not stay WARMING, an unwarmed database
 * is still a working one.
 *
 * <p>Owns its thread; {@link #close} asks the sink to stop between steps and waits up to 30 s. Thread-safe.
 */
public final class Warmer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Warmer.class);

    /** Where the last warm-up stands. */
    public enum State { NONE, WARMING, DONE, FAILED }

    /** The write path's warm-up at start: runs until done or {@code stop} says so; what it did, for /health. */
    @FunctionalInterface
    public interface Rehearsal {
        Map<String, Object> run(BooleanSupplier stop) throws Exception;
    }

    private final Sink sink;
    private final Time time;
    private final Rehearsal rehearsal;
    private volatile boolean closed;
    // guarded by this
    private State state = State.NONE;
    private Instant started;
    private long tookMillis = -1;
    private Sink.Warmed result;
    private String error;
    private Map<String, Object> rehearsed;
    private Thread thread;

    public Warmer(Sink sink, Time time) {
        this(sink, time, null);
    }

    /** {@code rehearsal}: the write path's warm-up {@link #startOnStart} runs after the page cache's; null: none. */
    public Warmer(Sink sink, Time time, Rehearsal rehearsal) {
        this.sink = sink;
        this.time = time;
        this.rehearsal = rehearsal;
    }

    /** Starts reading the page cache unless a warm-up runs (or this is closed); true when this call started it. */
    public synchronized boolean start() {
        return start(true, false);
    }

    /**
     * The warm-up at start: the page cache's if {@code pages}, then the rehearsal (if this warmer has one); nothing
     * (false) when neither is to run.
     */
    public synchronized boolean startOnStart(boolean pages) {
        return (pages || rehearsal != null) && start(pages, rehearsal != null);
    }

    private boolean start(boolean pages, boolean rehearse) {
        if (closed || state == State.WARMING) {
            return false;
        }
        state = State.WARMING;
        started = time.now();
        tookMillis = -1;
        result = null;
        error = null;
        if (rehearse) {
            rehearsed = null; // a page-cache warm-up on demand keeps what the start's rehearsal did, for /health
        }
        thread = Thread.ofPlatform().name("sluice-warmup").daemon(true).start(() -> {
            long t0 = time.nanos();
            boolean ok = false;
            try { // an Error too must end WARMING, or /health would say 503 for good
                ok = (!pages || readPages()) & (!rehearse || closed || rehearse());
            } finally {
                synchronized (this) {
                    tookMillis = (time.nanos() - t0) / 1_000_000;
                    state = ok ? State.DONE : State.FAILED;
                }
            }
        });
        return true;
    }

    /** Runs the rehearsal; false when it failed (logged, and said in {@link #describe}). */
    private boolean rehearse() {
        long t0 = time.nanos();
        try {
            Map<String, Object> r = rehearsal.run(() -> closed);
            synchronized (this) {
                rehearsed = r;
            }
            return true;
        } catch (Exception | LinkageError e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            long ms = (time.nanos() - t0) / 1_000_000;
            synchronized (this) {
                rehearsed = Map.of("error", String.valueOf(e.getMessage()), "took_ms", ms);
            }
            log.warn("the write path's rehearsal failed after {} ms; health says UP without it", ms, e);
            return false;
        }
    }

    /** Reads the page cache; false when that failed (logged, and said in {@link #describe}). */
    private boolean readPages() {
        long t0 = time.nanos();
        log.info("warm-up started: reading {} into Neo4j's page cache", sink.describe());
        try {
            Sink.Warmed w = sink.warmUp(() -> closed);
            long ms = (time.nanos() - t0) / 1_000_000;
            synchronized (this) {
                result = w;
            }
            log.info("warm-up done in {} ms{}: {} ({} files, {} pages{})", ms, closed ? " (cut short by stopping)" : "",
                    w.how(), w.files(), w.pages(), w.bytes() > 0 ? String.format(Locale.ROOT, ", %.1f MiB",
                    w.bytes() / 1048576.0) : "");
            return true;
        } catch (GraphException | RuntimeException e) {
            long ms = (time.nanos() - t0) / 1_000_000;
            synchronized (this) {
                error = e.getMessage();
            }
            log.warn("warm-up failed after {} ms: {}; health says UP without it", ms, e.getMessage());
            return false;
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
        if (rehearsed != null) {
            d.put("write_path", rehearsed);
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
