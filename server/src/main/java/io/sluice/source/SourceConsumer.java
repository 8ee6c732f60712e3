package io.sluice.source;

import io.sluice.config.Sources;
import io.sluice.consumer.GroupConsumer;
import io.sluice.consumer.Partition;
import io.sluice.durable.GraphPositions;
import io.sluice.durable.RecordApplier;
import io.sluice.durable.RecordCodec;
import io.sluice.metrics.Metrics;
import io.sluice.time.Time;
import io.sluice.topic.Formats;
import io.sluice.topic.Strategy;
import io.sluice.vocab.GraphException;
import io.sluice.write.WriteRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * One member of the sources' consumer group: the application topics as a {@link GroupConsumer} applies them (one
 * thread polling, outages paused and retried from the graph's position while it keeps polling). What is the
 * sources' own: the subscription (the named topics and regexes), each topic's formats and strategy
 * ({@link SourceTopic}), a batch in offset order across templates ({@code inOrder}), where a partition starts the
 * first time ({@link SourcePositions#resolve}: the connector's EOS node, a group's committed offsets, or the start
 * setting), what a record that fails alone does ({@link OnError}), and the partitions' metrics and status.
 */
final class SourceConsumer implements GroupConsumer.Log, AutoCloseable {

    /** What the consumer needs of the service: the topics' routes. */
    interface Topics {
        /** The strategy and formats for {@code topic}; null when no entry of the config matches it. */
        SourceTopic route(String topic);

        /** The subscription: the named topics and every regex, as one pattern. */
        Pattern subscription();
    }

    private final Topics topics;
    private final SourcePositions positions;
    private final RecordApplier.Parts parts;
    private final OnError onError;
    private final Metrics metrics;
    private final Time time;
    private final GroupConsumer driver;
    /** Reads a poll's records ahead while the batch before them applies (RecordApplier's DecodeAhead). */
    private final ExecutorService decoder;
    /** Records dead-lettered or skipped since a partition's last progress: not counted as applied. */
    private final Map<TopicPartition, Long> movedPastFailed = new ConcurrentHashMap<>(); // the owner's and worker's

    SourceConsumer(int task, Consumer<byte[], byte[]> consumer, Topics topics, SourcePositions positions,
            RecordApplier.Parts parts, Sources.KafkaSource config, DeadLetterQueue deadLetters, Metrics metrics,
            Time time, ThreadFactory threads, ThreadFactory decoderThread) {
        this.topics = topics;
        this.positions = positions;
        this.parts = parts;
        this.metrics = metrics;
        this.time = time;
        this.driver = new GroupConsumer("source consumer " + task, consumer, this, time, threads);
        this.decoder = Executors.newSingleThreadExecutor(decoderThread);
        this.onError = new OnError(task, config, deadLetters, metrics, time, driver::partition,
                tp -> movedPastFailed.merge(tp, 1L, Long::sum));
    }

    SourceConsumer start() {
        driver.start();
        return this;
    }

    /** Whether its thread still runs (it ends at close, or on an error it cannot go on from, logged). */
    boolean running() {
        return driver.running();
    }

    /** Records polled ahead, and of those dropped ({@link GroupConsumer#polledAhead}). */
    long[] polledAhead() {
        return driver.polledAhead();
    }

    /** The partitions this consumer owns now. */
    Collection<Partition> owned() {
        return driver.owned();
    }

    @Override
    public void subscribe(Consumer<byte[], byte[]> consumer, ConsumerRebalanceListener listener) {
        consumer.subscribe(topics.subscription(), listener);
    }

    @Override
    public RecordApplier<ConsumerRecord<byte[], byte[]>> applier(String topic, RecordApplier.Progress progress) {
        SourceTopic route = topics.route(topic);
        return route == null ? null : parts.inOrder(new Records(route), positions.of(topic),
                (partition, r, error) -> onError.deadLetter(route, r, error), progress, time, decoder);
    }

    @Override
    public long position(TopicPartition tp, GroupConsumer.Offsets offsets) throws GraphException {
        return positions.resolve(tp, offsets);
    }

    @Override
    public GraphPositions positions(String topic) {
        return positions.of(topic);
    }

    @Override
    public void assigned(Partition p) {
        TopicPartition tp = p.tp();
        movedPastFailed.remove(tp);
        metrics.sourcePartition(tp.topic(), tp.partition(), () -> lagRecords(tp), () -> lagSeconds(tp));
    }

    @Override
    public void moved(Partition p, long before, long next) {
        if (next > before && before >= 0) {
            Long failed = movedPastFailed.remove(p.tp());
            long applied = Math.max(0, next - before - (failed == null ? 0 : failed));
            if (applied > 0) {
                metrics.sourceRecords(p.tp().topic(), "applied", applied);
            }
        }
    }

    private Number lagRecords(TopicPartition tp) {
        Partition p = driver.partition(tp);
        return p == null ? Double.NaN : p.lagRecords();
    }

    private Number lagSeconds(TopicPartition tp) {
        Partition p = driver.partition(tp);
        return p == null ? Double.NaN : p.lagSeconds(time);
    }

    /** A partition's standing, for /health and status. */
    static Map<String, Object> status(Partition p, Number lagRecords, Number lagSeconds) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("topic", p.tp().topic());
        m.put("partition", p.tp().partition());
        m.put("next", p.next());
        m.put("lag_records", lagRecords.doubleValue() != lagRecords.doubleValue() ? null : lagRecords.longValue());
        m.put("lag_seconds", lagSeconds.doubleValue() != lagSeconds.doubleValue() ? null : lagSeconds.doubleValue());
        m.put("state", p.paused() ? "paused" : "applying");
        if (p.pausedFor() != null) {
            m.put("reason", p.pausedFor());
        }
        return m;
    }

    List<Map<String, Object>> status() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Partition p : driver.owned()) {
            out.add(status(p, p.lagRecords(), p.lagSeconds(time)));
        }
        return out;
    }

    /** A topic's records: read by its formats, mapped by its strategy (on the decoder's thread too: stateless). */
    private record Records(SourceTopic topic) implements RecordApplier.Records<ConsumerRecord<byte[], byte[]>> {
        @Override
        public long offset(ConsumerRecord<byte[], byte[]> r) {
            return r.offset();
        }

        @Override
        public long bytes(ConsumerRecord<byte[], byte[]> r) {
            return (r.key() == null ? 0 : r.key().length) + (r.value() == null ? 0 : r.value().length);
        }

        @Override
        public WriteRequest decode(ConsumerRecord<byte[], byte[]> r) throws RecordCodec.Undecodable,
                RecordApplier.Unavailable {
            try {
                return topic.request(r, bytes(r));
            } catch (Formats.Unreadable | Strategy.Invalid e) {
                throw new RecordCodec.Undecodable(e.getMessage());
            }
        }
    }

    /** Asks the thread to finish its batch and leave the group; {@link #close} waits for it. */
    void stop() {
        driver.stop();
    }

    /** Waits up to {@code wait} for the thread to end (after {@link #stop}); true when it has, or never started. */
    boolean drain(Duration wait) {
        return driver.drain(wait);
    }

    @Override
    public void close() {
        driver.close();
        decoder.shutdownNow(); // the driver's thread has ended: nothing takes what it would decode
    }
}
