package io.sluice.source;

import io.sluice.topic.Formats;
import io.sluice.topic.Strategy;
import io.sluice.config.Sources;
import io.sluice.durable.RecordApplier;
import io.sluice.durable.RecordCodec;
import io.sluice.metrics.Metrics;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.write.WriteRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.InvalidOffsetException;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member of the sources' consumer group: applies the application-topic partitions Kafka gives it, each in
 * offset order, exactly once.
 *
 * <h2>Design</h2>
 * One thread owns the consumer; it polls and applies each partition's records through the one apply loop for
 * logs ({@link RecordApplier}, in order across templates: {@code inOrder}), so batching, lock order, bisection and
 * the fenced position in the graph are the journal's. Several consumers (in this instance or others) share the
 * topics through the group; raising their number never deadlocks, since their transactions lock nodes in one order
 * or retry what Neo4j detects.
 *
 * <p>Outages are not bad data. A batch not applied (Neo4j unavailable past the runner's retries, a lost commit,
 * the fence) is never skipped and never dead-lettered: the partition is <em>paused</em> in the consumer and
 * retried with backoff (0.5 s doubling to 30 s) for as long as it takes, re-reading its position from the graph
 * each time. The thread keeps polling meanwhile (paused partitions return nothing), so the consumer stays in its
 * group and the other partitions go on. A record that fails alone, or cannot be read, goes by {@code on_error}:
 * dead-lettered (within the per-minute bound, else the partition holds until the minute passes), held (the
 * partition pauses at it and tries it again every minute), or skipped.
 *
 * <p>Where a partition starts is the graph's: on assignment its position is read under its node's lock; a
 * partition with no position yet ({@link SourcePositions#UNSET}) starts once from the connector's EOS node, the
 * named group's committed offset, or the start setting ({@link SourcePositions#initial}). Kafka's committed offsets
 * of sluice's own group are never read or written.
 *
 * <p>{@link #close} sets a flag and wakes the consumer; the thread finishes its batch, leaves the group and ends.
 * Never interrupted: an interrupt inside Neo4j's file I/O closes its channels.
 */
final class SourceConsumer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SourceConsumer.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(500);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    private static final Duration HOLD = Duration.ofMinutes(1);

    /** What the consumer needs of the service: the topics' routes, positions and dead letters. */
    interface Topics {
        /** The strategy and formats for {@code topic}; null when no entry of the config matches it. */
        SourceTopic route(String topic);

        /** The subscription: the named topics and every regex, as one pattern. */
        Pattern subscription();
    }

    /** A partition this consumer owns, and where it stands. Written by the thread; read by status from others. */
    static final class Owned {
        final TopicPartition tp;
        final SourceTopic topic;
        volatile long next = -1;
        volatile long end = -1; // the partition's end offset, refreshed by KafkaSources' lag thread
        volatile long fetched = -1; // the consumer's position after a poll's records were all applied
        volatile long headTimestamp = -1;
        volatile long pausedUntil; // nanos; 0: not paused
        volatile String pausedFor;
        volatile Duration backoff = FIRST_BACKOFF;
        volatile long holdUntil; // nanos; set by a dead letter refused, read after the batch
        long movedPastFailed; // records dead-lettered or skipped since the last progress: not counted as applied

        Owned(TopicPartition tp, SourceTopic topic) {
            this.tp = tp;
            this.topic = topic;
        }
    }

    private final int task;
    private final Consumer<byte[], byte[]> consumer;
    private final Topics topics;
    private final SourcePositions positions;
    private final RecordApplier.Parts parts;
    private final Sources.KafkaSource config;
    private final DeadLetterQueue deadLetters;
    private final Metrics metrics;
    private final Time time;
    private final Thread thread;
    private final Map<TopicPartition, Owned> owned = new ConcurrentHashMap<>();
    private final Map<String, RecordApplier<ConsumerRecord<byte[], byte[]>>> appliers = new HashMap<>();
    private volatile boolean stopping;

    SourceConsumer(int task, Consumer<byte[], byte[]> consumer, Topics topics, SourcePositions positions,
            RecordApplier.Parts parts, Sources.KafkaSource config, DeadLetterQueue deadLetters, Metrics metrics,
            Time time, ThreadFactory threads) {
        this.task = task;
        this.consumer = consumer;
        this.topics = topics;
        this.positions = positions;
        this.parts = parts;
        this.config = config;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.time = time;
        this.thread = threads.newThread(this::run);
    }

    SourceConsumer start() {
        thread.start();
        return this;
    }

    /** Whether its thread still runs (it ends at close, or on an error it cannot go on from, logged). */
    boolean running() {
        return thread.isAlive();
    }

    /** The partitions this consumer owns now. */
    Collection<Owned> owned() {
        return List.copyOf(owned.values());
    }

    private void run() {
        try {
            consumer.subscribe(topics.subscription(), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
                    for (TopicPartition tp : assigned) {
                        assign(tp);
                    }
                    if (!assigned.isEmpty()) {
                        log.info("source consumer {} applies {}", task, assigned);
                    }
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
                    revoked.forEach(owned::remove);
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> lost) {
                    lost.forEach(owned::remove);
                    log.warn("source consumer {} lost {} to another owner (it was too slow to poll)", task, lost);
                }
            });
            while (!stopping) {
                resumeDue();
                ConsumerRecords<byte[], byte[]> records;
                try {
                    records = consumer.poll(POLL);
                } catch (WakeupException e) {
                    continue; // close() woke us: the loop condition decides
                } catch (OffsetOutOfRangeException e) {
                    outOfRange(e);
                    continue;
                } catch (InvalidOffsetException e) {
                    // a partition paused before its first seek (its position could not be read): it has no
                    // fetch position, and sluice's group commits none; its resume seeks it to the graph's
                    for (TopicPartition tp : e.partitions()) {
                        consumer.seekToBeginning(List.of(tp));
                    }
                    continue;
                }
                boolean outage = false;
                for (TopicPartition tp : records.partitions()) {
                    if (outage) { // the database is away: the others wait, not each its own retries on this thread
                        Owned o = owned.get(tp);
                        if (o != null && o.pausedUntil == 0) {
                            pause(o, FIRST_BACKOFF, "waiting: another partition's batch was not applied");
                        }
                        continue;
                    }
                    outage = apply(tp, records.records(tp));
                }
            }
        } catch (RuntimeException | Error e) {
            if (!stopping) {
                log.error("source consumer {} stopped: {}", task, e.toString(), e);
            }
        } finally {
            try {
                consumer.close(CloseOptions.timeout(Duration.ofSeconds(10)));
            } catch (RuntimeException e) {
                log.warn("closing source consumer {}: {}", task, e.toString());
            }
        }
    }

    /** A newly assigned partition: its position from the graph, or a pause that retries reading it. */
    private void assign(TopicPartition tp) {
        SourceTopic route = topics.route(tp.topic());
        if (route == null) { // the regex matched a topic no entry maps: should not happen, the subscription is theirs
            log.error("topic {} matches the subscription but no sources.kafka.topics entry; not applied", tp.topic());
            consumer.pause(List.of(tp));
            return;
        }
        Owned o = new Owned(tp, route);
        owned.put(tp, o);
        metrics.sourcePartition(tp.topic(), tp.partition(), () -> lagRecords(tp), () -> lagSeconds(tp));
        if (!seekToPosition(o)) {
            consumer.seekToBeginning(List.of(tp)); // a fetch position for poll; the resume seeks to the graph's
            pause(o, o.backoff, "reading its position");
        }
    }

    /** Seeks {@code o} to where the graph says it stands (fixing a start first); false when that failed. */
    private boolean seekToPosition(Owned o) {
        try {
            long next = positions.resolve(o.tp, consumer);
            o.next = next;
            consumer.seek(o.tp, next);
            return true;
        } catch (GraphException | RuntimeException e) { // Neo4j away, or Kafka's offsets not answered in time
            o.pausedFor = "reading its position: " + e.getMessage();
            log.warn("{}: reading where it stands: {} (retrying)", o.tp, e.getMessage());
            return false;
        }
    }

    private void pause(Owned o, Duration wait, String why) {
        consumer.pause(List.of(o.tp));
        o.pausedUntil = time.nanos() + wait.toNanos();
        if (o.pausedFor == null || !o.pausedFor.startsWith(why)) {
            o.pausedFor = why;
        }
    }

    /**
     * Resumes the paused partitions whose wait is over, from their position in the graph. The first that cannot
     * read its position ends the round: the others would meet the same outage, each on this thread.
     */
    private void resumeDue() {
        long now = time.nanos();
        for (Owned o : owned.values()) {
            if (o.pausedUntil != 0 && now - o.pausedUntil >= 0) {
                if (seekToPosition(o)) {
                    o.pausedUntil = 0;
                    consumer.resume(List.of(o.tp));
                } else {
                    o.backoff = grow(o.backoff);
                    pause(o, o.backoff, "reading its position");
                    return;
                }
            }
        }
    }

    private static Duration grow(Duration d) {
        Duration twice = d.multipliedBy(2);
        return twice.compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : twice;
    }

    /** Applies a poll's records of {@code tp}; true when a batch was not applied for a reason not the records'. */
    private boolean apply(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> records) {
        Owned o = owned.get(tp);
        if (o == null || o.pausedUntil != 0) {
            return false; // revoked, or paused since this poll fetched: the resume seeks back to the graph's position
        }
        o.headTimestamp = records.getFirst().timestamp();
        o.holdUntil = 0;
        RecordApplier.Result r = applier(o.topic).apply(tp.partition(), o.next, records,
                () -> stopping || owned.get(tp) != o);
        o.next = Math.max(o.next, r.next());
        if (!r.resync() || stopping) {
            o.backoff = FIRST_BACKOFF;
            o.pausedFor = null;
            if (!stopping) {
                o.fetched = consumer.position(tp); // past any transaction markers after the records
            }
            return false;
        }
        if (o.holdUntil != 0) {
            long wait = Math.max(0, o.holdUntil - time.nanos());
            pause(o, Duration.ofNanos(wait), o.pausedFor == null ? "held" : o.pausedFor);
            return false;
        }
        o.pausedFor = null; // the newest reason, Neo4j's own words (a memory limit a batch keeps meeting shows here)
        pause(o, o.backoff, "not applied, retrying" + (r.why() == null ? "" : ": " + r.why()));
        o.backoff = grow(o.backoff);
        return true;
    }

    private RecordApplier<ConsumerRecord<byte[], byte[]>> applier(SourceTopic topic) {
        return appliers.computeIfAbsent(topic.name(), t -> parts.inOrder(new Records(topic),
                positions.of(t), (partition, r, error) -> deadLetter(topic, r, error),
                (partition, next, rows, bytes) -> applied(topic.name(), partition, next), time));
    }

    private void applied(String topic, int partition, long next) {
        Owned o = owned.get(new TopicPartition(topic, partition));
        if (o != null) {
            long before = o.next;
            o.next = Math.max(before, next);
            if (next > before && before >= 0) {
                long applied = Math.max(0, next - before - o.movedPastFailed);
                o.movedPastFailed = 0;
                if (applied > 0) {
                    metrics.sourceRecords(topic, "applied", applied);
                }
            }
        }
    }

    /**
     * Whether a record that failed alone failed for its own sake: its statement's error (syntax, types, arithmetic,
     * a missing parameter or entity), a constraint it violates, or it cannot be read. Anything else (the database
     * read-only, a permission, a database not found, a pool that timed out) is the environment's, and is retried
     * like an outage, never dead-lettered or skipped.
     */
    static boolean recordsFault(Neo4jError error) {
        String code = error.code();
        return code.startsWith(Neo4jStatus.Statement.PREFIX)
                || code.equals(Neo4jStatus.Schema.CONSTRAINT_VALIDATION_FAILED)
                || code.equals(Neo4jError.invalidFormat("").code());
    }

    /** What {@code on_error} does with a record that failed alone or cannot be read: true moves past it. */
    private boolean deadLetter(SourceTopic topic, ConsumerRecord<byte[], byte[]> r, Neo4jError error) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        Owned o = owned.get(tp);
        if (!recordsFault(error)) {
            Duration wait = o == null ? FIRST_BACKOFF : o.backoff;
            hold(o, time.nanos() + wait.toNanos(), "not applied at offset " + r.offset() + ", not for the record's"
                    + " sake (retrying): " + error.code() + " " + error.message());
            if (o != null) {
                o.backoff = grow(o.backoff);
            }
            return false;
        }
        String stage = stage(error);
        switch (config.onError()) {
            case SKIP -> {
                log.warn("skipped {}[{}]@{} (on_error skip): {} {}", r.topic(), r.partition(), r.offset(),
                        error.code(), error.message());
                metrics.sourceRecords(r.topic(), "skipped", 1);
                movedPast(o);
                return true;
            }
            case STOP -> {
                hold(o, time.nanos() + HOLD.toNanos(), "held at offset " + r.offset() + " (on_error stop): "
                        + error.code() + " " + error.message());
                metrics.sourceRecords(r.topic(), "held", 1);
                return false;
            }
            case DEAD_LETTER -> {
                long until = deadLetters.admit(tp);
                if (until >= 0) {
                    hold(o, until, "held at offset " + r.offset() + ": " + config.deadLetter().maxPerMinute()
                            + " dead letters in the last minute (the bound): " + error.code());
                    metrics.sourceRecords(r.topic(), "held", 1);
                    return false;
                }
                String failed = deadLetters.write(r, task, stage, topic.strategyName(), error);
                if (failed != null) {
                    Duration wait = o == null ? FIRST_BACKOFF : o.backoff;
                    hold(o, time.nanos() + wait.toNanos(), "held at offset " + r.offset() + ": its dead letter"
                            + " could not be written (retrying): " + failed);
                    if (o != null) {
                        o.backoff = grow(o.backoff);
                    }
                    return false;
                }
                metrics.sourceRecords(r.topic(), "dead_lettered", 1);
                movedPast(o);
                return true;
            }
        }
        throw new AssertionError(config.onError());
    }

    /** Kafka Connect's name of where a record failed: reading its key, its value, or writing it. */
    private static String stage(Neo4jError error) {
        if (error.code().equals(Neo4jError.invalidFormat("").code())) {
            if (error.message().contains(": " + SourceTopic.KEY)) {
                return "KEY_CONVERTER";
            }
            if (error.message().contains(": " + SourceTopic.VALUE)) {
                return "VALUE_CONVERTER";
            }
        }
        return "TASK_PUT";
    }

    private static void movedPast(Owned o) {
        if (o != null) {
            o.movedPastFailed++;
        }
    }

    private void hold(Owned o, long until, String why) {
        if (o != null) {
            o.holdUntil = until;
            o.pausedFor = why;
        }
        log.warn("{}", why);
    }

    /** Offsets deleted by retention before they were applied: said loudly, then on from the earliest there is. */
    private void outOfRange(OffsetOutOfRangeException e) {
        for (var entry : e.offsetOutOfRangePartitions().entrySet()) {
            log.error("{}: offset {} is no longer in Kafka (retention deleted records before sluice applied them);"
                    + " going on from the earliest offset there is", entry.getKey(), entry.getValue());
            consumer.seekToBeginning(List.of(entry.getKey()));
            Owned o = owned.get(entry.getKey());
            if (o != null) {
                try {
                    long start = consumer.position(entry.getKey(), Duration.ofSeconds(10));
                    if (start <= o.next) { // the log is behind the graph (truncated): never go back and re-apply
                        consumer.seek(entry.getKey(), o.next);
                        hold(o, time.nanos() + HOLD.toNanos(), "Kafka's log of the partition ends before its"
                                + " position in the graph (" + o.next + "): truncated? held, nothing re-applied");
                        pause(o, HOLD, o.pausedFor);
                        continue;
                    }
                    positions.of(entry.getKey().topic()).advanceAlone(entry.getKey().partition(), o.next, start);
                    o.next = start;
                } catch (GraphException | RuntimeException ex) {
                    pause(o, o.backoff, "moving past deleted records");
                }
            }
        }
    }

    private Number lagRecords(TopicPartition tp) {
        Owned o = owned.get(tp);
        if (o == null) {
            return Double.NaN;
        }
        if (o.end < 0 || o.next < 0) {
            return Double.NaN;
        }
        // all applied and the consumer past them: what is left before the end is no record (a transaction's marker)
        long applied = o.pausedUntil == 0 && o.fetched >= o.next ? o.fetched : o.next;
        return Math.max(0, o.end - applied);
    }

    private Number lagSeconds(TopicPartition tp) {
        Owned o = owned.get(tp);
        if (o == null) {
            return Double.NaN;
        }
        Number records = lagRecords(tp);
        if (records.doubleValue() == 0) {
            return 0;
        }
        return o.headTimestamp < 0 ? Double.NaN : Math.max(0, time.now().toEpochMilli() - o.headTimestamp) / 1000.0;
    }

    /** A partition's standing, for /health and status. */
    static Map<String, Object> status(Owned o, Number lagRecords, Number lagSeconds) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("topic", o.tp.topic());
        m.put("partition", o.tp.partition());
        m.put("next", o.next);
        m.put("lag_records", lagRecords.doubleValue() != lagRecords.doubleValue() ? null : lagRecords.longValue());
        m.put("lag_seconds", lagSeconds.doubleValue() != lagSeconds.doubleValue() ? null : lagSeconds.doubleValue());
        m.put("state", o.pausedUntil == 0 ? "applying" : "paused");
        if (o.pausedUntil != 0 && o.pausedFor != null) {
            m.put("reason", o.pausedFor);
        }
        return m;
    }

    List<Map<String, Object>> status() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Owned o : owned.values()) {
            out.add(status(o, lagRecords(o.tp), lagSeconds(o.tp)));
        }
        return out;
    }

    /** A topic's records: read by its formats, mapped by its strategy. */
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
        stopping = true;
        consumer.wakeup();
    }

    @Override
    public void close() {
        stop();
        try {
            if (!thread.join(Duration.ofSeconds(30))) {
                log.warn("{} did not stop within 30 s", thread.getName());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
