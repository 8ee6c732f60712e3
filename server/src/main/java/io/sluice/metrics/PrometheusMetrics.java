package io.sluice.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/** {@link Metrics} in a Micrometer Prometheus registry, scraped at {@code GET /metrics}. Thread-safe. */
public final class PrometheusMetrics implements Metrics, AutoCloseable {
    /** The request latency histogram's buckets: 1 ms to 10 s. */
    static final Duration[] LATENCY_BUCKETS = {Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5),
            Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
            Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500),
            Duration.ofSeconds(5), Duration.ofSeconds(10)};
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final DistributionSummary batchRows;
    private final Timer commit;
    private final Counter batches;
    private final Counter bisections;
    private final Counter blockedBatches;
    private final Counter setAside;
    private final JvmGcMetrics gc = new JvmGcMetrics();

    public PrometheusMetrics() {
        batchRows = DistributionSummary.builder("sluice.batch.rows").description("rows per committed batch")
                .publishPercentiles(0.5, 0.99).register(registry);
        commit = Timer.builder("sluice.commit").description("time to apply and commit one batch")
                .publishPercentiles(0.5, 0.99).distributionStatisticExpiry(Duration.ofMinutes(1)).register(registry);
        batches = Counter.builder("sluice.batches").description("batches committed").register(registry);
        bisections = Counter.builder("sluice.bisections").description("failing batches split to isolate a bad write")
                .register(registry);
        blockedBatches = Counter.builder("sluice.batches.blocked").description("batches ended because they waited"
                + " for a lock held outside sluice's batches (their other writes ran again at once)").register(registry);
        setAside = Counter.builder("sluice.writes.set.aside").description("writes that waited for a lock held"
                + " outside sluice's batches, set aside to run alone").register(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        gc.bindTo(registry);
    }

    /** Registers a gauge per applier partition. */
    public void gauge(String name, String description, int partition, Supplier<Number> value) {
        Gauge.builder(name, value).description(description).tag("partition", Integer.toString(partition)).register(registry);
    }

    /** A source partition's lag gauges: registered once, they read whatever its latest owner gave. */
    private record SourceLag(AtomicReference<Supplier<Number>> records,
            AtomicReference<Supplier<Number>> seconds) { }

    /** By {@code topic:partition} (a topic name has no colon); bounded by the partitions this instance has applied. */
    private final ConcurrentHashMap<String, SourceLag> sourceLags =
            new ConcurrentHashMap<>();

    /**
     * Each call (a consumer of this instance was given the partition) points the partition's gauges at the new
     * owner's readers. Micrometer keeps a gauge's first function when it is registered again, and that one reads
     * NaN once its consumer lost the partition: a partition moved between this instance's consumers by a rebalance
     * would then read NaN here, as if another instance applied it.
     */
    @Override
    public void sourcePartition(String topic, int partition, Supplier<Number> lagRecords, Supplier<Number> lagSeconds) {
        SourceLag lag = sourceLags.computeIfAbsent(topic + ":" + partition, k -> {
            SourceLag l = new SourceLag(new AtomicReference<>(lagRecords),
                    new AtomicReference<>(lagSeconds));
            String p = Integer.toString(partition);
            Gauge.builder("sluice.source.lag.records", () -> l.records().get().get()).description("records of an"
                    + " application topic's partition not yet applied (NaN: another instance applies it)")
                    .tag("topic", topic).tag("partition", p).register(registry);
            Gauge.builder("sluice.source.lag.seconds", () -> l.seconds().get().get()).description("age of the"
                    + " oldest record of an application topic's partition not yet applied (NaN: another instance"
                    + " applies it)").tag("topic", topic).tag("partition", p).register(registry);
            return l;
        });
        lag.records().set(lagRecords);
        lag.seconds().set(lagSeconds);
    }

    @Override
    public void debeziumStream(String prefix, Supplier<Number> waiting, Supplier<Number> oldestSeconds) {
        Gauge.builder("sluice.debezium.transactions.waiting", waiting).description("source transactions whose END"
                + " has arrived and that wait for their events or an earlier transaction").tag("prefix", prefix)
                .register(registry);
        Gauge.builder("sluice.debezium.oldest.unapplied.seconds", oldestSeconds).description("age of the oldest"
                + " source commit not yet applied (0: none waits)").tag("prefix", prefix).register(registry);
    }

    @Override
    public void debeziumApplied(String prefix, int rows, java.util.Map<String, Long> perTable, long lagMillis) {
        if (lagMillis >= 0) {
            DistributionSummary.builder("sluice.debezium.transaction.rows").description("change events per source"
                    + " transaction applied").tag("prefix", prefix).register(registry).record(rows);
            Timer.builder("sluice.debezium.lag").description("from a source transaction's commit to its commit in"
                    + " Neo4j").tag("prefix", prefix).publishPercentiles(0.5, 0.99).register(registry)
                    .record(java.time.Duration.ofMillis(lagMillis));
        }
        perTable.forEach((table, n) -> registry.counter("sluice.debezium.rows", "prefix", prefix, "table", table)
                .increment(n));
    }

    @Override
    public void sourceConsumers(Supplier<Number> configured, Supplier<Number> running) {
        Gauge.builder("sluice.source.consumers", configured).description("the sources' consumers the config asks for")
                .register(registry);
        Gauge.builder("sluice.source.consumers.running", running).description("the sources' consumers still running"
                + " (one that stopped on an error it cannot go on from is logged; its partitions go to the others)")
                .register(registry);
    }

    @Override
    public void sourceRecords(String topic, String outcome, long n) {
        registry.counter("sluice.source.records", "topic", topic, "outcome", outcome).increment(n);
    }

    /**
     * Exports each source topic's record counters at zero (so alerts over {@code increase(...)} and the dashboard
     * have their series before the first record, as {@link #knownBolt} does for Bolt).
     */
    public void knownSources(Collection<String> topics) {
        for (String t : topics) {
            for (String outcome : List.of("applied", "dead_lettered", "skipped", "held")) {
                registry.counter("sluice.source.records", "topic", t, "outcome", outcome);
            }
        }
    }

    /** The registry, for a reader of its meters in this process (the benchmarks). */
    public io.micrometer.core.instrument.MeterRegistry registry() {
        return registry;
    }

    /** Registers a gauge read on scrape, e.g. pending rows. */
    public void gauge(String name, String description, Supplier<Number> value) {
        Gauge.builder(name, value).description(description).register(registry);
    }

    /**
     * Counts by mode and status; the latency as a histogram by mode (fixed buckets, for Prometheus's
     * histogram_quantile over any window) and as quantiles over the last ~20 s (for the dashboard and
     * {@code sluice status}, which read this process's figures alone); per template (bounded: configured names,
     * {@link #CYPHER}, {@link #UNKNOWN}) its requests by status, rows and latency quantiles. The meters of each
     * (mode, template, status) are resolved once and kept ({@link #meters}): looking five of them up in the
     * registry per request (an id and its tags built each time) was ~3% of an HTTP I/O thread's time.
     */
    @Override
    public void request(String mode, String template, int status, int rows, long nanos) {
        RequestMeters m = meters.computeIfAbsent(new RequestKey(mode, template, status), this::resolve);
        m.requests().increment();
        if (status < 300 && rows > 0) {
            m.rows().increment(rows);
            if (m.templateRows() != null) {
                m.templateRows().increment(rows);
            }
        }
        m.latency().record(nanos, TimeUnit.NANOSECONDS);
        m.recent().record(nanos, TimeUnit.NANOSECONDS);
        if (m.templateRequests() != null) {
            m.templateRequests().increment();
            m.templateRecent().record(nanos, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void boltStatement(String mode, String outcome, int rows, long nanos) {
        BoltMeters m = boltMeters.computeIfAbsent(new BoltKey(mode, outcome), k -> new BoltMeters(
                registry.counter("sluice.bolt.statements", "mode", k.mode(), "outcome", k.outcome()),
                registry.counter("sluice.rows", "mode", k.mode()),
                Timer.builder("sluice.request").description("time from a request's arrival to its answer")
                        .tag("mode", k.mode()).serviceLevelObjectives(LATENCY_BUCKETS).register(registry),
                recent("sluice.request.latency", "request latency quantiles over the last ~20 s", "mode", k.mode())));
        m.statements().increment();
        if (rows > 0) {
            m.rows().increment(rows);
        }
        m.latency().record(nanos, TimeUnit.NANOSECONDS);
        m.recent().record(nanos, TimeUnit.NANOSECONDS);
    }

    private record BoltKey(String mode, String outcome) { }

    /** A Bolt statement's meters: its outcome's counter, and the rows and latency it shares with HTTP's requests. */
    private record BoltMeters(Counter statements, Counter rows, Timer latency, Timer recent) { }

    /** Bounded: modes and outcomes are each a small set. */
    private final ConcurrentHashMap<BoltKey, BoltMeters> boltMeters = new ConcurrentHashMap<>();

    private record RequestKey(String mode, String template, int status) { }

    /** The meters one (mode, template, status) reports to; the template's are null when it has none. */
    private record RequestMeters(Counter requests, Counter rows, Timer latency, Timer recent, Counter templateRequests,
            Counter templateRows, Timer templateRecent) { }

    /** Bounded: modes, templates and status codes are each a small set (see {@link #request}). */
    private final ConcurrentHashMap<RequestKey, RequestMeters> meters =
            new ConcurrentHashMap<>();

    private RequestMeters resolve(RequestKey k) {
        String code = Integer.toString(k.status());
        String template = k.template();
        return new RequestMeters(
                registry.counter("sluice.requests", "mode", k.mode(), "status", code),
                registry.counter("sluice.rows", "mode", k.mode()),
                Timer.builder("sluice.request").description("time from a request's arrival to its answer")
                        .tag("mode", k.mode()).serviceLevelObjectives(LATENCY_BUCKETS).register(registry),
                recent("sluice.request.latency", "request latency quantiles over the last ~20 s", "mode", k.mode()),
                template == null ? null
                        : registry.counter("sluice.template.requests", "template", template, "status", code),
                template == null ? null : registry.counter("sluice.template.rows", "template", template),
                template == null ? null : recent("sluice.template.latency",
                        "request latency quantiles per template over the last ~20 s", "template", template));
    }

    /** A timer of quantiles 0.5 and 0.99 over a sliding window of about 20 s (4 buffers of 5 s). */
    private Timer recent(String name, String description, String tag, String value) {
        return Timer.builder(name).description(description).tag(tag, value).publishPercentiles(0.5, 0.99)
                .distributionStatisticExpiry(Duration.ofSeconds(20)).distributionStatisticBufferLength(4)
                .register(registry);
    }

    @Override
    public void batchCommitted(int rows, int requests, long nanos) {
        batches.increment();
        batchRows.record(rows);
        commit.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void transientRetry(String code) {
        registry.counter("sluice.transient.retries", "code", code).increment();
    }

    @Override
    public void deadlock(String outcome) {
        registry.counter("sluice.transactions.deadlocks", "outcome", outcome).increment();
    }

    @Override
    public void bisection() {
        bisections.increment();
    }

    @Override
    public void setAside(int requests) {
        blockedBatches.increment();
        setAside.increment(requests);
    }

    @Override
    public void writeFailed(String code) {
        registry.counter("sluice.write.failures", "code", code).increment();
    }

    /** The statuses a request is answered with that {@link #known} exports at zero. */
    static final int[] KNOWN_STATUSES = {200, 202, 400, 401, 403, 404, 413, 429, 500, 503};

    /**
     * Exports every series sluice knows it may count, at zero, before anything happens (Prometheus's convention: a
     * rule over {@code rate(...)} then tells "nothing happened" from "not scraped", and a dashboard panel shows 0,
     * not "No data"): the requests, rows and latencies of each of {@code modes} by each status
     * ({@link #KNOWN_STATUSES}), the same per template ({@code templates}, and {@link #CYPHER} for raw Cypher),
     * transient retries by each of {@code transientCodes}, write failures by each of {@code failureCodes}. A code
     * not listed appears when it first happens.
     */
    public void known(Collection<String> modes, Collection<String> templates,
            Collection<String> transientCodes, Collection<String> failureCodes) {
        List<String> all = new ArrayList<>(templates);
        all.add(CYPHER);
        for (String mode : modes) {
            for (int status : KNOWN_STATUSES) {
                for (String template : all) {
                    meters.computeIfAbsent(new RequestKey(mode, template, status), this::resolve);
                }
            }
        }
        transientCodes.forEach(code -> registry.counter("sluice.transient.retries", "code", code));
        failureCodes.forEach(code -> registry.counter("sluice.write.failures", "code", code));
    }

    private final AtomicLong boltOpen = new AtomicLong();
    private final ConcurrentHashMap<String, Counter> boltMessages =
            new ConcurrentHashMap<>();

    /**
     * Exports the Bolt front end's series at zero, as {@link #known} does HTTP's: open connections, messages by
     * each of {@code messages}, failures by each of {@code failureCodes} (a code not listed appears when it first
     * happens), transactions by event. So an alert over {@code rate(sluice_bolt_failures_total[5m])} and a panel
     * of Bolt figures have their series on a server that has not yet seen a Bolt client, or has no Bolt listener.
     */
    public void knownBolt(Collection<String> messages, Collection<String> failureCodes) {
        Gauge.builder("sluice.bolt.connections", boltOpen, AtomicLong::get)
                .description("Bolt connections open (past their handshake)").register(registry);
        messages.forEach(this::boltMessage0);
        failureCodes.forEach(this::boltFailure0);
        for (String event : List.of("begin", "commit", "rollback")) {
            registry.counter("sluice.bolt.transactions", "event", event);
        }
    }

    private Counter boltFailure0(String code) {
        return Counter.builder("sluice.bolt.failures").description("Bolt FAILURE answers, by Neo4j code")
                .tag("code", code).register(registry);
    }

    private Counter boltMessage0(String message) {
        return boltMessages.computeIfAbsent(message, m -> Counter.builder("sluice.bolt.messages")
                .description("Bolt messages received, by message").tag("message", m).register(registry));
    }

    @Override
    public void boltConnections(int delta) {
        boltOpen.addAndGet(delta);
    }

    @Override
    public void boltMessage(String message) {
        boltMessage0(message).increment();
    }

    @Override
    public void boltFailure(String code) {
        boltFailure0(code).increment();
    }

    @Override
    public void boltTransaction(String event) {
        registry.counter("sluice.bolt.transactions", "event", event).increment();
    }

    @Override
    public void groupCommitted(int members, int statements, long nanos) {
        registry.counter("sluice.groups", "outcome", "committed").increment();
        groupMembers("committed").record(members);
        registry.timer("sluice.group.commit").record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void groupAborted(int members, String cause) {
        registry.counter("sluice.groups", "outcome", "aborted").increment();
        registry.counter("sluice.group.aborts", "cause", cause).increment();
        groupMembers("aborted").record(members);
    }

    @Override
    public void groupEvicted(String cause) {
        registry.counter("sluice.group.evictions", "cause", cause).increment();
    }

    @Override
    public void groupReplayed(int statements) {
        registry.counter("sluice.group.replayed.statements").increment(statements);
    }

    private DistributionSummary groupMembers(String outcome) {
        return DistributionSummary.builder("sluice.group.members")
                .description("members per group of managed transactions (Bolt), by the group's outcome")
                .tag("outcome", outcome).register(registry);
    }

    /**
     * Exports the groups' series at zero (so the dashboard and alerts have them before the first group): the
     * outcomes, each abort cause, and the members per group.
     */
    public void knownGroups(Collection<String> causes) {
        for (String outcome : List.of("committed", "aborted")) {
            registry.counter("sluice.groups", "outcome", outcome);
            groupMembers(outcome);
        }
        for (String cause : causes) {
            registry.counter("sluice.group.aborts", "cause", cause);
            registry.counter("sluice.group.evictions", "cause", cause);
        }
        registry.counter("sluice.group.replayed.statements");
        registry.timer("sluice.group.commit");
    }

    /** The Prometheus text exposition. */
    public String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        gc.close();
        registry.close();
    }
}
