package io.sluice.source;

import io.sluice.topic.AvroReader;
import io.sluice.cdc.DebeziumMapping;
import io.sluice.config.Debezium;
import io.sluice.config.Sources;
import io.sluice.sink.SchemaStatements;
import io.sluice.consumer.Partition;
import io.sluice.durable.RecordApplier;
import io.sluice.front.Door;
import io.sluice.metrics.Metrics;
import io.sluice.metrics.PrometheusMetrics;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Application topics in (docs/SOURCES.md): the {@code sources.kafka} section run beside the front ends, or alone.
 * Owns the consumers ({@link SourceConsumer}, {@code consumers} of them, each a member of the group), the
 * dead-letter producer and the admin client that reads {@code from_group}'s offsets. Every record goes through
 * the write path's batch runner, so it is bounded by the same appliers' work and shares lock order and bisection.
 *
 * <p>A {@link Door} like the front ends: {@link #create} checks the mappings and builds the clients, consuming
 * nothing; {@link #start} starts the consumers' threads (the server does so last, with its other doors);
 * {@link #stopAccepting} tells every consumer to poll no more (a flag and {@code wakeup}, never an interrupt: one
 * inside Neo4j's I/O closes its channels); {@link #drain} waits for each to finish its batch in flight (its
 * positions written with it) and leave the group; {@link #close} stops the rest and closes the clients. Its
 * {@link #health} is the {@code sources} section of {@code /health}. The lifecycle's calls come from one owner
 * thread; {@link #health} and {@link #partitions} from any.
 */
public final class KafkaSources implements Door {
    private static final Logger log = LoggerFactory.getLogger(KafkaSources.class);

    private final Sources.KafkaSource config;
    private final Admin admin;
    private final KafkaProducer<byte[], byte[]> producer;
    private final List<SourceConsumer> consumers = new ArrayList<>();
    private final List<DebeziumStream> streams = new ArrayList<>();
    private final Map<String, SourceTopic> routes = new ConcurrentHashMap<>();
    private final Pattern subscription;
    private final Thread lag;
    private final CountDownLatch closing = new CountDownLatch(1);
    private final AvroReader avro;
    private final Time time;

    private KafkaSources(Sources.KafkaSource config, Admin admin, KafkaProducer<byte[], byte[]> producer, Time time) {
        this.config = config;
        this.time = time;
        this.admin = admin;
        this.producer = producer;
        this.subscription = subscription(config);
        this.lag = Thread.ofPlatform().name("sluice-source-lag").unstarted(this::refreshEnds);
        this.avro = config.schemaRegistry() == null ? null : new AvroReader(config.schemaRegistry());
    }

    /**
     * Once a second, the end offset of every partition this instance applies, from the brokers (the admin client's
     * ListOffsets): the lag is that minus the partition's position in the graph. Not from the consumers' fetch
     * metadata, which a consumer busy applying a large batch does not refresh, and not on their threads.
     */
    private void refreshEnds() {
        try {
            while (!closing.await(1, TimeUnit.SECONDS)) {
                Map<TopicPartition, Partition> owned = new HashMap<>();
                for (SourceConsumer c : consumers) {
                    for (Partition o : c.owned()) {
                        owned.put(o.tp(), o);
                    }
                }
                if (owned.isEmpty()) {
                    continue;
                }
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                owned.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
                try {
                    admin.listOffsets(latest, new ListOffsetsOptions(
                            IsolationLevel.READ_COMMITTED)).all().get(5, TimeUnit.SECONDS)
                            .forEach((tp, info) -> owned.get(tp).end(info.offset()));
                } catch (ExecutionException | TimeoutException e) {
                    log.debug("reading the sources' end offsets: {}", e.toString()); // the next second tries again
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Checks every topic's mapping (a strategy that does not build fails here, by name), creates the positions'
     * constraint and the dead-letter topic, and builds the consumers, which poll once {@link #start}ed.
     * {@code parts}: the apply loop's runner and row limits.
     */
    public static KafkaSources create(Sources.KafkaSource config, Sink sink, RecordApplier.Parts parts,
            Metrics metrics, Time time, String instance) throws GraphException {
        if (config.bootstrap() == null) {
            throw new IllegalArgumentException("sources.kafka needs bootstrap: HOST:PORT[,HOST:PORT...] (or --kafka)");
        }
        for (Debezium d : config.debezium()) { // the constraints its lookups rest on, before they are checked
            for (String statement : new DebeziumMapping(d).schema()) {
                SchemaStatements.ensure(sink, statement, time);
            }
        }
        SourceChecks.Report checks = SourceChecks.run(config, sink); // a mapping's mistake is said now, by name
        if (!checks.errors().isEmpty()) {
            throw new IllegalArgumentException("sources.kafka: " + String.join("; ", checks.errors()));
        }
        checks.warnings().forEach(w -> log.warn("sources.kafka: {}", w));
        Admin admin = Admin.create(properties(config, Map.of(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000",
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000")));
        KafkaProducer<byte[], byte[]> producer = null;
        KafkaSources s = null;
        try {
            if (config.deadLetter().topic() != null) {
                createDeadLetterTopic(admin, config.deadLetter().topic());
                producer = new KafkaProducer<>(properties(config, Map.of(
                        ProducerConfig.ACKS_CONFIG, "all",
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                        // one bounded attempt per dead letter, on a consumer's poll thread (DeadLetterQueue#write)
                        ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000",
                        ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000",
                        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "15000",
                        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                        ProducerConfig.CLIENT_ID_CONFIG, "sluice-sources-dlq-" + instance)));
            }
            s = new KafkaSources(config, admin, producer, time);
            SourcePositions positions = new SourcePositions(sink, config,
                    SourcePositions.committedOffsets(config, s::committed));
            positions.createSchema(time);
            DeadLetterQueue dlq = producer == null ? null
                    : new DeadLetterQueue(config.deadLetter(), config.group(), producer, time, Duration.ofSeconds(20));
            if (metrics instanceof PrometheusMetrics p) {
                p.knownSources(config.grouped().stream().map(Sources.Topic::topic)
                        .filter(Objects::nonNull).toList());
            }
            SourceConsumer.Topics topics = s.topics();
            for (int i = 0; i < (config.grouped().isEmpty() ? 0 : config.consumers()); i++) {
                KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProperties(config, parts, Map.of(
                        ConsumerConfig.GROUP_ID_CONFIG, config.group(),
                        ConsumerConfig.CLIENT_ID_CONFIG, "sluice-sources-" + instance + "-" + i)));
                s.consumers.add(new SourceConsumer(i, c, topics, positions, parts, config, dlq, metrics, time,
                        Thread.ofPlatform().name("sluice-source-" + i).factory(),
                        Thread.ofPlatform().name("sluice-source-" + i + "-decode").daemon().factory()));
            }
            for (Debezium d : config.debezium()) {
                if (!d.transactions()) {
                    continue; // its table topics are the group's (grouped())
                }
                KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerProperties(config, parts, Map.of(
                        ConsumerConfig.CLIENT_ID_CONFIG, "sluice-debezium-" + d.prefix() + "-" + instance)));
                s.streams.add(new DebeziumStream(d, config, c, sink, parts, dlq, s.avro, metrics, time,
                        Thread.ofPlatform().name("sluice-debezium-" + d.prefix()).factory()));
            }
            KafkaSources built = s;
            metrics.sourceConsumers(config::consumers, () -> built.consumers.stream()
                    .filter(SourceConsumer::running).count());
            return s;
        } catch (GraphException | RuntimeException e) {
            if (s != null) {
                s.close();
            } else {
                if (producer != null) {
                    producer.close(Duration.ZERO);
                }
                admin.close(Duration.ZERO);
            }
            throw e;
        }
    }

    /** As Kafka Connect does: the dead-letter topic is created when missing (one partition, the broker's replication). */
    private static void createDeadLetterTopic(Admin admin, String topic) {
        try {
            if (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
                return; // there: no CREATE permission needed
            }
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(1),
                    Optional.empty()))).all().get(30, TimeUnit.SECONDS);
            log.info("created the dead-letter topic {}", topic);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create the dead-letter topic " + topic + ": " + e.getCause(),
                        e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted creating the dead-letter topic " + topic, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot create the dead-letter topic " + topic + " within 30 s", e);
        }
    }

    /** Starts the consumers' threads (each joins the group and polls) and the lag's. */
    @Override
    public void start() {
        for (SourceConsumer c : consumers) {
            c.start();
        }
        for (DebeziumStream d : streams) {
            d.start();
        }
        lag.start();
        log.info("applying {} from Kafka at {} as group {} ({} consumer{}){}", topicNames(config),
                config.bootstrap(), config.group(), config.consumers(), config.consumers() == 1 ? "" : "s",
                avro == null ? "" : ", Avro schemas from " + avro.url());
    }

    /** Records the group's consumers polled ahead, and of those dropped ({@code GroupConsumer#polledAhead}). */
    long[] polledAhead() {
        long[] sum = new long[2];
        for (SourceConsumer c : consumers) {
            long[] one = c.polledAhead();
            sum[0] += one[0];
            sum[1] += one[1];
        }
        return sum;
    }

    /** For the start-up line: the topics and the group ({@code Kafka orders, users as group sluice}). */
    @Override
    public String describe() {
        return "Kafka " + topicNames(config) + " as group " + config.group();
    }

    private static String topicNames(Sources.KafkaSource config) {
        List<String> names = new ArrayList<>();
        for (Sources.Topic t : config.grouped()) {
            names.add(t.name());
        }
        return String.join(", ", names);
    }

    /**
     * A consumer's settings, the group's members' and a Debezium stream's alike ({@code own}: the group or none, the
     * client id), then the file's properties.
     */
    private static Properties consumerProperties(Sources.KafkaSource config, RecordApplier.Parts parts,
            Map<String, String> own) {
        Map<String, String> p = new HashMap<>(own);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"); // the graph says where to start
        // records of aborted transactions are not applied (the file's properties may say otherwise)
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // a backlog's poll fills every partition's next batch up to the row limit
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(Math.max(500, 4 * parts.maxRows())));
        // and is not cut short by the fetch: a Debezium change event with its schema is some 3 KB, so 1 MB a
        // partition (Kafka's default) is ~300 records a round trip, a batch's worth at most (bench-debezium: 104
        // rows a batch for the stream before, ~1,400 after); reading ahead needs more than one batch a poll
        p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(8 << 20));
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return properties(config, p);
    }

    /** Sluice's settings, then the file's {@code properties} (which win: security, timeouts, the group protocol). */
    static Properties properties(Sources.KafkaSource c, Map<String, String> sluice) {
        Properties p = new Properties();
        p.put("bootstrap.servers", c.bootstrap());
        p.putAll(sluice);
        p.putAll(c.properties());
        return p;
    }

    /** One pattern for every entry: the named topics quoted, the regexes as they are. */
    static Pattern subscription(Sources.KafkaSource config) {
        List<String> alternatives = new ArrayList<>();
        for (Sources.Topic t : config.grouped()) {
            alternatives.add(t.topic() != null ? Pattern.quote(t.topic()) : "(?:" + t.regex() + ")");
        }
        return Pattern.compile(String.join("|", alternatives));
    }

    /** The entry that maps {@code topic}: one naming it, else the first regex matching it whole; null for none. */
    static Sources.Topic entryFor(Sources.KafkaSource config, String topic) {
        for (Sources.Topic t : config.grouped()) {
            if (topic.equals(t.topic())) {
                return t;
            }
        }
        for (Sources.Topic t : config.grouped()) {
            if (t.regex() != null && Pattern.compile(t.regex()).matcher(topic).matches()) {
                return t;
            }
        }
        return null;
    }

    private SourceConsumer.Topics topics() {
        return new SourceConsumer.Topics() {
            @Override
            public SourceTopic route(String topic) {
                SourceTopic known = routes.get(topic);
                if (known != null) {
                    return known;
                }
                Sources.Topic entry = entryFor(config, topic);
                return entry == null ? null : routes.computeIfAbsent(topic, t -> SourceTopic.of(t, entry, avro));
            }

            @Override
            public Pattern subscription() {
                return subscription;
            }
        };
    }

    private Map<TopicPartition, OffsetAndMetadata> committed(String group) {
        try {
            Map<TopicPartition, OffsetAndMetadata> m = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            log.info("group {} has committed offsets for {} partitions; those with no position in the graph start"
                    + " there", group, m.size());
            return m;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading group " + group + "'s offsets", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read group " + group + "'s committed offsets: " + e, e);
        }
    }

    /** Every partition this instance applies, with its position, lag and state. */
    public List<Map<String, Object>> partitions() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (SourceConsumer c : consumers) {
            out.addAll(c.status());
        }
        out.sort((a, b) -> {
            int byTopic = ((String) a.get("topic")).compareTo((String) b.get("topic"));
            return byTopic != 0 ? byTopic : Integer.compare((Integer) a.get("partition"), (Integer) b.get("partition"));
        });
        return out;
    }

    /** The sources' section of /health ({@code sources}): the group, and each partition applied here. */
    @Override
    public Map<String, Object> health() {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("group", config.group());
        h.put("consumers", config.consumers());
        h.put("consumers_running", consumers.stream().filter(SourceConsumer::running).count());
        h.put("partitions", partitions());
        if (!streams.isEmpty()) {
            h.put("debezium", streams.stream().map(DebeziumStream::status).toList());
        }
        return Map.of("sources", h);
    }

    /** Every consumer polls no more: each finishes its batch in flight, then leaves the group. */
    @Override
    public void stopAccepting() {
        for (SourceConsumer c : consumers) {
            c.stop(); // all at once, not one batch after another
        }
        for (DebeziumStream d : streams) {
            d.stop();
        }
    }

    /** Waits up to {@code wait} for every consumer to have finished its batch and left the group. */
    @Override
    public boolean drain(Duration wait) {
        stopAccepting();
        long deadline = time.nanos() + wait.toNanos();
        boolean drained = true;
        for (SourceConsumer c : consumers) {
            drained &= c.drain(Duration.ofNanos(Math.max(0, deadline - time.nanos())));
        }
        for (DebeziumStream d : streams) {
            drained &= d.drain(Duration.ofNanos(Math.max(0, deadline - time.nanos())));
        }
        return drained;
    }

    @Override
    public void close() {
        closing.countDown();
        try {
            if (lag.isAlive() && !lag.join(Duration.ofSeconds(10))) {
                log.warn("{} did not stop within 10 s", lag.getName());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stopAccepting();
        for (SourceConsumer c : consumers) {
            c.close();
        }
        for (DebeziumStream d : streams) {
            d.close();
        }
        if (producer != null) {
            producer.close(Duration.ofSeconds(10));
        }
        admin.close(Duration.ofSeconds(10));
    }
}
