package io.sluice.source;

import io.sluice.config.Sources;
import io.sluice.write.WriteRequest;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One application topic as sluice applies it: its formats and its strategy (made for this topic: a regex entry
 * makes one per topic it matches). Immutable; shared by the consumers.
 */
record SourceTopic(String name, Sources.Topic config, Strategy strategy) {
    /** How a key's or value's reading failure begins (a dead letter's stage tells them apart by it). */
    static final String KEY = "key: ";
    static final String VALUE = "value: ";

    static SourceTopic of(String name, Sources.Topic config) {
        Strategy s;
        if (config.cypher() != null) {
            s = new CypherStrategy(name, config.cypher());
        } else if (config.pattern() != null) {
            s = new PatternStrategy(name, config.pattern());
        } else {
            s = new CudStrategy(name);
        }
        return new SourceTopic(name, config, s);
    }

    /** What a dead letter names as the failing class (Kafka Connect's {@code __connect.errors.class.name}). */
    String strategyName() {
        return strategy.getClass().getName();
    }

    /** The write one record carries: its operations, in order, atomically. */
    WriteRequest request(ConsumerRecord<byte[], byte[]> r, long bytes) throws Formats.Unreadable, Strategy.Invalid {
        Object key;
        try {
            key = Formats.read(r.key(), config.keyFormat(), false);
        } catch (Formats.Unreadable e) {
            throw new Formats.Unreadable(KEY + e.getMessage());
        }
        Object value;
        try {
            value = Formats.read(r.value(), config.valueFormat(), true);
        } catch (Formats.Unreadable e) {
            throw new Formats.Unreadable(VALUE + e.getMessage());
        }
        Message m = new Message(r.topic(), r.partition(), r.offset(), r.timestamp(), key, value,
                Formats.headers(r.headers()));
        List<Strategy.Op> ops = strategy.ops(m);
        if (ops.size() == 1) {
            Strategy.Op op = ops.getFirst();
            return new WriteRequest.TemplateRequest(op.template(), List.of(op.row()), bytes);
        }
        List<WriteRequest.TemplateRequest> parts = new ArrayList<>(ops.size());
        for (Strategy.Op op : ops) {
            parts.add(new WriteRequest.TemplateRequest(op.template(), List.of(op.row()), 0));
        }
        return new WriteRequest.Sequence(parts, bytes);
    }
}
