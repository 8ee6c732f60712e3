package io.sluice.kafka;

import io.sluice.batch.Admission;
import io.sluice.config.Kafka;
import io.sluice.durable.AsyncJournal;
import io.sluice.durable.GraphPositions;
import io.sluice.durable.RecordApplier;
import io.sluice.durable.RecordCodec;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.write.Outcome;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
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
 *       share, positions and fences in the graph ({@link GraphPositions}).</li>
 *   <li><b>Backpressure from the real lag</b>, bounded as the local journal's is (an {@link Admission} over the
 *       unapplied backlog: at {@code max_lag_records} an async write waits up to the admission timeout, then
 *       503): one thread reads the topic's end offsets (Admin) and the graph's positions every {@code REFRESH};
 *       their difference, over all partitions, is the fleet's unapplied records, plus what this instance produced
 *       since, and becomes the bound's pending figure ({@link Admission#reset}).</li>
 *   <li><b>Dead letters</b> go to their own topic (one partition), with the source partition, offset and error in
 *       headers, acknowledged before the applier moves past them.</li>
 * </ul>
 * Owns the producer, the admin client, the applier (its consumer and thread), the dead-letter topic
 * ({@link DeadLetterTopic}) and the lag thread. Its size (over 400 lines): producing, the lag's measurement and
 * the applied positions (one lock and condition, which a refresh and an applied batch signal) are read together by
 * the write path and /health; the topics' creation and the clients' settings are start-up's, kept beside them.
 */
public final class KafkaJournal implements AsyncJournal {
    private static final Logger log = LoggerFactory.getLogger(KafkaJournal.class);
    static final Duration REFRESH = Duration.ofMillis(250);
    /** How long a start waits for topics it just created to be known where their partitions lead. */
    static final Duration TOPICS_READY = Duration.ofSeconds(30);
    /** The topic's log name in the graph's positions ({@link GraphPositions}): {@code kafka:<topic>}. */
    static final String SOURCE_PREFIX = "kafka:";
    /** The ordering key of every raw Cypher request: they keep their order among themselves. */
    static final byte[] CYPHER_KEY = "cypher".getBytes(StandardCharsets.UTF_8);

    private final Kafka config;
    private final Duration admissionTimeout;
    private final Time time;
    private final Admin admin;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaApplier applier;
    private final GraphPositions offsets;
    private final Thread lagThread;
    private final DeadLetterTopic deadLetters;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<Integer, Long> applied = new HashMap<>(); // guarded by lock: next offset to apply per partition
    private long deadLetterCount; // guarded by lock
    private final AtomicLong producedSinceRefresh = new AtomicLong();
    /**
     * The backlog's bound, as the local journal's: unapplied records over the whole topic, measured at each refresh
     * (the fleet produces and applies them, not this instance alone), plus what this instance produced since.
     */
    private final Admission lag;
    private volatile boolean stopping;

    private KafkaJournal(Kafka config, Duration admissionTimeout, Time time, Admin admin,
            KafkaProducer<byte[], byte[]> producer, GraphPositions offsets,
            Function<KafkaJournal, KafkaApplier> applier, ThreadFactory threads) {
        this.config = config;
        this.admissionTimeout = admissionTimeout;
        this.time = time.stoppedBy(() -> stopping, Duration.ofMillis(10));
        this.admin = admin;
        this.producer = producer;
        this.offsets = offsets;
        this.deadLetters = new DeadLetterTopic(config, producer, this.time, () -> stopping);
        this.lag = new Admission(config.maxLagRecords(), Long.MAX_VALUE, this.time);
        this.applier = applier.apply(this);
        this.lagThread = threads.newThread(this::refreshUntilClosed);
    }

