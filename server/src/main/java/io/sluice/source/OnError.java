package io.sluice.source;

import io.sluice.config.Sources;
import io.sluice.consumer.Partition;
import io.sluice.metrics.Metrics;
import io.sluice.time.Time;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a record that failed alone, or cannot be read, does ({@code on_error}): dead-lettered (within the per-minute
 * bound, else the partition holds until the minute passes), held (the partition pauses at it and tries it again
 * every minute), or skipped. Only a record's own fault goes by {@code on_error} ({@link #recordsFault}); any other
 * error holds the partition and retries it with backoff, as an outage. Used on its consumer's thread.
 */
final class OnError {
    private static final Logger log = LoggerFactory.getLogger(OnError.class);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(500);
    private static final Duration HOLD = Duration.ofMinutes(1);

    private final int task;
    private final Sources.KafkaSource config;
    private final DeadLetterQueue deadLetters;
    private final Metrics metrics;
    private final Time time;
    private final Function<TopicPartition, Partition> owned;
    private final Consumer<TopicPartition> movedPast;

    /**
     * {@code task}: the consumer's number (a dead letter's {@code task.id}); {@code owned}: the consumer's partition,
     * or null; {@code movedPast} hears of a record moved past unapplied (dead-lettered or skipped).
     */
    OnError(int task, Sources.KafkaSource config, DeadLetterQueue deadLetters, Metrics metrics, Time time,
            Function<TopicPartition, Partition> owned, Consumer<TopicPartition> movedPast) {
        this.task = task;
        this.config = config;
        this.deadLetters = deadLetters;
        this.metrics = metrics;
        this.time = time;
        this.owned = owned;
        this.movedPast = movedPast;
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
    boolean deadLetter(SourceTopic topic, ConsumerRecord<byte[], byte[]> r, Neo4jError error) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        Partition p = owned.apply(tp);
        if (!recordsFault(error)) {
            hold(p, time.nanos() + backoff(p).toNanos(), "not applied at offset " + r.offset() + ", not for the"
                    + " record's sake (retrying): " + error.code() + " " + error.message());
            return false;
        }
        switch (config.onError()) {
            case SKIP -> {
                log.warn("skipped {}[{}]@{} (on_error skip): {} {}", r.topic(), r.partition(), r.offset(),
                        error.code(), error.message());
                metrics.sourceRecords(r.topic(), "skipped", 1);
                movedPast.accept(tp);
                return true;
            }
            case STOP -> {
                hold(p, time.nanos() + HOLD.toNanos(), "held at offset " + r.offset() + " (on_error stop): "
                        + error.code() + " " + error.message());
                metrics.sourceRecords(r.topic(), "held", 1);
                return false;
            }
            case DEAD_LETTER -> {
                return deadLettered(topic, r, error, tp, p);
            }
        }
        throw new AssertionError(config.onError());
    }

    private boolean deadLettered(SourceTopic topic, ConsumerRecord<byte[], byte[]> r, Neo4jError error,
            TopicPartition tp, Partition p) {
        long until = deadLetters.admit(tp);
        if (until >= 0) {
            hold(p, until, "held at offset " + r.offset() + ": " + config.deadLetter().maxPerMinute()
                    + " dead letters in the last minute (the bound): " + error.code());
            metrics.sourceRecords(r.topic(), "held", 1);
            return false;
        }
        String failed = deadLetters.write(r, task, stage(error), topic.strategyName(), error);
        if (failed != null) {
            hold(p, time.nanos() + backoff(p).toNanos(), "held at offset " + r.offset() + ": its dead letter"
                    + " could not be written (retrying): " + failed);
            return false;
        }
        metrics.sourceRecords(r.topic(), "dead_lettered", 1);
        movedPast.accept(tp);
        return true;
    }

    private static Duration backoff(Partition p) {
        return p == null ? FIRST_BACKOFF : p.backoffThenGrow();
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

    private static void hold(Partition p, long until, String why) {
        if (p != null) {
            p.hold(until, why);
        }
        log.warn("{}", why);
    }
}
