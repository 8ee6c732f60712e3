package io.sluice.gateway;

import io.sluice.apply.Applier;
import io.sluice.apply.BatchRunner;
import io.sluice.apply.BatchSizeController;
import io.sluice.apply.RetryPolicy;
import io.sluice.batch.Admission;
import io.sluice.batch.Batcher;
import io.sluice.batch.Pending;
import io.sluice.config.SluiceConfig;
import io.sluice.cypher.StatementClassifier;
import io.sluice.durable.AsyncPath;
import io.sluice.cypher.StatementClassifier.Classified;
import io.sluice.metrics.Metrics;
import io.sluice.sink.Neo4jError;
import io.sluice.sink.QueryKind;
import io.sluice.sink.Sink;
import io.sluice.sink.SinkException;
import io.sluice.sink.StatementResult;
import io.sluice.time.Jitter;
import io.sluice.time.Time;
import io.sluice.write.Mode;
import io.sluice.write.Outcome;
import io.sluice.write.Statement;
import io.sluice.write.Template;
import io.sluice.write.WritePath;
import io.sluice.write.WriteRequest;
import io.sluice.write.WriteRequest.CypherRequest;
import io.sluice.write.WriteRequest.TemplateRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;

/**
 * The write path behind the HTTP API: validates a request, classifies it, admits it against the bounds, and
 * routes it: reads and must-run-alone statements straight to the sink, {@code direct} writes in a transaction
 * of their own on the caller's thread, {@code sync} writes through the batcher to the applier.
 * Thread-safe; {@link #execute} runs on the request's virtual thread and blocks it.
 */
public final class Gateway implements WritePath, AutoCloseable {
    private final Sink sink;
    private final SluiceConfig config;
    private final Map<String, Template> templates;
    private final StatementClassifier classifier;
    private final Admission admission;
    private final List<Batcher> batchers;
    private final BatchRunner runner;
    private final List<Applier> appliers;
    private final Time time;
    private final AsyncPath async;
    private volatile boolean closing;

    public Gateway(Sink sink, SluiceConfig config, Map<String, Template> templates, Metrics metrics,
            Time time, ThreadFactory applierThreads, AsyncPath async) {
        this.sink = sink;
        this.async = async;
        this.config = config;
        this.templates = Map.copyOf(templates);
        this.time = time;
        this.classifier = new StatementClassifier(sink, 10_000);
        var a = config.admission();
        this.admission = new Admission(a.maxPendingRows(), a.maxPendingBytes().bytes(), time);
        var r = config.retry();
        var b = config.batch();
        this.runner = new BatchRunner(sink, new RetryPolicy(r.maxAttempts(), r.initialBackoff(), r.maxBackoff()),
                time, Jitter.RANDOM, metrics, config.apply().lockOrder());
        List<Batcher> bs = new ArrayList<>();
        List<Applier> as = new ArrayList<>();
        for (int i = 0; i < config.apply().appliers(); i++) {
            Batcher batcher = new Batcher(b.maxRows(), b.maxWait(), time);
            BatchSizeController sizes = b.adaptive()
                    ? new BatchSizeController(b.minRows(), b.maxRows(), b.targetCommit(), b.minRows() * 4) : null;
            bs.add(batcher);
            as.add(new Applier(batcher, runner, applierThreads, sizes, time).start());
        }
        this.batchers = List.copyOf(bs);
        this.appliers = List.copyOf(as);
    }

    /** Compiles the config's templates; a template whose Cypher does not plan is a start-up error. */
    public static Map<String, Template> compileTemplates(SluiceConfig config, Sink sink) {
        Map<String, Template> out = new LinkedHashMap<>();
        config.templates().forEach((name, tc) -> {
            Template t = Template.compile(name, tc);
            try {
                sink.classify(t.unwindCypher());
            } catch (SinkException e) {
                throw new IllegalArgumentException("template '" + name + "' does not compile: " + e.getMessage(), e);
            }
            out.put(name, t);
        });
        return out;
    }

