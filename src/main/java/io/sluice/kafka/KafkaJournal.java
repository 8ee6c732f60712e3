package io.sluice.kafka;

import io.sluice.apply.BatchRunner;
import io.sluice.apply.RetryPolicy;
import io.sluice.batch.Admission;
import io.sluice.config.Kafka;
import io.sluice.durable.AsyncJournal;
import io.sluice.durable.RecordCodec;
import io.sluice.metrics.Metrics;
import io.sluice.sink.Neo4jError;
import io.sluice.sink.Sink;
import io.sluice.sink.SinkException;
import io.sluice.time.Jitter;
import io.sluice.time.Time;
import io.sluice.write.Outcome;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code mode=async} on Kafka: the journal of a fleet of sluice instances (docs/SCALING.md).
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Acknowledge only what Kafka has.</b> {@link #submit} sends the request (the local journal's record
 *       format) through an idempotent producer with {@code acks=all}, keyed by its ordering key (a template's name
 *       and first row's key; all raw Cypher one key), and answers 202 with the partition and offset only once the
 *       broker acknowledged it; no acknowledgement within {@code send_timeout} is 503 (which means "not known to be
 *       accepted": a batch that timed out after it was sent may still have been written).</li>
 *   <li><b>Apply exactly once per partition</b>: {@link KafkaApplier}, one consumer in the group all instances
 *       share, positions and fences in the graph ({@link GraphOffsets}).</li>
 *   <li><b>Backpressure from the real lag</b>: one thread reads the topic's end offsets (Admin) and the graph's
 *       positions every {@code REFRESH}: their difference, over all partitions, is the fleet's unapplied records,
 *       plus what this instance produced since. At {@code max_lag_records} an async write waits up to the
 *       admission timeout, then 503.</li>
 *   <li><b>Dead letters</b> go to their own topic (one partition), with the source partition, offset and error in
 *       headers, acknowledged before the applier moves past them.</li>
 * </ul>
 * Owns the producer, the admin client, the applier (its consumer and thread) and the lag thread.
 */
public final class KafkaJournal implements AsyncJournal {
    private static final Logger log = LoggerFactory.getLogger(KafkaJournal.class);
    static final Duration REFRESH = Duration.ofMillis(250);
    /** How long a start waits for topics it just created to be known where their partitions lead. */
    static final Duration TOPICS_READY = Duration.ofSeconds(30);
    /** The ordering key of every raw Cypher request: they keep their order among themselves. */
    static final byte[] CYPHER_KEY = "cypher".getBytes(StandardCharsets.UTF_8);

    private final Kafka config;
    private final Duration admissionTimeout;
    private final Time time;
    private final Admin admin;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaApplier applier;
    private final GraphOffsets offsets;
    private final BatchRunner runner;
    private final Thread lagThread;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<Integer, Long> applied = new HashMap<>(); // guarded by lock: next offset to apply per partition
    private long lag; // guarded by lock: as of the last refresh
    private long deadLetterCount; // guarded by lock
    private final AtomicLong producedSinceRefresh = new AtomicLong();
    private volatile boolean accepting = true;
    private volatile boolean stopping;

    private KafkaJournal(Kafka config, Duration admissionTimeout, Time time, Admin admin,
            KafkaProducer<byte[], byte[]> producer, GraphOffsets offsets, java.util.function.Function<Time, BatchRunner> runner,
            java.util.function.Function<KafkaJournal, KafkaApplier> applier, ThreadFactory threads) {
        this.config = config;
        this.admissionTimeout = admissionTimeout;
        this.time = time.stoppedBy(() -> stopping, Duration.ofMillis(10));
        this.admin = admin;
        this.producer = producer;
        this.offsets = offsets;
        this.runner = runner.apply(this.time); // its backoffs end early at close, as the journal's own sleeps
        this.applier = applier.apply(this);
        this.lagThread = threads.newThread(this::refreshUntilClosed);
    }

    /**
     * Creates the topics when missing, the offsets' constraint, and starts applying. {@code threads} names the
     * applier's and the lag thread.
     */
    public static KafkaJournal start(Kafka config, Duration admissionTimeout, int maxRows, RetryPolicy retry,
            boolean coalesceCypher, Sink sink, Map<String, Template> templates, Metrics metrics, Time time,
            String instance)
            throws SinkException {
        if (config.bootstrap() == null) {
            throw new IllegalArgumentException("journal.kafka needs bootstrap: HOST:PORT[,HOST:PORT...] (or --kafka)");
        }
        Admin admin = Admin.create(properties(config, Map.of(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000",
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000"), Map.of()));
        KafkaProducer<byte[], byte[]> producer = null;
        KafkaConsumer<byte[], byte[]> consumer = null;
        try {
            createTopics(admin, config);
            GraphOffsets offsets = new GraphOffsets(sink, config.topic());
            offsets.createSchema(time);
            long send = config.sendTimeout().toMillis();
            long request = Math.max(500, send / 2); // delivery.timeout.ms must exceed it (and linger.ms)
            producer = new KafkaProducer<>(properties(config, Map.of(
                    ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                    ProducerConfig.LINGER_MS_CONFIG, "1",
                    ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(send),
                    ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(request),
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(Math.max(send, request + 1)),
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                    ProducerConfig.CLIENT_ID_CONFIG, "sluice-" + instance), config.producer()));
            consumer = consumer(config, maxRows, instance);
            KafkaConsumer<byte[], byte[]> applierConsumer = consumer;
            KafkaJournal j = new KafkaJournal(config, admissionTimeout, time, admin, producer, offsets,
                    stoppable -> new BatchRunner(sink, retry, stoppable, Jitter.RANDOM, metrics, true, coalesceCypher),
                    journal -> new KafkaApplier(applierConsumer, config.topic(), offsets, journal.runner, templates,
                            journal::deadLetter, journal::appliedUpTo, journal.time, maxRows,
                            Thread.ofPlatform().name("sluice-kafka-applier").factory()),
                    Thread.ofPlatform().name("sluice-kafka-lag").factory());
            j.refreshOnceReady();
            j.lagThread.start();
            j.applier.start();
            return j;
        } catch (SinkException | RuntimeException e) { // nothing started yet: the clients are closed here
            if (consumer != null) {
                consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ZERO));
            }
            if (producer != null) {
                producer.close(Duration.ZERO);
            }
            admin.close(Duration.ZERO);
            throw e;
        }
    }

    /** The applier's consumer: in the group all instances share, never committing, never resetting on its own. */
    static KafkaConsumer<byte[], byte[]> consumer(Kafka config, int maxRows, String instance) {
        return new KafkaConsumer<>(properties(config, Map.of(
                ConsumerConfig.GROUP_ID_CONFIG, config.group(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none", // the graph says where to start; never skip
                ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(Math.max(500, maxRows)),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.CLIENT_ID_CONFIG, "sluice-" + instance), config.consumer()));
    }

    private static Properties properties(Kafka c, Map<String, String> sluice, Map<String, String> kind) {
        Properties p = new Properties();
        p.put("bootstrap.servers", c.bootstrap());
        p.putAll(sluice);
        p.putAll(c.properties());
        p.putAll(kind);
        return p;
    }

    private static void createTopics(Admin admin, Kafka c) {
        for (NewTopic t : List.of(new NewTopic(c.topic(), java.util.Optional.of(c.partitions()), java.util.Optional.empty()),
                new NewTopic(c.deadLetterTopic(), java.util.Optional.of(1), java.util.Optional.empty()))) {
            try {
                admin.createTopics(List.of(t)).all().get(30, TimeUnit.SECONDS);
                log.info("created topic {} with {} partition(s)", t.name(), t.numPartitions());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("cannot create Kafka topic " + t.name() + " at " + c.bootstrap()
                            + ": " + e.getCause(), e.getCause());
                }
            } catch (TimeoutException e) {
                throw new IllegalStateException("Kafka at " + c.bootstrap() + " did not answer within 30 s", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while creating Kafka topics", e);
            }
        }
    }

    @Override
    public Outcome submit(WriteRequest r) {
        if (!accepting) {
            return Outcome.SHUTTING_DOWN;
        }
        if (!awaitRoom()) {
            return accepting ? new Outcome.Overloaded("unapplied records on Kafka are at their bound ("
                    + config.maxLagRecords() + "); waited " + admissionTimeout,
                    Duration.ofSeconds(Admission.retryAfterSeconds(admissionTimeout))) : Outcome.SHUTTING_DOWN;
        }
        byte[] payload = RecordCodec.encode(r);
        byte[] key = switch (r) {
            case WriteRequest.TemplateRequest t -> t.template().orderingKey(t.rowList().getFirst())
                    .getBytes(StandardCharsets.UTF_8);
            case WriteRequest.CypherRequest c -> CYPHER_KEY;
        };
        try {
            RecordMetadata m = producer.send(new ProducerRecord<>(config.topic(), key, payload))
                    .get(config.sendTimeout().toMillis(), TimeUnit.MILLISECONDS);
            producedSinceRefresh.incrementAndGet();
            return new Outcome.Accepted(m.offset(), r.rows(), m.partition());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.SHUTTING_DOWN;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            return new Outcome.Overloaded("Kafka did not acknowledge the write within " + config.sendTimeout()
                    + " (" + cause + "); it is not known to be accepted", Duration.ofSeconds(1));
        }
    }

    /** Waits while the lag is at its bound, up to the admission timeout; false when there is still no room. */
    private boolean awaitRoom() {
        lock.lock();
        try {
            long deadline = time.nanos() + admissionTimeout.toNanos();
            while (accepting && lag + producedSinceRefresh.get() >= config.maxLagRecords()) {
                long left = deadline - time.nanos();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(left);
            }
            return accepting;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** The applier's report: {@code partition} is applied up to {@code next} - 1. */
    private void appliedUpTo(int partition, long next) {
        lock.lock();
        try {
            applied.merge(partition, next, Math::max);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void deadLetter(int partition, long offset, byte[] payload, Neo4jError error) {
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(config.deadLetterTopic(),
                (partition + ":" + offset).getBytes(StandardCharsets.UTF_8), payload);
        r.headers().add("sluice.partition", Integer.toString(partition).getBytes(StandardCharsets.UTF_8));
        r.headers().add("sluice.offset", Long.toString(offset).getBytes(StandardCharsets.UTF_8));
        r.headers().add("sluice.code", error.code().getBytes(StandardCharsets.UTF_8));
        r.headers().add("sluice.message", error.message().getBytes(StandardCharsets.UTF_8));
        r.headers().add("sluice.at", time.now().toString().getBytes(StandardCharsets.UTF_8));
        while (true) { // the applier must not move past a failure it could not record
            try {
                producer.send(r).get(config.sendTimeout().toMillis(), TimeUnit.MILLISECONDS);
                log.warn("dead letter: partition {} offset {}: {} {}", partition, offset, error.code(), error.message());
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while dead-lettering partition " + partition + " offset "
                        + offset, e);
            } catch (ExecutionException | TimeoutException e) {
                log.warn("cannot dead-letter partition {} offset {} yet: {}", partition, offset, e.toString());
                if (stopping) {
                    throw new IllegalStateException("stopping before dead-lettering partition " + partition
                            + " offset " + offset);
                }
            }
        }
    }

    /**
     * The first reading of the lag. A topic just created is not at once known to the broker that leads its
     * partition (KRaft propagates metadata after createTopics returns), so a retriable answer is retried for up to
     * {@link #TOPICS_READY} before the start fails.
     */
    private void refreshOnceReady() throws SinkException {
        long deadline = time.nanos() + TOPICS_READY.toNanos();
        while (true) {
            try {
                refresh();
                return;
            } catch (IllegalStateException e) {
                if (!(e.getCause() instanceof ExecutionException ee && ee.getCause() instanceof RetriableException)
                        || time.nanos() - deadline >= 0) {
                    throw e;
                }
                log.debug("Kafka topics not ready yet: {}", e.getCause().getCause().toString());
                try {
                    time.sleep(Duration.ofMillis(50));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for the Kafka topics", ie);
                }
            }
        }
    }

    private void refreshUntilClosed() {
        while (!stopping) {
            try {
                time.sleep(REFRESH);
                refresh();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException | SinkException e) {
                log.debug("refreshing the Kafka lag: {}", e.toString());
            }
        }
    }

    /** Reads the topic's end offsets and the graph's positions: the lag over all partitions. */
    private void refresh() throws SinkException {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < config.partitions(); p++) {
            request.put(new TopicPartition(config.topic(), p), OffsetSpec.latest());
        }
        TopicPartition dead = new TopicPartition(config.deadLetterTopic(), 0);
        request.put(dead, OffsetSpec.latest());
        long produced = producedSinceRefresh.get();
        Map<TopicPartition, Long> ends = new HashMap<>();
        try {
            admin.listOffsets(request).all().get(10, TimeUnit.SECONDS)
                    .forEach((tp, info) -> ends.put(tp, info.offset()));
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("listing Kafka offsets: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        Map<Integer, Long> graph = offsets.all();
        long total = 0;
        for (int p = 0; p < config.partitions(); p++) {
            long end = ends.getOrDefault(new TopicPartition(config.topic(), p), 0L);
            total += Math.max(0, end - graph.getOrDefault(p, 0L));
        }
        lock.lock();
        try {
            lag = total;
            producedSinceRefresh.addAndGet(-produced); // those are in the end offsets now
            deadLetterCount = ends.getOrDefault(dead, 0L);
            graph.forEach((p, next) -> applied.merge(p, next, Math::max));
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean awaitApplied(int partition, long offset, Duration wait) throws InterruptedException {
        lock.lock();
        try {
            long deadline = time.nanos() + wait.toNanos();
            while (applied.getOrDefault(partition, 0L) <= offset) {
                long left = deadline - time.nanos();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long appliedOffset(int partition) {
        lock.lock();
        try {
            return applied.getOrDefault(partition, 0L) - 1;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long lagRows() {
        lock.lock();
        try {
            return lag + producedSinceRefresh.get();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long lagBytes() {
        return 0; // Kafka bounds the bytes itself (retention); the bound here is in records
    }

    @Override
    public long deadLetterCount() {
        lock.lock();
        try {
            return deadLetterCount;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public List<Map<String, Object>> deadLetters(long from, int limit) {
        List<Map<String, Object>> out = new ArrayList<>();
        long end = deadLetterCount();
        if (from >= end || limit == 0) {
            return out;
        }
        TopicPartition tp = new TopicPartition(config.deadLetterTopic(), 0);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(properties(config, Map.of(
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName()), Map.of()))) {
            c.assign(List.of(tp));
            c.seek(tp, from);
            long deadline = time.nanos() + Duration.ofSeconds(10).toNanos();
            while (out.size() < limit && c.position(tp) < end && time.nanos() - deadline < 0) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (out.size() < limit) {
                        out.add(deadLetterEntry(r));
                    }
                }
            }
        }
        return out;
    }

    private static Map<String, Object> deadLetterEntry(ConsumerRecord<byte[], byte[]> r) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("offset", r.offset());
        e.put("partition", Integer.parseInt(header(r, "sluice.partition")));
        e.put("source_offset", Long.parseLong(header(r, "sluice.offset")));
        e.put("at", header(r, "sluice.at"));
        e.put("code", header(r, "sluice.code"));
        e.put("message", header(r, "sluice.message"));
        e.put("request", RecordCodec.toMap(r.value()));
        return e;
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? "" : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Override
    public Map<String, Long> transientRetries() {
        return runner.transientRetries();
    }

    @Override
    public Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("journal", "kafka");
        d.put("kafka_bootstrap", config.bootstrap());
        d.put("kafka_topic", config.topic());
        d.put("kafka_partitions_applied_here", new java.util.TreeMap<>(applier.positions()));
        d.put("journal_lag_rows", lagRows());
        return d;
    }

    @Override
    public void stopAccepting() {
        lock.lock();
        try {
            accepting = false;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Refuses new writes, stops applying after the batch in flight (leaving the group), closes the clients. */
    @Override
    public void close() {
        stopAccepting();
        stopping = true;
        applier.close();
        try {
            lagThread.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(10));
        admin.close(Duration.ofSeconds(10));
    }
}
