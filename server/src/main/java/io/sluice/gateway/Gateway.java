package io.sluice.gateway;

import io.sluice.apply.BatchRunner;
import io.sluice.apply.Partitions;
import io.sluice.batch.Admission;
import io.sluice.batch.Pending;
import io.sluice.config.Access;
import io.sluice.config.Mode;
import io.sluice.config.SluiceConfig;
import io.sluice.cypher.StatementClassifier.Classified;
import io.sluice.cypher.StatementClassifier;
import io.sluice.durable.AsyncJournal;
import io.sluice.front.Doors;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.Summary;
import io.sluice.vocab.StatementResult;
import io.sluice.write.Caller;
import io.sluice.write.Health;
import io.sluice.write.Operations;
import io.sluice.write.Outcome;
import io.sluice.write.Statement;
import io.sluice.write.Template;
import io.sluice.write.WritePath;
import io.sluice.write.WriteRequest.CypherRequest;
import io.sluice.write.WriteRequest.TemplateRequest;
import io.sluice.write.WriteRequest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;

/**
 * The write path behind every front end: validates a request, classifies it, admits it against the bounds, and
 * routes it: reads and must-run-alone statements straight to the sink, {@code direct} writes in a transaction
 * of their own on the caller's thread, {@code sync} writes to their key's partition, {@code async} writes to the
 * journal. It only routes: every part it uses is built, started and closed by its owner ({@code SluiceServer}).
 * Thread-safe; {@link #execute} runs on the request's virtual thread and blocks it.
 */
public final class Gateway implements WritePath, Operations, AutoCloseable {

    /**
     * What the gateway routes to. {@code runner} applies direct writes on the caller's thread (the partitions'
     * appliers share it); {@code templates} are compiled; {@code async} is null where async writes are not taken
     * (the start-up rehearsal), {@code warmer} null where there is none ({@code POST /warmup} is then refused);
     * {@code doors}: the doors the owner registers as it builds them, whose sections {@link #health} reports (none
     * when null).
     */
    public record Parts(Sink sink, StatementClassifier classifier, Admission admission, Partitions partitions,
            BatchRunner runner, AsyncJournal async, Map<String, Template> templates, Warmer warmer, Doors doors) {
        public Parts {
            templates = Map.copyOf(templates);
            doors = doors == null ? new Doors() : doors;
        }
    }

    private final Parts parts;
    private final SluiceConfig config;
    private final Time time;
    private volatile boolean closing;

    public Gateway(Parts parts, SluiceConfig config, Time time) {
        this.parts = parts;
        this.config = config;
        this.time = time;
    }

    @Override
    public QueryKind kind(String cypher) {
        return parts.classifier().classify(cypher) instanceof Classified.Ok ok ? ok.kind() : null;
    }