    /**
     * Creates the topics when missing, the positions' constraint, and starts applying. {@code appliers} gives the
     * apply loop its batch runner (made over the journal's clock, whose sleeps end at close) and row limits.
     */
    public static KafkaJournal start(Kafka config, Duration admissionTimeout, Sink sink,
            Map<String, Template> templates, Time time, String instance,
            RecordApplier.Parts appliers) throws GraphException {
        if (config.bootstrap() == null) {
            throw new IllegalArgumentException("journal.kafka needs bootstrap: HOST:PORT[,HOST:PORT...] (or --kafka)");
        }
        Admin admin = Admin.create(KafkaClients.properties(config, Map.of(
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000",
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000"), Map.of()));
        KafkaProducer<byte[], byte[]> producer = null;
        KafkaConsumer<byte[], byte[]> consumer = null;
        try {
            createTopics(admin, config);
            GraphPositions offsets = new GraphPositions(sink, SOURCE_PREFIX + config.topic(),
                    GraphPositions.Legacy.kafkaJournal(config.topic()));
            offsets.createSchema(time);
            for (int p = 0; p < config.partitions(); p++) {
                offsets.ensure(p); // every partition's position exists (an earlier version's adopted) before the lag is read
            }
            long send = config.sendTimeout().toMillis();
            long request = Math.max(500, send / 2); // delivery.timeout.ms must exceed it (and linger.ms)
            producer = new KafkaProducer<>(KafkaClients.properties(config, Map.of(
                    ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                    ProducerConfig.LINGER_MS_CONFIG, "1",
                    ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(send),
                    ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(request),
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(Math.max(send, request + 1)),
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                    ProducerConfig.CLIENT_ID_CONFIG, "sluice-" + instance), config.producer()));
            consumer = KafkaClients.consumer(config, appliers.maxRows(), instance);
            KafkaConsumer<byte[], byte[]> applierConsumer = consumer;
            KafkaJournal j = new KafkaJournal(config, admissionTimeout, time, admin, producer, offsets,
                    journal -> new KafkaApplier(applierConsumer, config.topic(), offsets, appliers, templates,
                            journal.deadLetters::add, journal::appliedUpTo, journal.time,
                            Thread.ofPlatform().name("sluice-kafka-applier").factory()),
                    Thread.ofPlatform().name("sluice-kafka-lag").factory());
            j.refreshOnceReady();
            j.lagThread.start();
            j.applier.start();
            return j;
        } catch (GraphException | RuntimeException e) { // nothing started yet: the clients are closed here
            if (consumer != null) {
                consumer.close(CloseOptions.timeout(Duration.ZERO));
            }
            if (producer != null) {
                producer.close(Duration.ZERO);
            }
            admin.close(Duration.ZERO);
            throw e;
        }
    }

    private static void createTopics(Admin admin, Kafka c) {
        for (NewTopic t : List.of(new NewTopic(c.topic(), Optional.of(c.partitions()), Optional.empty()),
                new NewTopic(c.deadLetterTopic(), Optional.of(1), Optional.empty()))) {
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
        Admission.Result admit;
        try {
            admit = lag.acquire(1, 0, admissionTimeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.SHUTTING_DOWN;
        }
        switch (admit) {
            case FULL -> {
                return new Outcome.Overloaded("unapplied records on Kafka are at their bound ("
                        + config.maxLagRecords() + "); waited " + admissionTimeout,
                        Duration.ofSeconds(Admission.retryAfterSeconds(admissionTimeout)));
            }
            case CLOSED -> {
                return Outcome.SHUTTING_DOWN;
            }
            case ADMITTED -> { }
        }
        byte[] payload = RecordCodec.encode(r);
        byte[] key = switch (r) {
            case WriteRequest.TemplateRequest t -> t.template().orderingKey(t.rowList().getFirst())
                    .getBytes(StandardCharsets.UTF_8);
            case WriteRequest.CypherRequest c -> CYPHER_KEY;
            case WriteRequest.Sequence s -> throw new IllegalArgumentException("a source's sequence is never journaled");
        };
        try {
            RecordMetadata m = producer.send(new ProducerRecord<>(config.topic(), key, payload))
                    .get(config.sendTimeout().toMillis(), TimeUnit.MILLISECONDS);
            producedSinceRefresh.incrementAndGet();
            return new Outcome.Accepted(m.offset(), r.rows(), m.partition());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            lag.release(1, 0);
            return Outcome.SHUTTING_DOWN;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            lag.release(1, 0);
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            return new Outcome.Overloaded("Kafka did not acknowledge the write within " + config.sendTimeout()
                    + " (" + cause + "); it is not known to be accepted", Duration.ofSeconds(1));
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

    /**
     * The first reading of the lag. A topic just created is not at once known to the broker that leads its
     * partition (KRaft propagates metadata after createTopics returns), so a retriable answer is retried for up to
     * {@link #TOPICS_READY} before the start fails.
     */
    private void refreshOnceReady() throws GraphException {
        long deadline = time.nanos() + TOPICS_READY.toNanos();
        while (!refresh()) {
            if (time.nanos() - deadline >= 0) {
                throw new IllegalStateException("Kafka at " + config.bootstrap() + " did not know topic "
                        + config.topic() + " within " + TOPICS_READY.toSeconds() + " s of its creation");
            }
            try {
                time.sleep(Duration.ofMillis(50));
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the Kafka topics", ie);
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
            } catch (RuntimeException | GraphException e) {
                log.debug("refreshing the Kafka lag: {}", e.toString());
            }
        }
    }

    /**
     * Reads the topic's end offsets and the graph's positions: the lag over all partitions. False when Kafka's answer
     * was retriable (a topic just created, a leader moving): nothing read, try again; any other failure throws.
     */
    private boolean refresh() throws GraphException {
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
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RetriableException) {
                log.debug("Kafka's offsets not readable yet: {}", e.getCause().toString());
                return false;
            }
            throw new IllegalStateException("listing Kafka offsets: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("listing Kafka offsets: no answer within 10 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        Map<Integer, Long> graph = offsets.all();
        long total = 0;
        for (int p = 0; p < config.partitions(); p++) {
            long end = ends.getOrDefault(new TopicPartition(config.topic(), p), 0L);
            total += Math.max(0, end - graph.getOrDefault(p, 0L));
        }
        lock.lock();
        try {
            // those produced before the end offsets were read are in them now; the rest are added to the measurement
            lag.reset(total + producedSinceRefresh.addAndGet(-produced), 0);
            deadLetterCount = ends.getOrDefault(dead, 0L);
            graph.forEach((p, next) -> applied.merge(p, next, Math::max));
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        return true;
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
        return lag.pendingRows();
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
        return deadLetters.list(from, limit, deadLetterCount());
    }

    @Override
    public Map<String, Long> transientRetries() {
        return applier.transientRetries();
    }

    @Override
    public Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("journal", "kafka");
        d.put("kafka_bootstrap", config.bootstrap());
        d.put("kafka_topic", config.topic());
        d.put("kafka_partitions_applied_here", new TreeMap<>(applier.positions()));
        d.put("journal_lag_rows", lagRows());
        return d;
    }

    @Override
    public void stopAccepting() {
        lag.close(); // waiters and later writes: shutting down
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
