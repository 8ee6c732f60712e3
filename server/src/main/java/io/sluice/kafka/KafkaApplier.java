package io.sluice.kafka;

import io.sluice.consumer.GroupConsumer;
import io.sluice.consumer.Partition;
import io.sluice.durable.GraphPositions;
import io.sluice.durable.RecordApplier;
import io.sluice.durable.RecordCodec;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadFactory;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Applies the partitions of the journal's topic that Kafka's group gives this instance, each exactly once and in
 * order: the journal's records (sluice's own request format) as a {@link GroupConsumer} applies them, the driver
 * every Kafka consumer of sluice's shares. One thread polls; a batch not applied (Neo4j away past the runner's
 * bounded retries, a lost commit, the fence) pauses its partition, which retries from its position in the graph
 * ({@link GraphPositions#readLocked}) with backoff while the thread keeps polling, so an outage of any length
 * neither skips a record nor costs the instance its place in the group. A record that fails alone is dead-lettered
 * (to the dead-letter topic, acknowledged) before anything after it is applied.
 *
 * <p>Exactly once rests on the graph, not on Kafka's committed offsets (which are never read): every batch
 * transaction fences and advances the partition's node ({@link GraphPositions#advance}); a zombie owner applying
 * records it fetched before losing the partition is fenced, rolls back, and re-reads the position.
 */
final class KafkaApplier implements GroupConsumer.Log, AutoCloseable {

    /** Dead-letters a record that failed alone (source partition, offset, payload, error); must not return before it is durable. */
    interface DeadLetterSink {
        void deadLetter(int partition, long offset, byte[] payload, Neo4jError error);
    }

    private final String topic;
    private final GraphPositions offsets;
    private final RecordApplier.Parts parts;
    private final Map<String, Template> templates;
    private final DeadLetterSink deadLetters;
    private final BiConsumer<Integer, Long> applied;
    private final Time time;
    private final GroupConsumer driver;

    /**
     * {@code applied} hears each partition's new position once a batch is committed there, and when its position
     * is read; {@code parts}: the apply loop's runner (its retries bounded: past them the partition pauses) and row
     * limits.
     */
    KafkaApplier(Consumer<byte[], byte[]> consumer, String topic, GraphPositions offsets, RecordApplier.Parts parts,
            Map<String, Template> templates, DeadLetterSink deadLetters, BiConsumer<Integer, Long> applied, Time time,
            ThreadFactory threads) {
        this.topic = topic;
        this.offsets = offsets;
        this.parts = parts;
        this.templates = templates;
        this.deadLetters = deadLetters;
        this.applied = applied;
        this.time = time;
        this.driver = new GroupConsumer("the Kafka applier", consumer, this, time, threads);
    }

    /** A topic's records in sluice's own request format. */
    private record Records(Map<String, Template> templates)
            implements RecordApplier.Records<ConsumerRecord<byte[], byte[]>> {
        @Override
        public long offset(ConsumerRecord<byte[], byte[]> r) {
            return r.offset();
        }

        @Override
        public long bytes(ConsumerRecord<byte[], byte[]> r) {
            return r.value() == null ? 0 : r.value().length;
        }

        @Override
        public WriteRequest decode(ConsumerRecord<byte[], byte[]> r) throws RecordCodec.Undecodable {
            if (r.value() == null) {
                throw new RecordCodec.Undecodable("not a sluice request (no value)");
            }
            return RecordCodec.decode(r.value(), templates);
        }
    }

    @Override
    public void subscribe(Consumer<byte[], byte[]> consumer, ConsumerRebalanceListener listener) {
        consumer.subscribe(List.of(topic), listener);
    }

    @Override
    public RecordApplier<ConsumerRecord<byte[], byte[]>> applier(String t, RecordApplier.Progress progress) {
        if (!t.equals(topic)) {
            return null;
        }
        return parts.over(new Records(templates), offsets, (partition, r, error) -> {
            deadLetters.deadLetter(partition, r.offset(), r.value(), error);
            return true;
        }, progress, time);
    }

    @Override
    public long position(TopicPartition tp, GroupConsumer.Offsets brokers) throws GraphException {
        long next = offsets.readLocked(tp.partition());
        applied.accept(tp.partition(), next);
        return next;
    }

    @Override
    public GraphPositions positions(String t) {
        return offsets;
    }

    @Override
    public void moved(Partition p, long before, long next) {
        applied.accept(p.tp().partition(), next);
    }

    /** The apply loop's transient retries, per Neo4j status code. */
    Map<String, Long> transientRetries() {
        return driver.transientRetries();
    }

    KafkaApplier start() {
        driver.start();
        return this;
    }

    /** The partitions this instance applies now, and where each stands (once its position was read). */
    Map<Integer, Long> positions() {
        Map<Integer, Long> out = new TreeMap<>();
        for (Partition p : driver.owned()) {
            if (p.next() >= 0) {
                out.put(p.tp().partition(), p.next());
            }
        }
        return out;
    }

    @Override
    public void close() {
        driver.close();
    }
}