    @Override
    public Outcome execute(WriteRequest request, Mode mode) {
        return switch (request) {
            case TemplateRequest t -> executeTemplate(t, mode);
            case CypherRequest c -> executeCypher(c, mode);
        };
    }

    private Outcome executeTemplate(TemplateRequest t, Mode mode) {
        List<Map<String, Object>> rows = t.rowList();
        for (int i = 0; i < rows.size(); i++) {
            Optional<Neo4jError> bad = t.template().validate(rows.get(i), i);
            if (bad.isPresent()) {
                return new Outcome.Failed(bad.get());
            }
        }
        return admitted(t, mode);
    }

    private Outcome executeCypher(CypherRequest c, Mode mode) {
        boolean allRead = true;
        QueryKind alone = null;
        for (Statement s : c.statements()) {
            switch (classifier.classify(s.cypher())) {
                case Classified.Invalid bad -> {
                    return new Outcome.Failed(bad.error());
                }
                case Classified.Ok ok -> {
                    for (String p : ok.parameters()) {
                        if (!s.params().containsKey(p)) {
                            return new Outcome.Failed(Neo4jError.parameterMissing("Expected parameter(s): " + p));
                        }
                    }
                    allRead &= ok.kind() == QueryKind.READ;
                    alone = ok.kind() == QueryKind.ALONE ? ok.kind() : alone;
                }
            }
        }
        if (alone != null) {
            if (c.statements().size() > 1) {
                return new Outcome.Failed(new Neo4jError("Neo.ClientError.Transaction.ForbiddenDueToTransactionType",
                        "schema commands and CALL {} IN TRANSACTIONS must be sent alone, one statement per request"));
            }
            return runAlone(c.statements().getFirst());
        }
        if (allRead) {
            return runRead(c);
        }
        return admitted(c, mode);
    }

