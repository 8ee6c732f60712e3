package io.sluice.source;

import io.sluice.config.Sources;
import io.sluice.time.Time;
import io.sluice.vocab.Neo4jError;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sources' dead-letter topic, written as Kafka Connect's dead-letter queue reporter writes it, so tooling
 * built for the connector's DLQ reads sluice's: the record's own key, value and headers, and (with
 * {@code context_headers}) {@code __connect.errors.topic}, {@code .partition}, {@code .offset},
 * {@code .connector.name}, {@code .task.id}, {@code .stage}, {@code .class.name}, {@code .exception.class.name},
 * {@code .exception.message} and {@code .exception.stacktrace}. The exception's class is Neo4j's status code
 * (what a Java class name tells a Connect user), its message the error's, and the stacktrace says where the
 * record failed: alone after bisection, or unreadable.
 *
 * <p>The bound: at most {@code max_per_minute} dead letters per partition in any minute. A record past it is not
 * dead-lettered: {@link #admit} says no, the partition holds at it, and it is tried again when the minute has
 * passed. A flood of failures is an outage or a bad mapping far more often than bad data, and a flood drained into
 * the DLQ is work someone must replay by hand. Thread-safe: the consumers share one queue.
 */
final class DeadLetterQueue {
    private static final Logger log = LoggerFactory.getLogger(DeadLetterQueue.class);
    private static final Duration WINDOW = Duration.ofMinutes(1);
    private static final String PREFIX = "__connect.errors.";

    private final Sources.DeadLetter config;
    private final String connector;
    private final Producer<byte[], byte[]> producer;
    private final Time time;
    private final Duration sendTimeout;
    private final Map<TopicPartition, Deque<Long>> recent = new HashMap<>();

    DeadLetterQueue(Sources.DeadLetter config, String connector, Producer<byte[], byte[]> producer, Time time,
            Duration sendTimeout) {
        this.config = config;
        this.connector = connector;
        this.producer = producer;
        this.time = time;
        this.sendTimeout = sendTimeout;
    }

    /**
     * Whether {@code tp} may dead-letter one more record now; if not, the time (nanos, {@link Time#nanos}) from
     * which it may. Returns a negative number when it may, and counts the one it may.
     */
    synchronized long admit(TopicPartition tp) {
        long now = time.nanos();
        Deque<Long> times = recent.computeIfAbsent(tp, k -> new ArrayDeque<>());
        while (!times.isEmpty() && now - times.peekFirst() >= WINDOW.toNanos()) {
            times.pollFirst();
        }
        if (times.size() >= config.maxPerMinute()) {
            return times.peekFirst() + WINDOW.toNanos();
        }
        times.addLast(now);
        return -1;
    }

    /**
     * Writes the dead letter of {@code r}, one attempt bounded by the send timeout: null once Kafka acknowledged
     * it, else why not (the partition then holds at the record and tries again later, on a poll thread that must
     * not block past the group's poll interval). A dead letter whose acknowledgement was lost may be written again:
     * the dead-letter topic is at least once, as Kafka Connect's is.
     */
    String write(ConsumerRecord<byte[], byte[]> r, int task, String stage, String strategy, Neo4jError error) {
        ProducerRecord<byte[], byte[]> out = new ProducerRecord<>(config.topic(), null, r.key(), r.value());
        for (Header h : r.headers()) {
            out.headers().add(h.key(), h.value());
        }
        if (config.contextHeaders()) {
            add(out, "topic", r.topic());
            add(out, "partition", Integer.toString(r.partition()));
            add(out, "offset", Long.toString(r.offset()));
            add(out, "connector.name", connector);
            add(out, "task.id", Integer.toString(task));
            add(out, "stage", stage);
            add(out, "class.name", strategy);
            add(out, "exception.class.name", error.code());
            add(out, "exception.message", error.message());
            add(out, "exception.stacktrace", error.code() + ": " + error.message() + "\n\tat sluice " + stage
                    + " of " + r.topic() + "[" + r.partition() + "]@" + r.offset());
        }
        try {
            producer.send(out).get(sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
            log.warn("dead letter to {}: {}[{}]@{}: {} {}", config.topic(), r.topic(), r.partition(), r.offset(),
                    error.code(), error.message());
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            String why = e instanceof ExecutionException x && x.getCause() != null ? x.getCause().toString()
                    : e.toString();
            log.warn("cannot dead-letter {}[{}]@{} to {}: {}", r.topic(), r.partition(), r.offset(), config.topic(),
                    why);
            return why;
        }
    }

    private static void add(ProducerRecord<byte[], byte[]> r, String name, String value) {
        r.headers().add(PREFIX + name, value.getBytes(StandardCharsets.UTF_8));
    }
}
