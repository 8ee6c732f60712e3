package io.sluice.bench;

import io.sluice.time.Time;
import io.sluice.bench.Scenario.RowSource;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.write.Template;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The limit: the scenario's rows in {@code UNWIND $rows AS row <cypher>} transactions of
 * {@link BenchMode#RAW_BATCH_ROWS} rows, one thread, straight into the sink: no HTTP, no sluice write path. Until
 * the window's end, or after {@code limit} rows (the last transaction smaller), whichever comes first: the sources
 * bench ({@link SourcesBench}) applies exactly the rows it gave the topic. Owns one named platform thread.
 */
final class RawLoad implements Load {
    private static final Logger log = LoggerFactory.getLogger(RawLoad.class);
    private static final Duration JOIN_MARGIN = Duration.ofSeconds(60);

    private final Sink sink;
    private final String unwindCypher;
    private final RowSource rows;
    private final Time time;
    private final long limit;
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private Thread thread;
    private Window window;

    RawLoad(Sink sink, Template template, RowSource rows, Time time) {
        this(sink, template, rows, time, Long.MAX_VALUE);
    }

    /** {@code limit}: the rows to apply at most (then the loop stops before the window's end). */
    RawLoad(Sink sink, Template template, RowSource rows, Time time, long limit) {
        this.sink = sink;
        this.unwindCypher = template.unwindCypher();
        this.rows = rows;
        this.time = time;
        this.limit = limit;
    }

    @Override
    public void start(Tally tally) {
        window = tally.window();
        Tally.Client counts = tally.newClient();
        thread = Thread.ofPlatform().name("sluice-bench-raw").start(() -> loop(counts));
    }

    /** Whether its thread has stopped (its rows all sent, or the window over). */
    boolean finished() {
        return thread != null && !thread.isAlive();
    }

    @Override
    public void awaitStop() throws InterruptedException {
        long leftMillis = (window.end() - time.nanos()) / 1_000_000 + JOIN_MARGIN.toMillis();
        thread.join(Math.max(1, leftMillis));
        if (thread.isAlive()) {
            log.warn("raw load still running {} after the end; interrupting it", JOIN_MARGIN);
            thread.interrupt();
            thread.join(Duration.ofSeconds(10).toMillis());
        }
        String err = firstError.get();
        if (err != null) {
            log.warn("raw transactions failed; the first: {}", err);
        }
    }

    private void loop(Tally.Client counts) {
        long taken = 0;
        while (!Thread.currentThread().isInterrupted() && time.nanos() < window.end() && taken < limit) {
            int n = (int) Math.min(BenchMode.RAW_BATCH_ROWS, limit - taken);
            List<Map<String, Object>> batch = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                batch.add(rows.next());
            }
            taken += n;
            long start = time.nanos();
            int status;
            try {
                sink.inTransaction(tx -> {
                    tx.runDiscarding(unwindCypher, Map.of(Template.ROWS_PARAM, batch));
                    return null;
                });
                status = 200;
            } catch (GraphException e) {
                // counted as the HTTP API would answer it: transient 503, anything else 500
                status = e.isTransient() ? 503 : 500;
                firstError.compareAndSet(null, e.getMessage());
            }
            if (!counts.record(status, batch.size(), start, time.nanos())) {
                return;
            }
        }
    }
}
