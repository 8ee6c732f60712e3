package io.sluice.kafka;

import io.sluice.durable.GraphPositions;
import io.sluice.durable.RecordApplier;
import io.sluice.durable.RecordCodec;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the partitions of the topic that Kafka's group gives this instance, each exactly once and in order.
 *
 * <h2>Design</h2>
 * One thread owns the consumer: it polls, and applies what it got partition by partition through the one apply
 * loop for journaled records ({@link RecordApplier}: batches of adaptive size through the same batch runner as every
 * other write, with coalescing, lock order, bisection, transient retries, dead letters, the fenced position).
 * Rebalance callbacks run inside {@code poll} on this thread, so no batch is in flight when a partition is revoked:
 * a revoked partition's last batch has finished (or failed) before the new owner can read its offset.
 *
 * <p>Exactly once rests on the graph, not on Kafka's committed offsets (which are never read): on assignment the
 * partition's position is read from its node under the node's lock ({@link GraphPositions#readLocked}) and the
 * consumer seeks there; every batch transaction fences and advances that node ({@link GraphPositions#advance}).
 * A zombie owner that applies records it fetched before losing the partition is fenced by the lock-then-compare:
 * its transaction rolls back, and it re-reads the position. A record that fails alone is dead-lettered (to the
 * dead-letter topic, acknowledged) before anything after it is applied; if a batch's last records were
 * dead-lettered, the offset advances in a transaction of its own. Transient errors are retried without limit:
 * the record is durable, and skipping it would lose it.
 *
 * <p>{@link #close} sets a flag and wakes the consumer; the thread finishes its batch, leaves the group (which
 * moves its partitions to the others) and ends. Never interrupted: an interrupt inside Neo4j's file I/O closes its
 * channels.
 */
final class KafkaApplier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KafkaApplier.class);
    private static final Duration POLL = Duration.ofMillis(200);

    /** Dead-letters a record that failed alone (source partition, offset, payload, error); must not return before it is durable. */
    interface DeadLetterSink {
        void deadLetter(int partition, long offset, byte[] payload, Neo4jError error);
    }

    private final Consumer<byte[], byte[]> consumer;
    private final String topic;
    private final GraphPositions offsets;
    private final RecordApplier<ConsumerRecord<byte[], byte[]>> applier;
    private final BiConsumer<Integer, Long> applied;
    private final Time time;
    private final Thread thread;
    /** The next offset to apply of each partition this instance owns; written by the thread, read for /health. */
    private final Map<Integer, Long> positions = new ConcurrentHashMap<>();
    private volatile boolean stopping;

    /**
     * {@code applied} hears each partition's new position once a batch is committed there; {@code parts}: the apply
     * loop's runner and row limits.
     */
    KafkaApplier(Consumer<byte[], byte[]> consumer, String topic, GraphPositions offsets, RecordApplier.Parts parts,
            Map<String, Template> templates, DeadLetterSink deadLetters, BiConsumer<Integer, Long> applied, Time time,
            ThreadFactory threads) {
        this.consumer = consumer;
        this.topic = topic;
        this.offsets = offsets;
        this.applied = applied;
        this.time = time;
        this.applier = parts.over(new Records(templates),
                offsets, (partition, r, error) -> {
                    deadLetters.deadLetter(partition, r.offset(), r.value(), error);
                    return true;
                },
                (partition, next, rows, bytes) -> moved(partition, next), time);
        this.thread = threads.newThread(this::run);
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

    /** The apply loop's transient retries, per Neo4j status code. */
    Map<String, Long> transientRetries() {
        return applier.transientRetries();
    }

    KafkaApplier start() {
        thread.start();
        return this;
    }

    /** The partitions this instance applies now, and where each stands. */
    Map<Integer, Long> positions() {
        return Map.copyOf(positions);
    }

    private void run() {
        try {
            consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
                    for (TopicPartition tp : assigned) {
                        resync(tp.partition());
                    }
                    log.info("applying partitions {} of {}", assigned.stream().map(TopicPartition::partition).sorted().toList(), topic);
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
                    revoked.forEach(tp -> positions.remove(tp.partition()));
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> lost) {
                    lost.forEach(tp -> positions.remove(tp.partition()));
                    log.warn("partitions {} of {} were lost to another owner (this instance was too slow to poll)",
                            lost.stream().map(TopicPartition::partition).sorted().toList(), topic);
                }
            });
            while (!stopping) {
                ConsumerRecords<byte[], byte[]> records;
                try {
                    records = consumer.poll(POLL);
                } catch (WakeupException e) {
                    continue; // close() woke us: the loop condition decides
                }
                for (TopicPartition tp : records.partitions()) {
                    applyPartition(tp, records.records(tp));
                }
            }
        } catch (RuntimeException | Error e) {
            if (!stopping) {
                log.error("the Kafka applier stopped: {}", e.toString(), e);
            }
        } finally {
            try {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(10))); // leaves the group: the others take the partitions at once
            } catch (RuntimeException e) {
                log.warn("closing the Kafka consumer: {}", e.toString());
            }
        }
    }

    /** Reads the partition's position from the graph (under its lock), seeks there; retried until it works or close. */
    private void resync(int partition) {
        for (int attempt = 1; !stopping; attempt++) {
            try {
                long next = offsets.readLocked(partition);
                positions.put(partition, next);
                consumer.seek(new TopicPartition(topic, partition), next);
                applied.accept(partition, next);
                return;
            } catch (GraphException e) {
                if (attempt == 1 || attempt % 20 == 0) {
                    log.warn("reading where partition {} stands: {} (attempt {}; retrying)", partition, e.getMessage(), attempt);
                }
                try {
                    time.sleep(Duration.ofMillis(500));
                } catch (InterruptedException stopped) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void applyPartition(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> records) {
        int partition = tp.partition();
        Long position = positions.get(partition);
        if (position == null) {
            return; // revoked meanwhile (or never assigned): its new owner applies these
        }
        if (applier.apply(partition, position, records, () -> stopping || !positions.containsKey(partition)).resync()
                && !stopping) {
            resync(partition); // fenced, or the database went away: the graph says where it stands
        } // the rest of this poll's records for it are stale after a resync: the seek fetches them again
    }

    private void moved(int partition, long next) {
        positions.computeIfPresent(partition, (p, old) -> Math.max(old, next));
        applied.accept(partition, next);
    }

    @Override
    public void close() {
        stopping = true;
        consumer.wakeup();
        try {
            if (!thread.join(Duration.ofSeconds(30))) {
                log.warn("{} did not stop within 30 s", thread.getName());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