    @Override
    public Outcome execute(WriteRequest request, Mode mode, Caller caller) {
        Access access = caller.access();
        return switch (request) {
            case TemplateRequest t -> access == Access.READ
                    ? forbidden("this user may send read-only Cypher only, not template writes")
                    : executeTemplate(t, mode);
            case CypherRequest c -> access == Access.TEMPLATES
                    ? forbidden("this user may send the named templates only (/db/{db}/write/{template}), not Cypher")
                    : executeCypher(c, mode, caller);
            case WriteRequest.Sequence s -> throw new IllegalArgumentException("a sequence comes from a source, which"
                    + " applies it itself");
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
    public CompletableFuture<Outcome> submit(WriteRequest request, Mode mode, Caller caller, Executor blocking) {
        if (request instanceof CypherRequest c && mode == Mode.SYNC && caller.access() == Access.CYPHER && !closing) {
            return submitCypher(c, caller, blocking);
        }
        if (!(request instanceof TemplateRequest t) || mode == Mode.DIRECT || caller.access() == Access.READ
                || closing || (mode == Mode.ASYNC && parts.async() == null)) {
            return WritePath.super.submit(request, mode, caller, blocking);
        }
        Optional<Neo4jError> bad = invalidRow(t);
        if (bad.isPresent()) {
            return CompletableFuture.completedFuture(new Outcome.Failed(bad.get()));
        }
        if (mode == Mode.ASYNC) {
            CompletableFuture<Outcome> journaled = parts.async().submitNow(t);
            return journaled != null ? journaled : WritePath.super.submit(request, mode, caller, blocking);
        }
        CompletableFuture<Outcome> queued = queueAtOnce(t, null, null);
        return queued != null ? queued : WritePath.super.submit(request, mode, caller, blocking); // waits, or refuses
    }

    /**
     * A sync Cypher write (a Bolt auto-commit statement) classified on the caller's thread (from the cache; a
     * statement not seen before is planned there once) and, when every statement writes and admission takes it at
     * once, queued from there: its future completes when its batch commits, with the statements' kinds, and no
     * thread waits for it in between. Reads, schema commands, refusals and a write that must wait for room run
     * {@link #execute} on {@code blocking}.
     */
    private CompletableFuture<Outcome> submitCypher(CypherRequest c, Caller caller, Executor blocking) {
        List<QueryKind> kinds = new ArrayList<>(c.statements().size());
        List<Summary> notices = new ArrayList<>(c.statements().size());
        for (Statement s : c.statements()) {
            if (!(parts.classifier().classify(s.cypher()) instanceof Classified.Ok ok) || ok.kind() != QueryKind.WRITE
                    || !s.params().keySet().containsAll(ok.parameters())) {
                return WritePath.super.submit(c, Mode.SYNC, caller, blocking);
            }
            kinds.add(ok.kind());
            notices.add(ok.notices());
        }
        CompletableFuture<Outcome> queued = queueAtOnce(c, kinds, notices);
        return queued != null ? queued : WritePath.super.submit(c, Mode.SYNC, caller, blocking); // waits, or refuses
    }

    /**
     * Queues a sync write if admission takes it at once, from the caller's thread: its future completes when its batch
     * commits (releasing the room, with {@code kinds} when given); null when admission cannot take it now (the
     * caller then waits for room on a thread that may block).
     */
    private CompletableFuture<Outcome> queueAtOnce(WriteRequest r, List<QueryKind> kinds, List<Summary> notices) {
        Admission admission = parts.admission();
        if (admission.tryAcquire(r.rows(), r.bytes()) != Admission.Result.ADMITTED) {
            return null;
        }
        Pending p = new Pending(r, time.nanos());
        boolean queued = false;
        try {
            queued = parts.partitions().enqueue(partitionOf(r), p);
        } finally {
            if (!queued) { // refused (closing), or partitionOf threw: give the room back
                admission.release(r.rows(), r.bytes());
            }
        }
        if (!queued) {
            return CompletableFuture.completedFuture(Outcome.SHUTTING_DOWN);
        }
        return p.future().handle((o, e) -> {
            admission.release(r.rows(), r.bytes());
            Outcome out = e == null ? o : new Outcome.Failed(Neo4jError.unknown(e.toString()));
            return kinds == null ? out : out.withKinds(kinds).withNotices(notices);
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

    private Outcome executeCypher(CypherRequest c, Mode mode, Caller caller) {
        boolean allRead = true;
        QueryKind alone = null;
        List<QueryKind> kinds = new ArrayList<>(c.statements().size());
        List<Summary> notices = new ArrayList<>(c.statements().size());
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
                    allRead &= ok.kind() == QueryKind.READ || ok.kind() == QueryKind.DBMS; // runs as a read does
                    alone = ok.kind() == QueryKind.ALONE ? ok.kind() : alone;
                    kinds.add(ok.kind());
                    notices.add(ok.notices());
                }
            }
        }
        return classified(c, mode, caller, allRead, alone != null).withKinds(kinds).withNotices(notices);
    }

    /** A Cypher request whose statements all compile, routed by what they are. */
    private Outcome classified(CypherRequest c, Mode mode, Caller caller, boolean allRead, boolean alone) {
        if (caller.access() == Access.READ && (alone || !allRead)) {
            if (caller.readSession()) { // a read transaction's refusal, as Neo4j words it
                return new Outcome.Failed(new Neo4jError(Neo4jStatus.Statement.ACCESS_MODE,
                        "Writing in read access mode not allowed. Attempted write to " + database()));
            }
            return forbidden("this user may send read-only Cypher only; Neo4j plans this request as a "
                    + (alone ? "schema command or CALL {} IN TRANSACTIONS" : "write"));
        }
        if (alone) {
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
            if (parts.async() == null) {
                return new Outcome.Failed(Neo4jError.invalid("async writes are not taken here (no journal)"));
            }
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
            return new Outcome.Failed(Neo4jError.commitOutcomeUnknown(
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
            }, c.config());
            return new Outcome.Committed(results, c.rows());
        } catch (GraphException e) {
            return new Outcome.Failed(e.error(), List.of(), e.partial());
        }
    }

    private Outcome runAlone(Statement s) {
        try {
            return new Outcome.Committed(List.of(parts.sink().runImplicit(s.cypher(), s.params())), 1);
        } catch (GraphException e) {
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
        AsyncJournal async = journal();
        boolean applied = async.awaitApplied(partition, offset, wait);
        return new Applied(offset, applied, async.appliedOffset(partition));
    }

    @Override
    public List<Map<String, Object>> deadLetters(long from, int limit) throws IOException {
        return parts.async() == null ? List.of() : parts.async().deadLetters(from, limit);
    }

    @Override
    public Map<String, Long> transientRetries() {
        Map<String, Long> all = new TreeMap<>(parts.runner().transientRetries());
        if (parts.async() != null) {
            parts.async().transientRetries().forEach((code, n) -> all.merge(code, n, Long::sum));
        }
        return all;
    }

    private AsyncJournal journal() {
        if (parts.async() == null) {
            throw new IllegalStateException("this write path has no journal");
        }
        return parts.async();
    }

    @Override
    public Health health() {
        Sink sink = parts.sink();
        AsyncJournal async = parts.async();
        boolean up = sink.isAvailable() && !closing;
        boolean warming = up && parts.warmer() != null && parts.warmer().warming();
        return new Health(warming ? Health.Status.WARMING : up ? Health.Status.UP
                        : closing ? Health.Status.STOPPING : Health.Status.DOWN,
                sink.describe(), parts.admission().pendingRows(), parts.admission().pendingBytes(),
                parts.partitions().queuedRows(), parts.partitions().count(), config.apply().lockOrder(),
                parts.partitions().batchLimits(), config.batch().maxRows(), config.batch().maxWait(),
                parts.templates().keySet(), async == null ? Map.of() : async.describe(),
                async == null ? 0 : async.deadLetterCount(),
                parts.warmer() == null ? null : parts.warmer().describe(), parts.doors().health());
    }

    @Override
    public WarmUp warmUp() {
        if (parts.warmer() == null) {
            throw new IllegalStateException("this server has no warmer");
        }
        boolean started = !closing && parts.warmer().start();
        return new WarmUp(started, parts.warmer().describe());
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
