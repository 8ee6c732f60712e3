package io.sluice.bench;

import io.sluice.time.Time;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * The broker's side of a {@code sluice bench-sources} run ({@link SourcesBench}): its topics, each fresh (a name
 * of its own, P partitions) and their end offsets, through the run's admin client. Owns nothing: the admin client
 * is the run's. Used by the run's one thread.
 */
final class SourcesKafka {
    /** How long an admin call, a producer's end and the partitions' assignment may take. */
    static final Duration ADMIN = Duration.ofSeconds(30);

    private final String bootstrap;
    private final Admin admin;
    private final int partitions;
    private final String scenario;
    private final Time time;

    SourcesKafka(String bootstrap, Admin admin, int partitions, String scenario, Time time) {
        this.bootstrap = bootstrap;
        this.admin = admin;
        this.partitions = partitions;
        this.scenario = scenario;
        this.time = time;
    }

    /** The broker's bootstrap servers. */
    String bootstrap() {
        return bootstrap;
    }

    /** A fresh topic's name for {@code phase}. */
    String topic(String phase) {
        return "sluice-bench-sources-" + scenario + "-" + phase + "-" + Long.toHexString(time.nanos());
    }

    void createTopic(String topic) throws InterruptedException {
        try {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty()))).all()
                    .get(ADMIN.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create the topic " + topic + ": " + e, e);
        }
    }

    /** Each partition's end offset (its record count: the topics are fresh). */
    Map<Integer, Long> endOffsets(String topic) throws InterruptedException {
        Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
        for (int i = 0; i < partitions; i++) {
            ask.put(new TopicPartition(topic, i), OffsetSpec.latest());
        }
        try {
            Map<Integer, Long> ends = new TreeMap<>();
            admin.listOffsets(ask).all().get(ADMIN.toMillis(), TimeUnit.MILLISECONDS)
                    .forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
            return ends;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the end offsets of " + topic + ": " + e, e);
        }
    }
}
