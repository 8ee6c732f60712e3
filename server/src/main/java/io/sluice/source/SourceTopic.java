package io.sluice.source;

import io.sluice.config.Format;
import io.sluice.cdc.DebeziumMapping;
import io.sluice.config.Sources;
import io.sluice.durable.RecordApplier;
import io.sluice.topic.AvroReader;
import io.sluice.topic.CudStrategy;
import io.sluice.topic.CypherStrategy;
import io.sluice.topic.Formats;
import io.sluice.topic.Message;
import io.sluice.topic.PatternStrategy;
import io.sluice.topic.Strategy;
import io.sluice.write.WriteRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * One application topic as sluice applies it: its formats and its strategy (made for this topic: a regex entry
 * makes one per topic it matches). Immutable; shared by the consumers.
 */
record SourceTopic(String name, Sources.Topic config, Strategy strategy, AvroReader avro) {
    /** How a key's or value's reading failure begins (a dead letter's stage tells them apart by it). */
    static final String KEY = "key: ";
    static final String VALUE = "value: ";

    /** Without a schema registry: for checking the mapping, or a topic that reads no avro. */
    static SourceTopic of(String name, Sources.Topic config) {
        return of(name, config, null);
    }

    /** {@code avro}: the schema registry's reader, for a topic whose key or value is avro (null: none). */
    static SourceTopic of(String name, Sources.Topic config, AvroReader avro) {
        Strategy s;
        if (config.debezium() != null) {
            s = new DebeziumMapping(config.debezium());
        } else if (config.cypher() != null) {
            s = new CypherStrategy(name, config.cypher());
        } else if (config.pattern() != null) {
            s = new PatternStrategy(name, config.pattern());
        } else {
            s = new CudStrategy(name);
        }
        return new SourceTopic(name, config, s, avro);
    }

    /** What a dead letter names as the failing class (Kafka Connect's {@code __connect.errors.class.name}). */
    String strategyName() {
        return strategy.getClass().getName();
    }

    /** The write one record carries: its operations, in order, atomically. */
    WriteRequest request(ConsumerRecord<byte[], byte[]> r, long bytes) throws Formats.Unreadable, Strategy.Invalid,
            RecordApplier.Unavailable {
        Object key;
        try {
            key = read(r.key(), config.keyFormat(), false);
        } catch (Formats.Unreadable e) {
            throw new Formats.Unreadable(KEY + e.getMessage());
        }
        Object value;
        try {
            value = read(r.value(), config.valueFormat(), true);
        } catch (Formats.Unreadable e) {
            throw new Formats.Unreadable(VALUE + e.getMessage());
        }
        Map<String, Object> headers = new LinkedHashMap<>();
        for (Header h : r.headers()) {
            headers.put(h.key(), Formats.header(h.value())); // the last of a name wins, as in Connect
        }
        Message m = new Message(r.topic(), r.partition(), r.offset(), r.timestamp(), key, value, headers);
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

    private Object read(byte[] bytes, Format format, boolean isValue) throws Formats.Unreadable,
            RecordApplier.Unavailable {
        if (format != Format.AVRO) {
            return config.debezium() != null ? Formats.readDebezium(bytes, format, isValue)
                    : Formats.read(bytes, format, isValue);
        }
        if (avro == null) { // KafkaSource refuses an avro topic without a registry
            throw new IllegalStateException("topic " + name + " reads avro but has no schema registry");
        }
        try {
            return config.debezium() != null ? avro.readDebezium(bytes) : avro.read(bytes);
        } catch (Formats.Unavailable e) {
            throw new RecordApplier.Unavailable(e.getMessage(), e.getCause());
        }
    }
}
