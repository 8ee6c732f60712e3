package io.sluice.gateway;

import io.sluice.apply.BatchRunner;
import io.sluice.apply.Partitions;
import io.sluice.batch.Admission;
import io.sluice.batch.Pending;
import io.sluice.config.SluiceConfig;
import io.sluice.cypher.StatementClassifier;
import io.sluice.cypher.StatementClassifier.Classified;
import io.sluice.durable.AsyncJournal;
import io.sluice.sink.Neo4jError;
import io.sluice.sink.Neo4jStatus;
import io.sluice.sink.QueryKind;
import io.sluice.sink.Sink;
import io.sluice.sink.SinkException;
import io.sluice.sink.StatementResult;
import io.sluice.time.Time;
import io.sluice.txn.Flavour;
import io.sluice.txn.TxRegistry;
import io.sluice.write.Access;
import io.sluice.write.ExplicitTransactions;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * The write path behind the HTTP API: validates a request, classifies it, admits it against the bounds, and
 * routes it: reads and must-run-alone statements straight to the sink, {@code direct} writes in a transaction
 * of their own on the caller's thread, {@code sync} writes to their key's partition, {@code async} writes to the
 * journal. It only routes: every part it uses is built, started and closed by its owner ({@code SluiceServer}).
 * Thread-safe; {@link #execute} runs on the request's virtual thread and blocks it.
 */
public final class Gateway implements WritePath, AutoCloseable {

    /**
     * What the gateway routes to. {@code runner} applies direct writes on the caller's thread (the partitions'
     * appliers share it); {@code templates} are compiled.
     */
    public record Parts(Sink sink, StatementClassifier classifier, Admission admission, Partitions partitions,
            BatchRunner runner, AsyncJournal async, Map<String, Template> templates, TxRegistry queryTransactions,
            TxRegistry classicTransactions, Warmer warmer) {
        public Parts {
            templates = Map.copyOf(templates);
        }

        /** Without a warmer ({@code POST /warmup} then refused). */
        public Parts(Sink sink, StatementClassifier classifier, Admission admission, Partitions partitions,
                BatchRunner runner, AsyncJournal async, Map<String, Template> templates, TxRegistry queryTransactions,
                TxRegistry classicTransactions) {
            this(sink, classifier, admission, partitions, runner, async, templates, queryTransactions,
                    classicTransactions, null);
        }

        /** Without explicit transactions (tests of the batched path). */
        public Parts(Sink sink, StatementClassifier classifier, Admission admission, Partitions partitions,
                BatchRunner runner, AsyncJournal async, Map<String, Template> templates) {
            this(sink, classifier, admission, partitions, runner, async, templates, null, null);
        }
    }

    private final Parts parts;
    private final SluiceConfig config;
    private final Time time;
    private final ExplicitTransactions queryTransactions;
    private final ExplicitTransactions classicTransactions;
    private volatile boolean closing;

    public Gateway(Parts parts, SluiceConfig config, Time time) {
        this.parts = parts;
        this.config = config;
        this.time = time;
        this.queryTransactions = parts.queryTransactions() == null ? null
                : new RegistryTransactions(parts.queryTransactions(), Flavour.QUERY_API);
        this.classicTransactions = parts.classicTransactions() == null ? null
                : new RegistryTransactions(parts.classicTransactions(), Flavour.CLASSIC);
    }

    @Override
    public QueryKind kind(String cypher) {
        return parts.classifier().classify(cypher) instanceof Classified.Ok ok ? ok.kind() : null;
    }

    @Override
    public ExplicitTransactions queryTransactions() {
        return present(queryTransactions);
    }

    @Override
    public ExplicitTransactions classicTransactions() {
        return present(classicTransactions);
    }

    private static ExplicitTransactions present(ExplicitTransactions t) {
        if (t == null) {
            throw new IllegalStateException("this write path was built without explicit transactions");
        }
        return t;
    }

    @Override
    public Outcome execute(WriteRequest request, Mode mode, Access access) {
        return switch (request) {
            case TemplateRequest t -> access == Access.READ
                    ? forbidden("this user may send read-only Cypher only, not template writes")
                    : executeTemplate(t, mode);
            case CypherRequest c -> access == Access.TEMPLATES
                    ? forbidden("this user may send the named templates only (/db/{db}/write/{template}), not Cypher")
                    : executeCypher(c, mode, access);
        };
    }

    /**
     * A sync template write that admission takes at once is queued from the caller's thread (an HTTP I/O thread)
     * and its future completes when its batch commits, on the applier's thread (what follows it must be short);
     * no thread waits for it. An async template write the journal takes at once ({@link AsyncJournal#submitNow})
     * completes on the journal's syncer thread once fsynced, the same way. Everything else, and a write that
     * may have to wait for room (up to the admission timeout), runs {@link #execute} on {@code blocking}.
     */
    @Override
    public CompletableFuture<Outcome> submit(WriteRequest request, Mode mode, Access access, Executor blocking) {
        if (!(request instanceof TemplateRequest t) || mode == Mode.DIRECT || access == Access.READ || closing) {
            return WritePath.super.submit(request, mode, access, blocking);
        }
        Optional<Neo4jError> bad = invalidRow(t);
        if (bad.isPresent()) {
            return CompletableFuture.completedFuture(new Outcome.Failed(bad.get()));
        }
        if (mode == Mode.ASYNC) {
            CompletableFuture<Outcome> journaled = parts.async().submitNow(t);
            return journaled != null ? journaled : WritePath.super.submit(request, mode, access, blocking);
        }
        Admission admission = parts.admission();
        if (admission.tryAcquire(t.rows(), t.bytes()) != Admission.Result.ADMITTED) {
            return WritePath.super.submit(request, mode, access, blocking); // waits for room, or refuses
        }
        Pending p = new Pending(t, time.nanos());
        boolean queued = false;
        try {
            queued = parts.partitions().enqueue(partitionOf(t), p);
        } finally {
            if (!queued) { // refused (closing), or partitionOf threw: give the room back
                admission.release(t.rows(), t.bytes());
            }
        }
        if (!queued) {
            return CompletableFuture.completedFuture(Outcome.SHUTTING_DOWN);
        }
        return p.future().handle((o, e) -> {
            admission.release(t.rows(), t.bytes());
            return e == null ? o : new Outcome.Failed(Neo4jError.unknown(e.toString()));
        });
    }

    private static Outcome forbidden(String message) {
        return new Outcome.Failed(new Neo4jError(Neo4jStatus.Security.FORBIDDEN, message));
    }

    private Outcome executeTemplate(TemplateRequest t, Mode mode) {
        Optional<Neo4jError> bad = invalidRow(t);
        return bad.isPresent() ? new Outcome.Failed(bad.get()) : admitted(t, mode);
    }

    /** The first row the template refuses (a missing key field, a wrong type), if any. */
    private static Optional<Neo4jError> invalidRow(TemplateRequest t) {
        List<Map<String, Object>> rows = t.rowList();
        for (int i = 0; i < rows.size(); i++) {
            Optional<Neo4jError> bad = t.template().validate(rows.get(i), i);
            if (bad.isPresent()) {
                return bad;
            }
        }
        return Optional.empty();
    }

    private Outcome executeCypher(CypherRequest c, Mode mode, Access access) {
        boolean allRead = true;
        QueryKind alone = null;
        for (Statement s : c.statements()) {
            switch (parts.classifier().classify(s.cypher())) {
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
        if (access == Access.READ && (alone != null || !allRead)) {
            return forbidden("this user may send read-only Cypher only; Neo4j plans this request as a "
                    + (alone != null ? "schema command or CALL {} IN TRANSACTIONS" : "write"));
        }
        if (alone != null) {
            if (c.statements().size() > 1) {
                return new Outcome.Failed(new Neo4jError(Neo4jStatus.Transaction.FORBIDDEN_DUE_TO_TRANSACTION_TYPE,
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
            return Outcome.SHUTTING_DOWN;
        }
        if (mode == Mode.ASYNC) {
            return parts.async().submit(r); // bounded by the journal's lag, not by the in-memory pending bound
        }
        Admission.Result admit;
        try {
            admit = parts.admission().acquire(r.rows(), r.bytes(), config.admission().timeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.SHUTTING_DOWN;
        }
        switch (admit) {
            case FULL -> {
                return new Outcome.Overloaded("pending work is at its bound (" + config.admission().maxPendingRows()
                        + " rows / " + config.admission().maxPendingBytes() + "); waited "
                        + config.admission().timeout(), retryAfter());
            }
            case CLOSED -> {
                return Outcome.SHUTTING_DOWN;
            }
            case ADMITTED -> { }
        }
        try {
            return mode == Mode.DIRECT ? runDirect(r) : runBatched(r);
        } finally {
            parts.admission().release(r.rows(), r.bytes());
        }
    }

    /** A template request goes to the partition of its first row's key; raw Cypher to partition 0. */
    private int partitionOf(WriteRequest r) {
        int n = parts.partitions().count();
        if (r instanceof TemplateRequest t && n > 1) {
            return t.template().partition(t.rowList().getFirst(), n);
        }
        return 0;
    }

    private Outcome runBatched(WriteRequest r) {
        Pending p = new Pending(r, time.nanos());
        if (!parts.partitions().enqueue(partitionOf(r), p)) {
            return Outcome.SHUTTING_DOWN;
        }
        try {
            return p.future().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome.Failed(new Neo4jError(Neo4jStatus.General.DATABASE_UNAVAILABLE,
                    "interrupted while waiting for the commit; the write may or may not have been applied"));
        } catch (ExecutionException e) {
            return new Outcome.Failed(Neo4jError.unknown(e.getCause().toString()));
        }
    }

    /** One transaction for this request alone, on the caller's thread; transient errors retried. */
    private Outcome runDirect(WriteRequest r) {
        Pending p = new Pending(r, time.nanos());
        parts.runner().apply(List.of(p));
        return p.future().join();
    }

    private Outcome runRead(CypherRequest c) {
        try {
            List<StatementResult> results = parts.sink().inReadTransaction(tx -> {
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
            return new Outcome.Committed(List.of(parts.sink().runImplicit(s.cypher(), s.params())), 1);
        } catch (SinkException e) {
            return new Outcome.Failed(e.error());
        }
    }

    private Duration retryAfter() {
        return Duration.ofSeconds(Admission.retryAfterSeconds(config.admission().timeout()));
    }

    @Override
    public Optional<Template> template(String name) {
        return Optional.ofNullable(parts.templates().get(name));
    }

    @Override
    public String database() {
        return config.neo4j().database();
    }

    @Override
    public Applied awaitApplied(int partition, long offset, Duration wait) throws InterruptedException {
        boolean applied = parts.async().awaitApplied(partition, offset, wait);
        return new Applied(offset, applied, parts.async().appliedOffset(partition));
    }

    @Override
    public List<Map<String, Object>> deadLetters(long from, int limit) throws java.io.IOException {
        return parts.async().deadLetters(from, limit);
    }

    @Override
    public Map<String, Long> transientRetries() {
        Map<String, Long> all = new java.util.TreeMap<>(parts.runner().transientRetries());
        parts.async().transientRetries().forEach((code, n) -> all.merge(code, n, Long::sum));
        return all;
    }

    @Override
    public Map<String, Object> health() {
        Sink sink = parts.sink();
        AsyncJournal async = parts.async();
        Map<String, Object> h = new LinkedHashMap<>();
        boolean up = sink.isAvailable() && !closing;
        boolean warming = up && parts.warmer() != null && parts.warmer().warming();
        h.put("status", warming ? "WARMING" : up ? "UP" : closing ? "STOPPING" : "DOWN");
        h.put("sink", sink.describe());
        h.put("pending_rows", parts.admission().pendingRows());
        h.put("pending_bytes", parts.admission().pendingBytes());
        h.put("queued_rows", parts.partitions().queuedRows());
        h.put("appliers", parts.partitions().count());
        h.put("lock_order", config.apply().lockOrder());
        h.put("batch_limit_rows", parts.partitions().batchLimits());
        h.put("batch_max_rows", config.batch().maxRows());
        h.put("batch_max_wait", config.batch().maxWait().toString());
        h.put("templates", parts.templates().keySet());
        h.putAll(async.describe());
        h.put("dead_letters", async.deadLetterCount());
        if (parts.warmer() != null) {
            h.put("warmup", parts.warmer().describe());
        }
        return h;
    }

    @Override
    public Map<String, Object> warmUp() {
        if (parts.warmer() == null) {
            throw new IllegalStateException("this server has no warmer");
        }
        boolean started = !closing && parts.warmer().start();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("started", started);
        out.put("warmup", parts.warmer().describe());
        return out;
    }

    /**
     * Refuses new writes from now on (503; /health says STOPPING). What was admitted goes on: the owner then
     * closes the parts, which apply it.
     */
    @Override
    public void close() {
        closing = true;
    }
}
