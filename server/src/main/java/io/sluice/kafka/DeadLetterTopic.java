package io.sluice.kafka;

import io.sluice.config.Kafka;
import io.sluice.durable.RecordCodec;
import io.sluice.time.Time;
import io.sluice.vocab.Neo4jError;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka journal's dead letters: a topic of one partition, each record the failed request's payload with its
 * source partition, offset, error and time in headers, acknowledged ({@code acks=all}) before the applier moves
 * past it. Listed for {@code GET /db/{db}/dead-letters} by a short-lived consumer. Thread-safe.
 */
final class DeadLetterTopic {
    private static final Logger log = LoggerFactory.getLogger(DeadLetterTopic.class);

    private final Kafka config;
    private final KafkaProducer<byte[], byte[]> producer;
    private final Time time;
    private final BooleanSupplier stopping;

    DeadLetterTopic(Kafka config, KafkaProducer<byte[], byte[]> producer, Time time,
            BooleanSupplier stopping) {
        this.config = config;
        this.producer = producer;
        this.time = time;
        this.stopping = stopping;
    }

    /** Dead-letters one record; returns once Kafka acknowledged it, retrying until then (or until stopping). */
    void add(int partition, long offset, byte[] payload, Neo4jError error) {
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
                if (stopping.getAsBoolean()) {
                    throw new IllegalStateException("stopping before dead-lettering partition " + partition
                            + " offset " + offset);
                }
            }
        }
    }

    /** Dead letters from the {@code from}-th, at most {@code limit}, of the {@code end} there are. */
    List<Map<String, Object>> list(long from, int limit, long end) {
        List<Map<String, Object>> out = new ArrayList<>();
        if (from >= end || limit == 0) {
            return out;
        }
        TopicPartition tp = new TopicPartition(config.deadLetterTopic(), 0);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(KafkaClients.properties(config, Map.of(
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName()), Map.of()))) {
            c.assign(List.of(tp));
            c.seek(tp, from);
            long deadline = time.nanos() + Duration.ofSeconds(10).toNanos();
            while (out.size() < limit && c.position(tp) < end && time.nanos() - deadline < 0) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (out.size() < limit) {
                        out.add(entry(r));
                    }
                }
            }
        }
        return out;
    }

    private static Map<String, Object> entry(ConsumerRecord<byte[], byte[]> r) {
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
}
