package io.sluice.bench;

import io.sluice.config.Format;
import io.sluice.config.Sources;
import io.sluice.sink.Sink;
import io.sluice.topic.Formats;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sources bench's lower baseline ({@link SourcesBench}): what a consumer written without sluice does, one
 * transaction per record. {@code consumers} threads, each a {@link KafkaConsumer} of one group (so they share the
 * topic's partitions as sluice's consumers do), poll, read each record's value as sluice's JSON format reads it
 * ({@link Formats#read}: the same values), and run {@code WITH $event AS event <statement>} in a write transaction
 * of its own through the sink (a driver's {@code session.run} in auto-commit), in offset order; a transient error
 * (a deadlock between the threads) is retried, up to {@value #ATTEMPTS} times. Offsets are committed to Kafka
 * asynchronously after each poll's records, as such a consumer would; the bench reads its progress from
 * {@link #applied}, not from them.
 *
 * <p>Owns its threads, named {@code sluice-bench-naive-N}; {@link #close} sets a flag, wakes the consumers, and
 * joins each thread (bounded), which leaves its group and closes its consumer. Never interrupted: an interrupt
 * inside Neo4j's file I/O closes its channels.
 */
final class NaiveConsumer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NaiveConsumer.class);
    private static final int ATTEMPTS = 10;
    private static final Duration POLL = Duration.ofMillis(200);

    private final Sink sink;
    private final String cypher;
    private final Time time;
    private final LongAdder applied = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final AtomicLong firstApplied = new AtomicLong(Long.MIN_VALUE);
    private final AtomicReference<String> failure = new AtomicReference<>();
    private final List<KafkaConsumer<byte[], byte[]>> consumers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopping;

    /** Starts {@code consumers} threads reading {@code topic} from its start as {@code group}. */
    NaiveConsumer(String bootstrap, String topic, String group, int consumers, Sink sink, String statement,
            Time time) {
        this.sink = sink;
        this.cypher = "WITH $event AS event " + statement;
        this.time = time;
        for (int i = 0; i < consumers; i++) {
            Properties p = new Properties();
            p.put("bootstrap.servers", bootstrap);
            p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            p.put(ConsumerConfig.CLIENT_ID_CONFIG, "sluice-bench-naive-" + i);
            KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p);
            c.subscribe(List.of(topic));
            this.consumers.add(c);
        }
        for (int i = 0; i < consumers; i++) {
            KafkaConsumer<byte[], byte[]> c = this.consumers.get(i);
            threads.add(Thread.ofPlatform().name("sluice-bench-naive-" + i).start(() -> run(c)));
        }
    }

    /** Records applied so far, each in its own committed transaction. */
    long applied() {
        return applied.sum();
    }

    /** Transient errors retried. */
    long retries() {
        return retries.sum();
    }

    /** When the first record was applied ({@link Time#nanos}); {@link Long#MIN_VALUE}: none yet. */
    long firstApplied() {
        return firstApplied.get();
    }

    /** What stopped a consumer, or null. */
    String failure() {
        return failure.get();
    }

    private void run(KafkaConsumer<byte[], byte[]> consumer) {
        try {
            while (!stopping) {
                var records = consumer.poll(POLL);
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    if (stopping) {
                        return; // what is left of this poll is not applied: the bench counts what was
                    }
                    apply(r);
                }
                if (!records.isEmpty()) {
                    consumer.commitAsync();
                }
            }
        } catch (WakeupException e) {
            // close() woke it
        } catch (RuntimeException | GraphException | Formats.Unreadable e) {
            if (!stopping) {
                failure.compareAndSet(null, e.toString());
                log.error("naive consumer {} stopped: {}", Thread.currentThread().getName(), e.toString());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(10)));
            } catch (RuntimeException e) {
                log.warn("closing a naive consumer: {}", e.toString());
            }
        }
    }

    private void apply(ConsumerRecord<byte[], byte[]> r) throws GraphException, Formats.Unreadable,
            InterruptedException {
        Object event = Formats.read(r.value(), Format.JSON, true);
        for (int attempt = 1; ; attempt++) {
            try {
                sink.inTransaction(tx -> {
                    tx.runDiscarding(cypher, Map.of("event", event));
                    return null;
                });
                break;
            } catch (GraphException e) {
                if (!e.isTransient() || attempt >= ATTEMPTS) {
                    throw e;
                }
                retries.increment();
                time.sleep(Duration.ofMillis(attempt));
            }
        }
        applied.increment();
        firstApplied.compareAndSet(Long.MIN_VALUE, time.nanos());
    }

    @Override
    public void close() {
        stopping = true;
        consumers.forEach(KafkaConsumer::wakeup);
        for (Thread t : threads) {
            try {
                if (!t.join(Duration.ofSeconds(30))) {
                    log.warn("{} did not stop within 30 s", t.getName());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
