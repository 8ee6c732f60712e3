package io.sluice.kafka;

import io.sluice.support.KafkaProcess;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.SluiceProcess;
import io.sluice.support.TestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * The processes of {@link FleetCrashTest}, in one temporary directory: a broker ({@code sluice kafka}), a Neo4j
 * ({@code sluice neo4j}) and {@code n} {@code sluice serve --kafka --neo4j} instances; the faults done to them;
 * and what Kafka says of the topic and of the consumer group. Used by the test's one thread.
 */
final class Fleet implements AutoCloseable {
    /** The consumer group of every instance: the config's default. */
    static final String GROUP = "sluice";

    final Path dir;
    final String topic;
    final int partitions;
    final SluiceProcess[] instances;
    /** Every instance's log, in the order they started (a restarted instance writes a new one). */
    final List<Path> logs = new ArrayList<>();
    KafkaProcess kafka;
    Neo4jProcess neo4j;
    private Admin admin;

    private Fleet(Path dir, String topic, int partitions, int n) {
        this.dir = dir;
        this.topic = topic;
        this.partitions = partitions;
        this.instances = new SluiceProcess[n];
    }

    /**
     * Starts the broker and Neo4j together, then the {@code n} instances one by one, with {@code config} (whose
     * Kafka topic is {@code topic}, of {@code partitions}); on a failure, ends whatever did start and keeps its
     * logs.
     */
    static Fleet start(int n, String config, String topic, int partitions) throws Exception {
        Fleet f = new Fleet(Files.createTempDirectory("sluice-fleet-"), topic, partitions, n);
        try {
            f.startAll(config);
            return f;
        } catch (Exception | Error e) {
            f.close(true);
            throw new IllegalStateException("the fleet did not start (logs kept in " + f.dir + "): " + e, e);
        }
    }

    private void startAll(String config) throws Exception {
        CompletableFuture<KafkaProcess> broker = CompletableFuture.supplyAsync(() -> started(
                () -> KafkaProcess.start(dir.resolve("kafka"))));
        CompletableFuture<Neo4jProcess> database = CompletableFuture.supplyAsync(() -> started(
                () -> Neo4jProcess.start(dir.resolve("neo4j"))));
        // both kept before either's failure is thrown, so that close() ends what did start
        kafka = broker.handle((k, e) -> k).get(300, TimeUnit.SECONDS);
        neo4j = database.handle((d, e) -> d).get(300, TimeUnit.SECONDS);
        broker.join();
        database.join();
        Path file = Files.writeString(dir.resolve("sluice.yaml"), config);
        String[] args = {"--kafka", kafka.bootstrap(), "--neo4j", neo4j.uri()};
        // one after another: three started together were not all ready within 120 s when this machine was busy
        for (int i = 0; i < instances.length; i++) {
            instances[i] = SluiceProcess.start(file, dir.resolve("instance-" + i), TestServer.freePort(), args);
            logs.add(instances[i].log);
        }
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrap());
        admin = Admin.create(p);
    }

    /** A process start that throws IOException, for a CompletableFuture. */
    @FunctionalInterface
    private interface Start<T> {
        T start() throws IOException;
    }

    private static <T> T started(Start<T> start) {
        try {
            return start.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    List<String> urls() {
        List<String> urls = new ArrayList<>();
        for (SluiceProcess p : instances) {
            urls.add(p.url(""));
        }
        return urls;
    }

    /** kill -9 of instance {@code i}, and a start again on its port and data directory. */
    void killAndRestart(int i) throws Exception {
        instances[i].kill();
        instances[i] = instances[i].restart();
        logs.add(instances[i].log);
    }

    /** Stops the broker (kill -9, or SIGTERM and its orderly shutdown). */
    void stopBroker(boolean nine) throws Exception {
        if (nine) {
            kafka.kill();
        } else {
            kafka.terminate(Duration.ofSeconds(60));
        }
    }

    void startBroker() throws IOException {
        kafka = kafka.restart();
    }

    /** Stops Neo4j (kill -9, or SIGTERM and its orderly shutdown). */
    void stopNeo4j(boolean nine) throws Exception {
        if (nine) {
            neo4j.kill();
        } else {
            neo4j.terminate(Duration.ofSeconds(120));
        }
    }

    /** Neo4j again, on its data directory and port (the instances' drivers reconnect by themselves). */
    void startNeo4j() throws IOException {
        neo4j = neo4j.restart();
    }

    /** Each partition's end offset (the next record's), as the broker says now. */
    Map<Integer, Long> topicEnds() throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int i = 0; i < partitions; i++) {
            latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
        }
        Map<Integer, Long> ends = new HashMap<>();
        admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS)
                .forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
        return ends;
    }

    /**
     * The group's members (by client id) and the partitions of the topic each holds now, as the broker's group
     * coordinator says; empty when it cannot be asked (the broker restarting).
     */
    Map<String, Set<Integer>> assignment() {
        try {
            ConsumerGroupDescription g = admin.describeConsumerGroups(List.of(GROUP)).describedGroups().get(GROUP)
                    .get(10, TimeUnit.SECONDS);
            Map<String, Set<Integer>> out = new HashMap<>();
            for (MemberDescription m : g.members()) {
                Set<Integer> mine = out.computeIfAbsent(m.clientId(), id -> new TreeSet<>());
                m.assignment().topicPartitions().stream().filter(tp -> tp.topic().equals(topic))
                        .forEach(tp -> mine.add(tp.partition()));
            }
            return out;
        } catch (ExecutionException | TimeoutException e) {
            return Map.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Map.of();
        }
    }

    /**
     * Whether {@code clientId} is instance {@code i}'s, as it runs now: sluice names its client
     * {@code sluice-HOST-HTTPPORT-PID}, so a restarted instance's is another.
     */
    boolean isInstance(String clientId, int i) {
        return clientId.endsWith("-" + instances[i].httpPort + "-" + instances[i].process.pid());
    }

    /** Ends every process; deletes the directory unless {@code keepFiles} (a failed run's logs and data). */
    void close(boolean keepFiles) {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        for (SluiceProcess p : instances) {
            if (p != null) {
                p.close();
            }
        }
        if (neo4j != null) {
            neo4j.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        if (!keepFiles) {
            TestServer.deleteRecursively(dir);
        }
    }

    @Override
    public void close() {
        close(false);
    }
}
