package io.sluice.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.sink.BoltSink;
import io.sluice.sink.SinkException;
import io.sluice.support.Await;
import io.sluice.support.KafkaProcess;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.SluiceProcess;
import io.sluice.support.TestServer;
import io.sluice.time.Time;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fleet under kill -9: a broker ({@code sluice kafka}), a Neo4j ({@code sluice neo4j}) and two
 * {@code sluice serve --kafka --neo4j} instances, all real processes. {@link FleetLoad}'s clients write keys of
 * their own in sequence, through both instances. Each cycle one instance, picked at random, is killed -9 at a
 * random moment and started again on its port and data directory while the load goes on; once in the run the
 * broker is stopped (SIGTERM or kill -9, at random) and started again. Three cycles ({@code -Dsluice.fleet.cycles=N}
 * for more). The seed is printed; {@code -Dsluice.fleet.seed=N} replays the same choices with the same number of
 * cycles (the moments, being times, replay only roughly).
 *
 * <p>Once everything is applied (every partition's graph position at the topic's end), for every key:
 * <ul>
 *   <li>no acknowledged write missing: every attempt that got a 202 is applied;</li>
 *   <li>nothing applied twice, in order: the attempts applied are strictly increasing (each write carries its
 *       attempt's number), so no Kafka record was applied twice and the key's order held;</li>
 *   <li>nothing invented: every attempt applied was sent; {@code c} counts exactly the attempts applied, so it is
 *       the number of acknowledged writes plus only attempts that were sent and not acknowledged (an answer lost in
 *       a kill, a 503 after the record reached Kafka);</li>
 *   <li>the sequence numbers applied are non-decreasing and cover 0 to the last acknowledged one; one appears
 *       more than once only through such unacknowledged attempts.</li>
 * </ul>
 */
class FleetCrashTest {
    static final String TOPIC = "fleet";
    static final int PARTITIONS = 4;
    /** What KafkaApplier logs of a batch that GraphOffsets fenced. */
    static final String FENCED_LOGGED = "another owner applied it";
    static final String CONFIG = """
            templates:
              hit:
                cypher: "MERGE (k:Key {id: row.k}) ON CREATE SET k.c = 1, k.seqs = [row.s], k.tries = [row.a] ON MATCH SET k.c = k.c + 1, k.seqs = k.seqs + row.s, k.tries = k.tries + row.a"
                key: [k]
            journal:
              kafka:
                topic: %s
                partitions: %d
                send_timeout: 3s
                max_lag_records: 1000000
            admission: {timeout: 1s}
            """.formatted(TOPIC, PARTITIONS);

    Path dir;
    KafkaProcess kafka;
    Neo4jProcess neo4j;
    final SluiceProcess[] instances = new SluiceProcess[2];
    final List<Path> logs = new ArrayList<>();

    @AfterEach
    void stop() {
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
        TestServer.deleteRecursively(dir);
    }

    /**
     * Two to three minutes on the shared 2-core test machine, most of it starting processes (a sluice instance
     * takes 10-20 s there): in {@code ./sluice soak}, not in the default suite.
     */
    @Test
    @Tag("soak")
    @Timeout(420)
    void killNineAnInstanceEachCycleAndRestartTheBrokerOnce() throws Exception {
        long seed = Long.getLong("sluice.fleet.seed", System.nanoTime());
        System.out.println("fleet crash test: seed " + seed + " (replay: -Dsluice.fleet.seed=" + seed + ")");
        int cycles = Integer.getInteger("sluice.fleet.cycles", 3);
        try {
            run(new Random(seed), cycles);
        } catch (Exception | AssertionError e) {
            throw new AssertionError("fleet crash test failed with seed " + seed + " (replay: -Dsluice.fleet.seed="
                    + seed + "); logs: " + logs + ": " + e.getMessage(), e);
        }
    }

    private void run(Random random, int cycles) throws Exception {
        long t0 = System.nanoTime();
        dir = Files.createTempDirectory("sluice-fleet-");
        CompletableFuture<KafkaProcess> broker = CompletableFuture.supplyAsync(() -> started(
                () -> KafkaProcess.start(dir.resolve("kafka"))));
        CompletableFuture<Neo4jProcess> database = CompletableFuture.supplyAsync(() -> started(
                () -> Neo4jProcess.start(dir.resolve("neo4j"))));
        // both kept before either's failure is thrown, so that stop() ends what did start
        kafka = broker.handle((k, e) -> k).get(180, TimeUnit.SECONDS);
        neo4j = database.handle((n, e) -> n).get(180, TimeUnit.SECONDS);
        broker.join();
        database.join();
        Path config = Files.writeString(dir.resolve("sluice.yaml"), CONFIG);
        String[] args = {"--kafka", kafka.bootstrap(), "--neo4j", neo4j.uri()};
        List<CompletableFuture<SluiceProcess>> starting = new ArrayList<>();
        for (int i = 0; i < instances.length; i++) {
            Path data = dir.resolve("instance-" + i);
            int port = TestServer.freePort();
            starting.add(CompletableFuture.supplyAsync(() -> started(() -> SluiceProcess.start(config, data, port,
                    args))));
        }
        for (int i = 0; i < instances.length; i++) {
            instances[i] = starting.get(i).handle((p, e) -> p).get(180, TimeUnit.SECONDS);
        }
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < instances.length; i++) {
            instances[i] = starting.get(i).join();
            logs.add(instances[i].log);
            urls.add(instances[i].url(""));
        }
        System.out.printf("fleet crash test: started in %d s%n", seconds(t0));

        try (BoltSink graph = BoltSink.connect(new BoltSink.Options(neo4j.uri(), null, null, "neo4j"),
                Duration.ofSeconds(60), Time.SYSTEM)) {
            FleetLoad load = FleetLoad.start(urls, 4, 3);
            try {
                cycles(random, cycles, load, t0);
            } finally {
                load.close();
            }
            System.out.printf("fleet crash test: load stopped at %d s (%s)%n", seconds(t0), load);
            assertThat(load.unexpected).as("answers other than 202 and 503").isEmpty();
            awaitAllApplied(graph, load);
            System.out.printf("fleet crash test: all applied at %d s%n", seconds(t0));
            check(graph, load);
        }
        for (Path log : logs) {
            String text = Files.readString(log);
            System.out.printf("fleet crash test: %s: %d batches fenced, %d batches re-read after a transient error, "
                    + "%d partition losses%n", log.getFileName(), occurrences(text, FENCED_LOGGED),
                    occurrences(text, "re-reading where it stands") - occurrences(text, FENCED_LOGGED),
                    occurrences(text, "were lost to another owner"));
            assertThat(text).as("%s", log).doesNotContain("the Kafka applier stopped");
        }
    }

    private static int occurrences(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + what.length())) {
            n++;
        }
        return n;
    }

    /** Each cycle kills -9 one instance at a random moment and starts it again; one of them restarts the broker. */
    private void cycles(Random random, int cycles, FleetLoad load, long t0) throws Exception {
        int brokerCycle = random.nextInt(cycles);
        for (int cycle = 0; cycle < cycles; cycle++) {
            int victim = random.nextInt(instances.length);
            awaitProgress(load, 50);
            crashMoment(random, 200, 1500);
            instances[victim].kill();
            System.out.printf("fleet crash test: cycle %d: killed instance %d at %d s (%s)%n", cycle, victim,
                    seconds(t0), load);
            instances[victim] = instances[victim].restart();
            logs.add(instances[victim].log);
            System.out.printf("fleet crash test: cycle %d: instance %d back at %d s%n", cycle, victim,
                    seconds(t0));
            if (cycle == brokerCycle) {
                restartBroker(random, load, t0);
            }
        }
        awaitProgress(load, 50);
    }

    /** A process start that throws IOException, for a CompletableFuture. */
    @FunctionalInterface
    interface Start<T> {
        T start() throws java.io.IOException;
    }

    private static <T> T started(Start<T> start) {
        try {
            return start.start();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void restartBroker(Random random, FleetLoad load, long t0) throws Exception {
        boolean nine = random.nextBoolean();
        awaitProgress(load, 50);
        crashMoment(random, 200, 1500);
        if (nine) {
            kafka.kill();
        } else {
            kafka.terminate(Duration.ofSeconds(60));
        }
        System.out.printf("fleet crash test: broker %s at %d s (%s)%n", nine ? "killed -9" : "stopped (SIGTERM)",
                seconds(t0), load);
        kafka = kafka.restart();
        System.out.printf("fleet crash test: broker back at %d s%n", seconds(t0));
    }

    /** Waits for {@code n} more acknowledged writes: the load is flowing (through whatever is up). */
    private static void awaitProgress(FleetLoad load, long n) {
        long target = load.acknowledgedCount() + n;
        Await.until(n + " more acknowledged writes (" + load + ")", Duration.ofSeconds(120),
                () -> load.acknowledgedCount() >= target);
    }

    /** The load runs on for a random time: this is the crash moment, not a wait for anything. */
    private static void crashMoment(Random random, int minMillis, int maxMillis) {
        long end = System.nanoTime() + Duration.ofMillis(minMillis + random.nextInt(maxMillis - minMillis)).toNanos();
        while (System.nanoTime() < end) {
            LockSupport.parkNanos(end - System.nanoTime());
        }
    }

    /** Every acknowledged attempt in the graph, and every partition applied to the topic's end. */
    private void awaitAllApplied(BoltSink graph, FleetLoad load) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrap());
        try (Admin admin = Admin.create(p)) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int i = 0; i < PARTITIONS; i++) {
                latest.put(new TopicPartition(TOPIC, i), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS)
                    .forEach((tp, info) -> ends.put(tp, info.offset()));
            GraphOffsets offsets = new GraphOffsets(graph, TOPIC);
            Await.until("every partition applied to its end " + ends, Duration.ofSeconds(120), () -> {
                try {
                    Map<Integer, Long> at = offsets.all();
                    return ends.entrySet().stream().allMatch(e -> at.getOrDefault(e.getKey().partition(), 0L)
                            .equals(e.getValue()));
                } catch (SinkException e) {
                    return false;
                }
            });
        }
    }

    private static void check(BoltSink graph, FleetLoad load) throws SinkException {
        Map<String, List<Object>> rows = new HashMap<>();
        for (List<Object> row : graph.inReadTransaction(tx -> tx.run("MATCH (k:Key) WHERE k.id STARTS WITH 'fleet-' "
                + "RETURN k.id, k.c, k.seqs, k.tries", Map.of())).rows()) {
            rows.put((String) row.get(0), row);
        }
        long acknowledged = 0;
        long appliedUnacknowledged = 0;
        long sentUnacknowledged = 0;
        for (FleetLoad.Key k : load.keys()) {
            acknowledged += k.acknowledged.size();
            sentUnacknowledged += k.sent.size() - k.acknowledged.size();
            List<Object> row = rows.get(k.id);
            if (row == null) {
                assertThat(k.acknowledged).as("key %s: acknowledged, not in the graph", k.id).isEmpty();
                continue;
            }
            long c = ((Number) row.get(1)).longValue();
            List<Integer> seqs = ints(row.get(2));
            List<Integer> tries = ints(row.get(3));
            String what = "key " + k.id + ": c " + c + ", seqs " + seqs + ", attempts " + tries + ", acknowledged "
                    + k.acknowledged + ", sent " + k.sent;
            assertThat(tries).as("attempts applied once each, in order: %s", what).isSorted()
                    .doesNotHaveDuplicates();
            assertThat(tries).as("no acknowledged write missing: %s", what).containsAll(k.acknowledged);
            assertThat(k.sent.keySet()).as("every attempt applied was sent: %s", what).containsAll(tries);
            assertThat(c).as("c counts the attempts applied: %s", what).isEqualTo(tries.size());
            List<Integer> expectedSeqs = tries.stream().map(k.sent::get).toList();
            assertThat(seqs).as("each attempt's sequence number: %s", what).isEqualTo(expectedSeqs);
            assertThat(seqs).as("sequence numbers in order: %s", what).isSorted();
            int lastAcknowledged = k.acknowledged.stream().mapToInt(k.sent::get).max().orElse(-1);
            assertThat(seqs.stream().distinct().filter(s -> s <= lastAcknowledged).count())
                    .as("sequence numbers 0..%d all there: %s", lastAcknowledged, what).isEqualTo(lastAcknowledged + 1);
            appliedUnacknowledged += tries.size() - k.acknowledged.size();
        }
        System.out.printf("fleet crash test: %d keys, %d writes acknowledged, all applied once; %d attempts sent "
                + "and not acknowledged, %d of them applied (%s)%n", load.keys().size(), acknowledged,
                sentUnacknowledged, appliedUnacknowledged, load);
        assertThat(acknowledged).isPositive();
    }

    private static List<Integer> ints(Object list) {
        return ((List<?>) list).stream().map(o -> ((Number) o).intValue()).toList();
    }

    private static long seconds(long t0) {
        return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
    }
}
