package io.sluice.config;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
import java.util.Map;

/**
 * {@code journal.kafka}: the async journal on Kafka (docs/SCALING.md): {@code bootstrap} servers (null when the file
 * has none: {@code --kafka} may give them, checked at start); the {@code topic} (created with {@code partitions}
 * when missing; the number is fixed: adding partitions would move keys and break their order), the consumer
 * {@code group} all instances share, at most {@code maxLagRecords} records produced and not yet applied over the
 * whole topic (at the bound async writes wait, then 503), {@code sendTimeout} for Kafka's acknowledgement (then
 * 503), the {@code deadLetterTopic} (by default the topic's name and {@code -dead-letters}); {@code properties} go
 * to every Kafka client (security settings: {@code security.protocol}, {@code sasl.*}, {@code ssl.*}),
 * {@code producer} and {@code consumer} to one kind only, after sluice's own settings.
 */
public record Kafka(String bootstrap, String topic, int partitions, String group, long maxLagRecords,
        Duration sendTimeout, String deadLetterTopic, Map<String, String> properties, Map<String, String> producer,
        Map<String, String> consumer) {
    public static final Kafka DEFAULT = new Kafka(null, "sluice-writes", 8, "sluice", 1_000_000,
            Duration.ofSeconds(10), deadLetters("sluice-writes"), Map.of(), Map.of(), Map.of());

    public Kafka {
        bootstrap = bootstrap == null || bootstrap.isBlank() ? null : bootstrap;
        requireNonNull(topic, "journal.kafka.topic");
        requireNonNull(group, "journal.kafka.group");
        requireNonNull(sendTimeout, "journal.kafka.send_timeout");
        requireNonNull(deadLetterTopic, "journal.kafka.dead_letter_topic");
        properties = Map.copyOf(properties);
        producer = Map.copyOf(producer);
        consumer = Map.copyOf(consumer);
        if (partitions < 1 || maxLagRecords < 1 || !sendTimeout.isPositive()) {
            throw new IllegalArgumentException("journal.kafka: partitions and max_lag_records must be >= 1 and"
                    + " send_timeout positive");
        }
    }

    @JsonCreator
    static Kafka fromYaml(@JsonProperty("bootstrap") String bootstrap, @JsonProperty("topic") String topic,
            @JsonProperty("partitions") Integer partitions, @JsonProperty("group") String group,
            @JsonProperty("max_lag_records") Long maxLagRecords, @JsonProperty("send_timeout") Duration sendTimeout,
            @JsonProperty("dead_letter_topic") String deadLetterTopic,
            @JsonProperty("properties") Map<String, String> properties,
            @JsonProperty("producer") Map<String, String> producer,
            @JsonProperty("consumer") Map<String, String> consumer) {
        String t = requireNonNullElse(topic, DEFAULT.topic);
        return new Kafka(
                bootstrap,
                t,
                requireNonNullElse(partitions, DEFAULT.partitions),
                requireNonNullElse(group, DEFAULT.group),
                requireNonNullElse(maxLagRecords, DEFAULT.maxLagRecords),
                requireNonNullElse(sendTimeout, DEFAULT.sendTimeout),
                requireNonNullElse(deadLetterTopic, deadLetters(t)),
                requireNonNullElse(properties, DEFAULT.properties),
                requireNonNullElse(producer, DEFAULT.producer),
                requireNonNullElse(consumer, DEFAULT.consumer));
    }

    /** The dead-letter topic of {@code topic} when the file names none. */
    private static String deadLetters(String topic) {
        return topic + "-dead-letters";
    }

    /** The same at other bootstrap servers. */
    public Kafka withBootstrap(String bootstrap) {
        return new Kafka(bootstrap, topic, partitions, group, maxLagRecords, sendTimeout, deadLetterTopic, properties,
                producer, consumer);
    }

    /** The same on another topic, its dead letters on that topic's default dead-letter topic. */
    public Kafka withTopic(String topic) {
        return new Kafka(bootstrap, topic, partitions, group, maxLagRecords, sendTimeout, deadLetters(topic),
                properties, producer, consumer);
    }

    /** The same with another number of partitions for the topic it creates. */
    public Kafka withPartitions(int partitions) {
        return new Kafka(bootstrap, topic, partitions, group, maxLagRecords, sendTimeout, deadLetterTopic, properties,
                producer, consumer);
    }

    /** The same in another consumer group. */
    public Kafka withGroup(String group) {
        return new Kafka(bootstrap, topic, partitions, group, maxLagRecords, sendTimeout, deadLetterTopic, properties,
                producer, consumer);
    }

    /** The same with other settings for the consumer only. */
    public Kafka withConsumer(Map<String, String> consumer) {
        return new Kafka(bootstrap, topic, partitions, group, maxLagRecords, sendTimeout, deadLetterTopic, properties,
                producer, consumer);
    }
}
