package io.sluice.source;

import io.sluice.config.Sources;
import io.sluice.durable.GraphPositions;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.StatementResult;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import io.sluice.consumer.GroupConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where each application-topic partition stands: the graph's {@code (:SluicePosition {source: "topic:<name>",
 * partition, next})}, as for the journals ({@link GraphPositions}: written with each batch, fenced). A partition's
 * node is created {@link #UNSET}; its first owner fixes the start once ({@link #resolve}), in this order: the
 * connector's EOS node ({@code (:<eos_offset_label> {topic, partition}).offset}, the last offset it applied: exact,
 * from the graph), the committed offset of {@code from_group} (the connector's consumer group: what Kafka Connect
 * recorded, at least once), then {@code start} (earliest or latest). From then on only the graph decides.
 * Thread-safe.
 */
final class SourcePositions {
    private static final Logger log = LoggerFactory.getLogger(SourcePositions.class);

    /** A partition no owner has started yet. */
    static final long UNSET = -1;

    /** A new node says UNSET: no earlier version's node to adopt ({@code l} is null, so nothing is deleted). */
    private static final GraphPositions.Legacy UNSET_AT_FIRST = new GraphPositions.Legacy(
            "WITH null AS l, " + UNSET + " AS legacy", Map.of());

    private final Sink sink;
    private final Sources.KafkaSource config;
    private final Function<TopicPartition, Long> groupOffset;
    private final Map<String, GraphPositions> byTopic = new ConcurrentHashMap<>();

    /** {@code groupOffset}: {@code from_group}'s committed offset of a partition, or null (none, or no such group). */
    SourcePositions(Sink sink, Sources.KafkaSource config, Function<TopicPartition, Long> groupOffset) {
        this.sink = sink;
        this.config = config;
        this.groupOffset = groupOffset;
    }

    static String source(String topic) {
        return "topic:" + topic;
    }

    GraphPositions of(String topic) {
        return byTopic.computeIfAbsent(topic, t -> new GraphPositions(sink, source(t), UNSET_AT_FIRST));
    }

    void createSchema(Time time) throws GraphException {
        new GraphPositions(sink, source(""), UNSET_AT_FIRST).createSchema(time); // one constraint for every source
    }

    /** The next offset of {@code tp} to apply, fixing its start first when no owner has yet. */
    long resolve(TopicPartition tp, GroupConsumer.Offsets offsets) throws GraphException {
        GraphPositions positions = of(tp.topic());
        long next = positions.readLocked(tp.partition());
        if (next != UNSET) {
            return next;
        }
        String from;
        Long start = eosOffset(tp);
        if (start != null) {
            from = "the connector's " + config.eosOffsetLabel() + " node";
        } else if ((start = groupOffset.apply(tp)) != null) {
            from = "group " + config.fromGroup() + "'s committed offset";
        } else {
            from = "the " + config.start().yamlName() + " offset";
            start = config.start() == Sources.Start.EARLIEST ? offsets.beginning(tp) : offsets.end(tp);
        }
        try {
            positions.advanceAlone(tp.partition(), UNSET, start);
            log.info("{} starts at offset {}: {}", tp, start, from);
            return start;
        } catch (GraphException e) {
            if (GraphPositions.FENCED.equals(e.error().code())) {
                return positions.readLocked(tp.partition()); // another owner fixed it first
            }
            throw e;
        }
    }

    private Long eosOffset(TopicPartition tp) throws GraphException {
        if (config.eosOffsetLabel() == null) {
            return null;
        }
        StatementResult r = sink.inReadTransaction(tx -> tx.run("MATCH (k:`" + config.eosOffsetLabel()
                + "` {topic: $t, partition: $p}) RETURN max(k.offset)", Map.of("t", tp.topic(),
                "p", (long) tp.partition())));
        Object last = r.rows().getFirst().getFirst();
        return last instanceof Number n ? n.longValue() + 1 : null;
    }

    /** {@code from_group}'s committed offsets, read once, lazily. */
    static Function<TopicPartition, Long> committedOffsets(Sources.KafkaSource config,
            Function<String, Map<TopicPartition, OffsetAndMetadata>> read) {
        if (config.fromGroup() == null) {
            return tp -> null;
        }
        var once = new AtomicReference<Map<TopicPartition, OffsetAndMetadata>>();
        return tp -> {
            synchronized (once) {
                if (once.get() == null) {
                    once.set(read.apply(config.fromGroup()));
                }
            }
            OffsetAndMetadata o = once.get().get(tp);
            return o == null ? null : o.offset();
        };
    }
}
