package io.sluice.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.sluice.durable.GraphPositions;
import io.sluice.sink.BoltSink;
import io.sluice.vocab.GraphException;
import io.sluice.support.Await;
import io.sluice.support.SluiceProcess;
import io.sluice.time.Time;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A fleet under the faults a fleet has: a broker ({@code sluice kafka}), a Neo4j ({@code sluice neo4j}) and
 * {@code N} {@code sluice serve --kafka --neo4j} instances, all real processes ({@link Fleet}), under
 * {@link FleetLoad}'s clients, which write keys of their own in sequence through every instance. The faults:
 * <ul>
 *   <li>each cycle, one instance picked at random is killed -9 at a random moment and started again on its port
 *       and data directory, the load going on;</li>
 *   <li>once in the run, at a random cycle, the broker is stopped (SIGTERM or kill -9) and started again;</li>
 *   <li>once, at a random cycle, Neo4j is stopped (SIGTERM or kill -9) and started again on its data directory and
 *       port. While it is down, async writes must still be acknowledged (they are on Kafka); once it is back, every
 *       partition written to meanwhile must move on (each owner's applier resumes by itself), and all that was
 *       written meanwhile must be applied;</li>
 *   <li>while they catch up, a slow instance: once every such partition has moved, the owner of the one furthest
 *       from its end is frozen (SIGSTOP) at once, so that it holds batches it fetched. It stays frozen until
 *       Kafka's group has evicted it (its session timed out; the others hold all its partitions) and, for at most
 *       30 s more, until another owner has moved one of its partitions on in the graph; then it goes on (SIGCONT),
 *       a zombie with those batches, which the fence must refuse (or, where the zombie committed first, the new
 *       owner's).</li>
 * </ul>
 * {@code -Dsluice.fleet.instances=N} (2), {@code -Dsluice.fleet.cycles=N} (3). The run's time bound grows with
 * both ({@link #bound}). The seed is printed; {@code -Dsluice.fleet.seed=N} replays the same choices with the same
 * cycles and instances (the moments, being times, replay only roughly). A failed run keeps its directory (logs
 * and data) and says where; {@code -Dsluice.fleet.keep=true} keeps it whatever the outcome.
 *
 * <p>Once everything is applied (every partition's graph position at the topic's end), for every key
 * ({@link FleetChecks}, where the reasoning is):
 * <ul>
 *   <li>no acknowledged write missing: every attempt that got a 202 is applied;</li>
 *   <li>nothing applied twice: each write carries its attempt's number, and no attempt is applied twice (one
 *       attempt is at most one Kafka record);</li>
 *   <li>order: the acknowledged attempts are applied in the order they were sent, their sequence numbers 0, 1,
 *       2 ..., and nothing is applied before an acknowledged attempt that was sent before it;</li>
 *   <li>nothing invented: every attempt applied was sent, with its sequence number; {@code c} counts exactly the
 *       attempts applied, so besides the acknowledged ones only attempts that were sent and not acknowledged (an
 *       answer lost in a kill, a 503 or a timeout after the record reached Kafka) are applied. Such an attempt
 *       may be applied late, after attempts its client sent after it (it is not known to be accepted, and an
 *       instance frozen with it in hand writes it when it resumes): those are counted, not failed.</li>
 * </ul>
 * And no instance's applier stopped. The batches fenced (in every instance's log) are counted and printed.
 */
class FleetCrashTest {
    static final String TOPIC = "fleet";
    static final int PARTITIONS = 4;
    /** What KafkaApplier logs of a batch that GraphPositions fenced. */
    static final String FENCED_LOGGED = "another applier applied it";
    /**
     * How often a wait re-checks a condition that asks Neo4j or the broker (or reads a log): every 2 ms, it was
     * hundreds of queries a second on the two cores the fleet shares.
     */
    static final Duration EVERY = Duration.ofMillis(100);
    /** What KafkaApplier logs when the group took its partitions while it did not poll. */
    static final String LOST_LOGGED = "were lost to another owner";
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

    /** Set by the run's thread (assertTimeoutPreemptively's), ended by {@link #stop} on JUnit's. */
    volatile Fleet fleet;
    boolean failed;

    @AfterEach
    void stop() {
        if (fleet != null) {
            fleet.close(failed || Boolean.getBoolean("sluice.fleet.keep"));
        }
    }

    /**
     * The run's time bound: starting the processes (slower with more instances on 2 cores), each cycle's kill and
     * restart (an instance starts in 10-25 s on this busy machine), the broker's and Neo4j's restarts with the
     * frozen instance, and the drain and checks; three to four times what runs took here (3 instances: 20 cycles
     * in 488 s, 3 cycles in 177-263 s; 2 instances, 3 cycles: 203 s). JUnit's {@code @Timeout} is only a backstop.
     */
    static Duration bound(int cycles, int instances) {
        return Duration.ofSeconds(120 + 40L * instances + cycles * (30L + 15L * instances) + 300 + 120);
    }

    @Test
    @Tag("soak")
    @Timeout(value = 1, unit = TimeUnit.DAYS) // a backstop only (JUnit's default is 60 s): the bound is bound()
    void killNineEachCycleRestartBrokerAndNeo4jOnceFreezeAnInstanceOnce() {
        long seed = Long.getLong("sluice.fleet.seed", System.nanoTime());
        int cycles = Integer.getInteger("sluice.fleet.cycles", 3);
        int instances = Integer.getInteger("sluice.fleet.instances", 2);
        Duration bound = bound(cycles, instances);
        System.out.printf("fleet crash test: seed %d (replay: -Dsluice.fleet.seed=%d), %d instances, %d cycles, "
                + "bound %d s%n", seed, seed, instances, cycles, bound.toSeconds());
        try {
            assertTimeoutPreemptively(bound, () -> run(new Random(seed), cycles, instances));
        } catch (Exception | AssertionError e) {
            failed = true;
            throw new AssertionError("fleet crash test failed with seed " + seed + " (replay: -Dsluice.fleet.seed="
                    + seed + " -Dsluice.fleet.cycles=" + cycles + " -Dsluice.fleet.instances=" + instances
                    + "); logs and data kept in " + (fleet == null ? "(not started)" : fleet.dir) + ": "
                    + e.getMessage(), e);
        }
    }

    private void run(Random random, int cycles, int instances) throws Exception {
        long t0 = System.nanoTime();
        fleet = Fleet.start(instances, CONFIG, TOPIC, PARTITIONS);
        System.out.printf("fleet crash test: started in %d s%n", seconds(t0));
        try (BoltSink graph = BoltSink.connect(new BoltSink.Options(fleet.neo4j.uri(), null, null, "neo4j"),
                Duration.ofSeconds(60), Time.SYSTEM)) {
            Faults faults = new Faults(KafkaRebalanceTest.positions(graph, TOPIC), random, t0);
            FleetLoad load = FleetLoad.start(fleet.urls(), 4, 3);
            try {
                faults.cycles(cycles, load);
            } finally {
                load.close();
            }
            System.out.printf("fleet crash test: load stopped at %d s (%s)%n", seconds(t0), load);
            load.unavailableReasons.forEach((why, n) -> System.out.printf("fleet crash test: 503 x %d: %s%n",
                    n.sum(), why));
            assertThat(load.unexpected).as("answers other than 202 and 503").isEmpty();
            Map<Integer, Long> ends = fleet.topicEnds();
            Await.until("every partition applied to its end " + ends, Duration.ofSeconds(180), EVERY,
                    () -> faults.appliedUpTo(ends));
            System.out.printf("fleet crash test: all applied at %d s%n", seconds(t0));
            FleetChecks.check(graph, load);
        }
        int fenced = 0;
        for (Path log : fleet.logs) {
            String text = Files.readString(log);
            int f = occurrences(text, FENCED_LOGGED);
            fenced += f;
            System.out.printf("fleet crash test: %s: %d batches fenced, %d batches re-read after a transient error, "
                    + "%d partition losses%n", log.getFileName(), f, occurrences(text, "re-reading where it stands")
                    - f, occurrences(text, LOST_LOGGED));
            assertThat(text).as("%s", log).doesNotContain("the Kafka applier stopped");
        }
        System.out.printf("fleet crash test: %d batches fenced in all; done in %d s%s%n", fenced, seconds(t0),
                Boolean.getBoolean("sluice.fleet.keep") ? " (files kept in " + fleet.dir + ")" : "");
    }

    static int occurrences(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + what.length())) {
            n++;
        }
        return n;
    }

    private static long seconds(long t0) {
        return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
    }

    /** The faults, in the order the seed chose, done to {@link #fleet}; positions read through {@code offsets}. */
    private final class Faults {
        private final GraphPositions offsets;
        private final Random random;
        private final long t0;

        Faults(GraphPositions offsets, Random random, long t0) {
            this.offsets = offsets;
            this.random = random;
            this.t0 = t0;
        }

        /** Each cycle kills -9 one instance; at cycles of their own, the broker and Neo4j restart. */
        void cycles(int cycles, FleetLoad load) throws Exception {
            int brokerCycle = random.nextInt(cycles);
            int neo4jCycle = random.nextInt(cycles);
            int n = fleet.instances.length;
            for (int cycle = 0; cycle < cycles; cycle++) {
                int victim = random.nextInt(n);
                awaitProgress(load, 50);
                crashMoment(200, 1500);
                fleet.instances[victim].kill();
                say("cycle %d: killed instance %d (%s)", cycle, victim, load);
                fleet.killAndRestart(victim);
                say("cycle %d: instance %d back", cycle, victim);
                if (cycle == brokerCycle) {
                    restartBroker(random.nextBoolean(), load);
                }
                if (cycle == neo4jCycle) {
                    restartNeo4jAndFreeze(random.nextBoolean(), load);
                }
            }
            awaitProgress(load, 50);
        }

        private void restartBroker(boolean nine, FleetLoad load) throws Exception {
            awaitProgress(load, 50);
            crashMoment(200, 1500);
            fleet.stopBroker(nine);
            say("broker %s (%s)", nine ? "killed -9" : "stopped (SIGTERM)", load);
            fleet.startBroker();
            say("broker back");
        }

        /**
         * Neo4j down: the instances must go on acknowledging async writes (Kafka has them). Back: every partition
         * written to meanwhile must move on (each owner's applier resumes by itself), and everything written
         * meanwhile must be applied; while they catch up, the owner of the partition furthest from its end is
         * frozen ({@link #freeze}), in the middle of its catching up: a slow instance that holds batches it
         * fetched.
         */
        private void restartNeo4jAndFreeze(boolean nine, FleetLoad load) throws Exception {
            awaitSettled();
            awaitProgress(load, 50);
            crashMoment(200, 1500);
            Map<Integer, Long> before = offsets.all();
            fleet.stopNeo4j(nine);
            say("Neo4j %s (%s)", nine ? "killed -9" : "stopped (SIGTERM)", load);
            awaitProgress(load, 50);
            say("Neo4j down, 50 more writes acknowledged (%s)", load);
            Map<Integer, Long> ends = fleet.topicEnds();
            fleet.startNeo4j();
            say("Neo4j back; written meanwhile: topic ends %s, graph positions before %s", ends, before);
            long back = System.nanoTime();
            Set<Integer> written = new TreeSet<>();
            ends.forEach((p, end) -> {
                if (end > before.getOrDefault(p, 0L)) {
                    written.add(p);
                }
            });
            Await.until("partitions " + written + " applied further after Neo4j's restart", Duration.ofSeconds(180),
                    EVERY, () -> written.stream().allMatch(p -> movedOn(Set.of(p), before)));
            Map<Integer, Long> now = offsets.all();
            Map<Integer, Long> endsNow = fleet.topicEnds();
            int behind = endsNow.keySet().stream()
                    .max(Comparator.comparingLong(p -> endsNow.get(p) - now.getOrDefault(p, 0L))).orElseThrow();
            say("partitions %s applied further %d s after Neo4j came back, at %s", written, seconds(back), now);
            freeze(behind, load);
            Await.until("every partition applied past what was written while Neo4j was down " + ends,
                    Duration.ofSeconds(180), EVERY, () -> appliedUpTo(ends));
            say("everything written while Neo4j was down applied (%s)", load);
        }

        /** Until Kafka's group has each instance as a member, holding partitions, and every partition held. */
        private void awaitSettled() {
            int n = fleet.instances.length;
            Await.until("the group settled: each of the " + n + " instances a member with partitions",
                    Duration.ofSeconds(120), EVERY, () -> {
                        Map<String, Set<Integer>> a = fleet.assignment();
                        return a.size() == n && a.values().stream().noneMatch(Set::isEmpty) && covered(a, -1);
                    });
        }

        /**
         * SIGSTOP of the instance that applies {@code partition}, at once; SIGCONT once the group has evicted it
         * (its session timed out: the others hold all its partitions) and another owner has moved one of them on
         * in the graph, or, if none could within 30 s (the frozen instance's open transaction may hold a lock the
         * new owner's batch needs), without that. Prints the batches fenced meanwhile.
         */
        private void freeze(int partition, FleetLoad load) throws Exception {
            Map<String, Set<Integer>> assignment = fleet.assignment();
            int i = -1;
            Set<Integer> held = Set.of();
            for (int j = 0; j < fleet.instances.length && i < 0; j++) {
                for (var e : assignment.entrySet()) {
                    if (fleet.isInstance(e.getKey(), j) && e.getValue().contains(partition)) {
                        i = j;
                        held = Set.copyOf(e.getValue());
                    }
                }
            }
            assertThat(i).as("an instance applies partition %d: %s", partition, assignment).isNotNegative();
            SluiceProcess p = fleet.instances[i];
            int[] fencedBefore = fencedPerInstance();
            int lostBefore = occurrences(read(p.log), LOST_LOGGED);
            p.suspend();
            Map<Integer, Long> atFreeze = offsets.all();
            say("instance %d frozen (SIGSTOP) catching up, holding partitions %s at %s (%s)", i, held, atFreeze, load);
            int frozen = i;
            Await.until("the group evicts the frozen instance " + i, Duration.ofSeconds(120), EVERY,
                    () -> covered(fleet.assignment(), frozen));
            say("instance %d evicted by the group, its partitions given to the others: %s", i, fleet.assignment());
            Set<Integer> its = held;
            boolean moved = Await.holdsWithin("another owner moves a partition of the frozen instance on",
                    Duration.ofSeconds(30), EVERY, () -> movedOn(its, atFreeze));
            say("instance %d: %s", i, moved ? "another owner applied one of its partitions" : "no partition of it "
                    + "moved on within 30 s (its open transaction holds a lock its successor needs)");
            p.resume();
            say("instance %d resumed (SIGCONT) (%s)", i, load);
            Await.until("the resumed instance " + i + " hears it lost its partitions", Duration.ofSeconds(120), EVERY,
                    () -> occurrences(read(p.log), LOST_LOGGED) > lostBefore);
            awaitProgress(load, 50);
            int[] fencedAfter = fencedPerInstance();
            int others = 0;
            for (int j = 0; j < fencedAfter.length; j++) {
                others += j == i ? 0 : fencedAfter[j] - fencedBefore[j];
            }
            say("instance %d resumed as a zombie; batches fenced since it was frozen, so far: %d of its, %d of the "
                    + "others'", i, fencedAfter[i] - fencedBefore[i], others);
        }

        /** Each running instance's fenced batches so far (in its current log). */
        private int[] fencedPerInstance() {
            int[] fenced = new int[fleet.instances.length];
            for (int j = 0; j < fenced.length; j++) {
                fenced[j] = occurrences(read(fleet.instances[j].log), FENCED_LOGGED);
            }
            return fenced;
        }

        /** Whether every partition is held by a member that is a running instance other than {@code except}. */
        private boolean covered(Map<String, Set<Integer>> assignment, int except) {
            Set<Integer> all = new TreeSet<>();
            assignment.forEach((id, ps) -> {
                for (int j = 0; j < fleet.instances.length; j++) {
                    if (j != except && fleet.isInstance(id, j)) {
                        all.addAll(ps);
                    }
                }
            });
            boolean frozenGone = except < 0
                    || assignment.keySet().stream().noneMatch(id -> fleet.isInstance(id, except));
            return frozenGone && all.size() == PARTITIONS;
        }

        private boolean movedOn(Set<Integer> partitions, Map<Integer, Long> before) {
            try {
                Map<Integer, Long> now = offsets.all();
                return partitions.stream().anyMatch(p -> now.getOrDefault(p, 0L) > before.getOrDefault(p, 0L));
            } catch (GraphException e) {
                return false;
            }
        }

        /** Whether every partition's graph position has reached {@code ends}. */
        boolean appliedUpTo(Map<Integer, Long> ends) {
            try {
                Map<Integer, Long> at = offsets.all();
                return ends.entrySet().stream().allMatch(e -> at.getOrDefault(e.getKey(), 0L) >= e.getValue());
            } catch (GraphException e) {
                return false; // Neo4j still starting
            }
        }

        /** Waits for {@code n} more acknowledged writes: the load is flowing (through whatever is up). */
        private void awaitProgress(FleetLoad load, long n) {
            long target = load.acknowledgedCount() + n;
            Await.until(n + " more acknowledged writes (" + load + ")", Duration.ofSeconds(120),
                    () -> load.acknowledgedCount() >= target);
        }

        /** The load runs on for a random time: this is the crash moment, not a wait for anything. */
        private void crashMoment(int minMillis, int maxMillis) {
            long end = System.nanoTime() + Duration.ofMillis(minMillis + random.nextInt(maxMillis - minMillis))
                    .toNanos();
            while (System.nanoTime() < end) {
                LockSupport.parkNanos(end - System.nanoTime());
            }
        }

        private void say(String format, Object... args) {
            System.out.printf("fleet crash test: %d s: %s%n", seconds(t0), String.format(format, args));
        }
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
