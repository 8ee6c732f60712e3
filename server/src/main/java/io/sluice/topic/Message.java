package io.sluice.topic;

import java.util.Map;

/**
 * A topic record as the strategies see it: its key and value read by their formats ({@link Formats}) into the
 * values Neo4j takes as parameters (null, Boolean, Long, Double, String, byte[], java.time values, and Lists and
 * Maps of them; Kafka Connect's Decimal as a String), its headers by name (the last of a repeated name), and its
 * timestamp (epoch milliseconds).
 */
public record Message(String topic, int partition, long offset, long timestamp, Object key, Object value,
        Map<String, Object> headers) {
    public Message {
        headers = headers == null ? Map.of() : headers;
    }

    /** A tombstone: a record whose value is null (a deletion, to the strategies that read it so). */
    public boolean tombstone() {
        return value == null;
    }

    /** Where it came from, for errors: {@code topic[partition]@offset}. */
    public String at() {
        return topic + "[" + partition + "]@" + offset;
    }
}