    private Outcome admitted(WriteRequest r, Mode mode) {
        if (closing) {
            return shuttingDown();
        }
        if (mode == Mode.ASYNC) {
            return async.submit(r); // bounded by the journal's lag, not by the in-memory pending bound
        }
        Admission.Result admit;
        try {
            admit = admission.acquire(r.rows(), r.bytes(), config.admission().timeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return shuttingDown();
        }
        switch (admit) {
            case FULL -> {
                return new Outcome.Overloaded("pending work is at its bound (" + config.admission().maxPendingRows()
                        + " rows / " + config.admission().maxPendingBytes() + "); waited "
                        + config.admission().timeout(), retryAfter());
            }
            case CLOSED -> {
                return shuttingDown();
            }
            case ADMITTED -> { }
        }
        try {
            return switch (mode) {
                case DIRECT -> runDirect(r);
                case SYNC, ASYNC -> runBatched(r);
            };
        } finally {
            admission.release(r.rows(), r.bytes());
        }
    }

    /** A template request goes to the partition of its first row's key; raw Cypher to partition 0. */
    private Batcher partitionOf(WriteRequest r) {
        if (r instanceof TemplateRequest t && batchers.size() > 1) {
            return batchers.get(t.template().partition(t.rowList().getFirst(), batchers.size()));
        }
        return batchers.getFirst();
    }

    private Outcome runBatched(WriteRequest r) {
        Pending p = new Pending(r, time.nanos());
        if (!partitionOf(r).enqueue(p)) {
            return shuttingDown();
        }
        try {
            return p.future().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome.Failed(new Neo4jError("Neo.TransientError.General.DatabaseUnavailable",
                    "interrupted while waiting for the commit; the write may or may not have been applied"));
        } catch (ExecutionException e) {
            return new Outcome.Failed(new Neo4jError("Neo.DatabaseError.General.UnknownError", e.getCause().toString()));
        }
    }

    /** One transaction for this request alone, on the caller's thread; transient errors retried. */
    private Outcome runDirect(WriteRequest r) {
        Pending p = new Pending(r, time.nanos());
        runner.apply(List.of(p));
        return p.future().join();
    }

    private Outcome runRead(CypherRequest c) {
        try {
            List<StatementResult> results = sink.inReadTransaction(tx -> {
                List<StatementResult> rs = new ArrayList<>();
                for (Statement s : c.statements()) {
                    rs.add(tx.run(s.cypher(), s.params()));
                }
                return rs;
            });
            return new Outcome.Committed(results, c.rows());
        } catch (SinkException e) {
            return new Outcome.Failed(e.error());
        }
    }

    private Outcome runAlone(Statement s) {
        try {
            return new Outcome.Committed(List.of(sink.runImplicit(s.cypher(), s.params())), 1);
        } catch (SinkException e) {
            return new Outcome.Failed(e.error());
        }
    }

    private Duration retryAfter() {
        return Duration.ofSeconds(Admission.retryAfterSeconds(config.admission().timeout()));
    }

    private static Outcome shuttingDown() {
        return new Outcome.Overloaded("sluice is shutting down", Duration.ofSeconds(5));
    }

    @Override
    public Optional<Template> template(String name) {
        return Optional.ofNullable(templates.get(name));
    }

    @Override
    public String database() {
        return config.neo4j().database();
    }

    @Override
    public Applied awaitApplied(long offset, Duration wait) throws InterruptedException {
        boolean applied = async.awaitApplied(offset, wait);
        return new Applied(offset, applied, async.appliedOffset());
    }

    @Override
    public List<Map<String, Object>> deadLetters(long from, int limit) throws java.io.IOException {
        return async.deadLetters(from, limit);
    }

    @Override
    public Map<String, Long> transientRetries() {
        Map<String, Long> all = new java.util.TreeMap<>(runner.transientRetries());
        async.transientRetries().forEach((code, n) -> all.merge(code, n, Long::sum));
        return all;
    }

    public AsyncPath async() {
        return async;
    }

    /** The adaptive row limit of each applier (for metrics). */
    public List<Integer> batchLimits() {
        return appliers.stream().map(Applier::batchLimit).toList();
    }

    public long pendingRows() {
        return admission.pendingRows();
    }

    public long pendingBytes() {
        return admission.pendingBytes();
    }

    @Override
    public Map<String, Object> health() {
        Map<String, Object> h = new LinkedHashMap<>();
        boolean up = sink.isAvailable() && !closing;
        h.put("status", up ? "UP" : closing ? "STOPPING" : "DOWN");
        h.put("sink", sink.describe());
        h.put("pending_rows", admission.pendingRows());
        h.put("pending_bytes", admission.pendingBytes());
        h.put("queued_rows", batchers.stream().mapToLong(Batcher::queuedRows).sum());
        h.put("appliers", appliers.size());
        h.put("lock_order", config.apply().lockOrder());
        h.put("batch_limit_rows", appliers.stream().map(Applier::batchLimit).toList());
        h.put("batch_max_rows", config.batch().maxRows());
        h.put("batch_max_wait", config.batch().maxWait().toString());
        h.put("templates", templates.keySet());
        h.put("journal_next_offset", async.nextOffset());
        h.put("journal_applied_offset", async.appliedOffset());
        h.put("journal_lag_rows", async.lagRows());
        h.put("journal_batch_limit_rows", async.batchLimit());
        h.put("journal_lag_bytes", async.lagBytes());
        h.put("dead_letters", async.deadLetterCount());
        return h;
    }

    /** Refuses new writes (503), applies everything admitted, then stops the applier (bounded wait). */
    @Override
    public void close() {
        closing = true;
        admission.close();
        batchers.forEach(Batcher::close);
        appliers.forEach(a -> a.close(Duration.ofSeconds(60)));
        // no waiter is left hanging: whatever the appliers could not drain in time is answered here
        for (Batcher batcher : batchers) {
            for (List<Pending> left = batcher.poll(); !left.isEmpty(); left = batcher.poll()) {
                left.forEach(p -> p.future().complete(shuttingDown()));
            }
        }
        async.close();
    }
}
