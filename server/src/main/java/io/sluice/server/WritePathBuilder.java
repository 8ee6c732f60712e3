package io.sluice.server;

import io.sluice.apply.BatchRunner;
import io.sluice.apply.BatchSizeController;
import io.sluice.apply.LockWatch;
import io.sluice.apply.Partitions;
import io.sluice.apply.RetryPolicy;
import io.sluice.apply.SetAside;
import io.sluice.batch.Admission;
import io.sluice.config.SluiceConfig;
import io.sluice.config.Sources;
import io.sluice.cypher.StatementClassifier;
import io.sluice.durable.AsyncJournal;
import io.sluice.durable.AsyncPath;
import io.sluice.durable.RecordApplier;
import io.sluice.front.Doors;
import io.sluice.gateway.Gateway;
import io.sluice.gateway.TransactionGate;
import io.sluice.gateway.Warmer;
import io.sluice.group.Cause;
import io.sluice.group.Listener;
import io.sluice.group.Options;
import io.sluice.group.TransactionGroups;
import io.sluice.kafka.KafkaJournal;
import io.sluice.metrics.Metrics;
import io.sluice.session.ClientTransactions;
import io.sluice.session.Grouping;
import io.sluice.sink.Sink;
import io.sluice.source.KafkaSources;
import io.sluice.time.Jitter;
import io.sluice.time.Time;
import io.sluice.txn.TxRegistry;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.QueryKind;
import io.sluice.write.IdScheme;
import io.sluice.write.Template;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The one place that builds the write path from a config, over a sink: admission, the batch runner (every runner:
 * the sync appliers', direct writes', the journal's and Kafka's, each with the config's lock-order and coalescing
 * settings and backoffs; the local journal's retries without limit, the others up to {@code retry.max_attempts}), the adaptive batch sizes (one start value for every applier), the partitions and their
 * appliers, the async journal (local, on Kafka, or none), the gateway, and the explicit transactions of each front
 * end (one registry per id scheme, all behind one {@link TransactionGate}). The server and the start-up rehearsal
 * build theirs here, each part recorded in the caller's {@link Owned} as it exists, so a failure part-way closes
 * what was built. Used by one thread, once.
 */
final class WritePathBuilder {
    /** How long closing lets the server's appliers drain what was admitted. */
    static final Duration APPLIER_DRAIN = Duration.ofSeconds(60);
    private static final int CLASSIFIER_CACHE = 10_000;

    /** Where async writes go: the config's journal (local, or Kafka when it says so) in {@code dataDir}, or none. */
    record Journal(Path dataDir, String instance) {
        static final Journal NONE = new Journal(null, null);
    }

    /**
     * What was built. {@code async} is null without a journal; {@code doors} is empty, the gateway's view of the
     * doors the caller builds and registers there.
     */
    record Built(Admission admission, BatchRunner runner, Partitions partitions, AsyncJournal async, Gateway gateway,
            TransactionGate transactionGate, Doors doors) {}

    private final SluiceConfig config;
    private final Sink sink;
    private final Metrics metrics;
    private final Time time;
    private final Owned owned;
    private final String threads;
    private final Duration drain;

    /**
     * {@code threads}: the prefix of its threads' names ({@code sluice-} gives {@code sluice-applier-N});
     * {@code drain}: how long closing lets the appliers apply what was admitted.
     */
    WritePathBuilder(SluiceConfig config, Sink sink, Metrics metrics, Time time, Owned owned, String threads,
            Duration drain) {
        this.config = config;
        this.sink = sink;
        this.metrics = metrics;
        this.time = time;
        this.owned = owned;
        this.threads = threads;
        this.drain = drain;
    }

    /** A batch runner with the config's lock-order and coalescing settings, retrying as {@code retry} says. */
    private BatchRunner runner(Time clock, RetryPolicy retry) {
        return new BatchRunner(sink, retry, clock, Jitter.RANDOM, metrics, config.apply().lockOrder(),
                config.apply().coalesceCypher());
    }

    /**
     * One applier's adaptive row limit, or null when {@code batch.adaptive} is off (then {@code max_rows}, fixed).
     * Every applier starts at four times the minimum: the limit grows by a quarter a batch while that pays, so a
     * backlog reaches {@code max_rows} within a dozen batches.
     */
    Supplier<BatchSizeController> sizes() {
        var b = config.batch();
        return b.adaptive() ? () -> new BatchSizeController(b.minRows(), b.maxRows(), b.targetCommit(),
                b.minRows() * 4) : null;
    }

    /**
     * Builds admission, the runner, the partitions, the journal and the gateway. A journal's applier never skips a
     * record: their records are durable, and giving up would lose one (see {@link #journal}).
     */
    Built build(Map<String, Template> templates, Journal journal, Warmer warmer) throws IOException, GraphException {
        var a = config.admission();
        var b = config.batch();
        Admission admission = new Admission(a.maxPendingRows(), a.maxPendingBytes().bytes(), time);
        owned.add("admission", admission::close);
        var r = config.retry();
        // the front ends' writes: one blocked by a lock held outside the batches waits alone (closed after the
        // appliers, which may set writes aside while they drain)
        LockWatch watch = owned.add("the lock watch", LockWatch.start(config.apply().setAsideAfter(), time,
                Thread.ofPlatform().name(threads + "lock-watch").daemon(true).factory()));
        SetAside aside = owned.add("the writes set aside", new SetAside(
                Thread.ofVirtual().name(threads + "aside-", 0).factory(), drain));
        BatchRunner runner = new BatchRunner(sink, new RetryPolicy(r.maxAttempts(), r.initialBackoff(),
                r.maxBackoff()), time, Jitter.RANDOM, metrics, config.apply().lockOrder(),
                config.apply().coalesceCypher(), watch, aside);
        Supplier<BatchSizeController> sizes = sizes();
        Partitions partitions = owned.add("the appliers", Partitions.start(config.apply().appliers(), b.maxRows(),
                b.maxWait(), runner, i -> sizes == null ? null : sizes.get(),
                Thread.ofPlatform().name(threads + "applier-", 0).factory(), time, drain));
        AsyncJournal async = journal.dataDir() == null ? null : journal(templates, journal);
        var t = config.transactions();
        TransactionGate gate = new TransactionGate(admission, t.maxOpen(sink.maxOpenTransactions()), a.timeout());
        Doors doors = new Doors();
        Gateway gateway = new Gateway(new Gateway.Parts(sink, new StatementClassifier(sink, CLASSIFIER_CACHE),
                admission, partitions, runner, async, templates, warmer, doors), config, time);
        return new Built(admission, runner, partitions, async, gateway, gate, doors);
    }

    /**
     * The async journal. The local journal's applier retries transient errors without limit (it has no group to
     * stay in, and giving up would lose a record); Kafka's retries as the config says, since past that its
     * consumer pauses the partition and keeps polling (it must, to stay in its group), retrying from the graph's
     * position for as long as it takes.
     */
    private AsyncJournal journal(Map<String, Template> templates, Journal journal) throws IOException, GraphException {
        var j = config.journal();
        var a = config.admission();
        if (j.kafka() != null) {
            return owned.add("the journal on Kafka", KafkaJournal.start(j.kafka(), a.timeout(), sink, templates, time,
                    journal.instance(), consumerParts()));
        }
        var r = config.retry();
        RetryPolicy forever = new RetryPolicy(Integer.MAX_VALUE, r.initialBackoff(), r.maxBackoff());
        RecordApplier.Parts appliers = new RecordApplier.Parts(clock -> runner(clock, forever), sizes(),
                config.batch().maxRows());
        Path dir = journal.dataDir();
        return owned.add("the journal", AsyncPath.start(new AsyncPath.Options(dir.resolve("journal"),
                dir.resolve("dead-letters"), j.maxLagRows(), j.maxLagBytes().bytes(), j.segmentBytes().bytes(),
                a.timeout()), sink, templates, time, Thread.ofPlatform().name(threads + "journal-applier").factory(),
                appliers));
    }

    /**
     * The application topics of {@code sources}, applied through this write path's runner with the config's retry
     * policy (bounded: a batch not applied after it pauses its partition, which retries for as long as it takes,
     * while its consumer keeps polling, so it stays in its group) and row limits. Built, not started: a door, which
     * the caller owns and starts as it does its other doors (not recorded in {@link Owned} here).
     */
    KafkaSources sources(Sources.KafkaSource sources, String instance) throws GraphException {
        return KafkaSources.create(sources, sink, consumerParts(), metrics, time, instance);
    }

    /**
     * A Kafka consumer's apply loop (the Kafka journal's, the application topics'): the config's retry policy,
     * bounded, so that a batch not applied returns to the consumer, which pauses its partition and keeps polling.
     */
    private RecordApplier.Parts consumerParts() {
        var r = config.retry();
        return new RecordApplier.Parts(clock -> runner(clock, new RetryPolicy(r.maxAttempts(), r.initialBackoff(),
                r.maxBackoff())), sizes(), config.batch().maxRows());
    }

    /**
     * Who groups their transactions ({@code transactions.group}, per user) and the groups they share, each holding
     * one place of the write path's gate while its transaction is open; {@link Grouping#OFF} (and no groups made)
     * when no user's transactions are grouped.
     */
    Grouping grouping(Built built) {
        var t = config.transactions();
        if (!t.anyGrouped()) {
            return Grouping.OFF;
        }
        return new Grouping(groups(built), t::grouped, built.transactionGate());
    }

    private TransactionGroups groups(Built built) {
        var t = config.transactions();
        return owned.add("transaction groups", TransactionGroups.start(sink, built.transactionGate(),
                new Options(t.groupMaxMembers(), t.groupMemberTimeout()), time,
                new Listener() {
                    @Override
                    public void committed(int members, int statements, long commitNanos) {
                        metrics.groupCommitted(members, statements, commitNanos);
                    }

                    @Override
                    public void aborted(int members, Cause cause) {
                        metrics.groupAborted(members, cause.label());
                    }

                    @Override
                    public void evicted(Cause cause) {
                        metrics.groupEvicted(cause.label());
                    }

                    @Override
                    public void replayed(int statements) {
                        metrics.groupReplayed(statements);
                    }
                }, Thread.ofPlatform().name(threads + "groups-watch").daemon(true).factory()));
    }

    /**
     * A front end's explicit transactions: a registry of {@code ids}' form (idle timeout {@code idleTimeout}, or
     * the scheme's default when null), behind the write path's one gate (the bound over all front ends, one pending
     * row each), grouped as {@code grouping} says, their statements classified by the gateway's cache.
     */
    ClientTransactions transactions(Built built, IdScheme ids, Duration idleTimeout, Grouping grouping) {
        TxRegistry registry = owned.add(ids.label() + " transactions", TxRegistry.start(sink, built.transactionGate(),
                // the gate is the bound, over every front end, and it waits for a place: a registry's own bound
                // would refuse before the gate could (a driver's 64 managed sessions would back off, not take turns)
                TxRegistry.Options.of(ids, idleTimeout, Integer.MAX_VALUE), time,
                new SecureRandom(),
                Thread.ofPlatform().name(threads + "txn-sweeper-" + ids.label()).factory(),
                outcome -> metrics.deadlock(outcome.label()),
                cypher -> built.gateway().kind(cypher) == QueryKind.READ)); // a re-run may let those differ
        return new ClientTransactions(registry, grouping, built.gateway()::kind);
    }
}
