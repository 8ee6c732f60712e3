package io.sluice.source;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** What the sources' tests read back from a topic (the dead letters): its records, and a header's text. */
final class TopicReads {
    private static final AtomicInteger READERS = new AtomicInteger();

    private TopicReads() {}

    /**
     * The records of {@code topic} from its start: at least {@code atLeast} of them (waiting up to 60 s), then any
     * that come within {@code quiet} more (so a test that expects none, or no more, waits that long to be sure).
     */
    static List<ConsumerRecord<byte[], byte[]>> records(String bootstrap, String topic, int atLeast, Duration quiet) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.GROUP_ID_CONFIG, "reader-" + READERS.incrementAndGet() + "-" + System.nanoTime());
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (out.size() < atLeast && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            c.poll(quiet).forEach(out::add);
        }
        return out;
    }

    static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
