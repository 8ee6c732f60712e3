package io.sluice.kafka;

import io.sluice.apply.BatchRunner;
import io.sluice.batch.Pending;
import io.sluice.durable.RecordCodec;
import io.sluice.sink.Neo4jError;
import io.sluice.sink.Sink;
import io.sluice.sink.SinkException;
import io.sluice.time.Time;
import io.sluice.write.Outcome;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.function.BiConsumer;
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
 * One thread owns the consumer: it polls, and applies what it got partition by partition, in batches of up to
 * {@code maxRows} rows through the same {@link BatchRunner} as every other write (coalescing, lock order,
 * bisection, transient retries). Rebalance callbacks run inside {@code poll} on this thread, so no batch is in
 * flight when a partition is revoked: a revoked partition's last batch has finished (or failed) before the new
 * owner can read its offset.
 *
 * <p>Exactly once rests on the graph, not on Kafka's committed offsets (which are never read): on assignment the
 * partition's position is read from its offset node under the node's lock ({@link GraphOffsets#readLocked}) and
 * the consumer seeks there; every batch transaction fences and advances that node ({@link GraphOffsets#advance}).
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
    private final GraphOffsets offsets;
    private final BatchRunner runner;
    private final Map<String, Template> templates;
    private final DeadLetterSink deadLetters;
    private final BiConsumer<Integer, Long> applied;
    private final Time time;
    private final int maxRows;
    private final Thread thread;
    /** The next offset to apply of each partition this instance owns; written by the thread, read for /health. */
    private final Map<Integer, Long> positions = new ConcurrentHashMap<>();
    private volatile boolean stopping;

    /** {@code applied} hears each partition's new position once a batch is committed there. */
    KafkaApplier(Consumer<byte[], byte[]> consumer, String topic, GraphOffsets offsets, BatchRunner runner,
            Map<String, Template> templates, DeadLetterSink deadLetters, BiConsumer<Integer, Long> applied, Time time,
            int maxRows, ThreadFactory threads) {
        this.consumer = consumer;
        this.topic = topic;
        this.offsets = offsets;
        this.runner = runner;
        this.templates = templates;
        this.deadLetters = deadLetters;
        this.applied = applied;
        this.time = time;
        this.maxRows = maxRows;
        this.thread = threads.newThread(this::run);
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
                consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(10))); // leaves the group: the others take the partitions at once
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
            } catch (SinkException e) {
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
        int i = 0;
        while (i < records.size() && !stopping) {
            Long position = positions.get(partition);
            if (position == null) {
                return; // revoked meanwhile (or never assigned): its new owner applies these
            }
            while (i < records.size() && records.get(i).offset() < position) {
                i++; // applied already (by this owner before a resync)
            }
            if (i == records.size()) {
                return;
            }
            List<Pending> batch = new ArrayList<>();
            Map<Pending, ConsumerRecord<byte[], byte[]>> source = new IdentityHashMap<>();
            int rows = 0;
            ConsumerRecord<byte[], byte[]> undecodable = null;
            while (i < records.size()) {
                ConsumerRecord<byte[], byte[]> r = records.get(i);
                WriteRequest request;
                try {
                    request = RecordCodec.decode(r.value(), templates);
                } catch (RecordCodec.Undecodable e) {
                    if (batch.isEmpty()) {
                        undecodable = r;
                        i++;
                    }
                    break; // apply what came before it first
                }
                if (!batch.isEmpty() && rows + request.rows() > maxRows) {
                    break;
                }
                Pending p = new Pending(request, time.nanos(), r.offset());
                batch.add(p);
                source.put(p, r);
                rows += request.rows();
                i++;
            }
            boolean moved = undecodable != null
                    ? skipUndecodable(partition, position, undecodable)
                    : apply(partition, position, batch, source);
            if (!moved) {
                resync(partition); // fenced, or the database went away: the graph says where it stands
                return; // the rest of this poll's records for it are stale: the seek fetches them again
            }
        }
    }

    /** Dead-letters a record that is not a request at all and moves past it; false when that failed. */
    private boolean skipUndecodable(int partition, long position, ConsumerRecord<byte[], byte[]> r) {
        deadLetters.deadLetter(partition, r.offset(), r.value(),
                Neo4jError.invalidFormat("partition " + partition + " offset " + r.offset() + ": not a sluice request"));
        try {
            offsets.advanceAlone(partition, position, r.offset() + 1);
        } catch (SinkException e) {
            log.warn("partition {}: moving past offset {}: {}", partition, r.offset(), e.getMessage());
            return false;
        }
        moved(partition, r.offset() + 1);
        return true;
    }

    /**
     * Applies one batch of one partition; true when the partition's position moved past all of it (committed, or
     * dead-lettered), false when it must be re-read from the graph.
     */
    private boolean apply(int partition, long position, List<Pending> batch,
            Map<Pending, ConsumerRecord<byte[], byte[]>> source) {
        Fence fence = new Fence(partition, position);
        runner.apply(batch, new BatchRunner.Hooks() {
            @Override
            public void inTransaction(Sink.SinkTx tx, List<Pending> group) throws SinkException {
                fence.advance(tx, group);
            }

            @Override
            public boolean keepsResults() {
                return false;
            }

            @Override
            public void isolated(Pending p, Neo4jError error) {
                deadLetters.deadLetter(partition, p.offset(), source.get(p).value(), error);
            }
        });
        long committed = fence.committed();
        Pending last = batch.getLast();
        if (committed > position) {
            moved(partition, committed);
        }
        if (committed == last.offset() + 1) {
            return true;
        }
        if (last.future().join() instanceof Outcome.Failed f && (f.error().isTransient()
                || f.error().code().equals(GraphOffsets.FENCED))) {
            if (!stopping) {
                log.warn("partition {}: batch up to offset {} not applied ({}); re-reading where it stands",
                        partition, last.offset(), f.error().message());
            }
            return false;
        }
        // the last requests failed alone and are dead-lettered: move past them
        try {
            offsets.advanceAlone(partition, committed, last.offset() + 1);
        } catch (SinkException e) {
            return false;
        }
        moved(partition, last.offset() + 1);
        return true;
    }

    private void moved(int partition, long next) {
        positions.computeIfPresent(partition, (p, old) -> Math.max(old, next));
        applied.accept(partition, next);
    }

    /**
     * Which offset the graph must hold when a group's transaction fences it: where the batch started, moved by
     * every earlier group of the batch that committed (a group that failed alone committed nothing). The batch
     * runner applies groups one after another, so at each call every earlier group has finished.
     */
    private final class Fence {
        private final int partition;
        private long expected;
        private Pending lastOfPrevious;
        private long nextOfPrevious;

        Fence(int partition, long start) {
            this.partition = partition;
            this.expected = start;
        }

        void advance(Sink.SinkTx tx, List<Pending> group) throws SinkException {
            settle();
            long next = group.getLast().offset() + 1;
            offsets.advance(tx, partition, expected, next);
            lastOfPrevious = group.getLast();
            nextOfPrevious = next;
        }

        /** The position after the last group that committed. */
        long committed() {
            settle();
            return expected;
        }

        private void settle() {
            if (lastOfPrevious != null && lastOfPrevious.future().isDone()
                    && lastOfPrevious.future().join() instanceof Outcome.Committed) {
                expected = nextOfPrevious;
                lastOfPrevious = null;
            }
        }
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
