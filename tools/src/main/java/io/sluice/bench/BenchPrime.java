package io.sluice.bench;

import java.time.Duration;
import java.util.List;

/**
 * The JIT's warm-up. Before the first mode, every mode runs for a while on a throwaway server
 * ({@link BenchOptions#prime}, {@link #prime}): client and server share one JVM, and without this the first mode
 * would be measured while the JIT is still compiling the paths every mode shares. Neo4j's server in a JVM of its
 * own ({@link PeerProcess}), one per measurement, as a user deploys it, the prime cannot warm, so each gets a JIT
 * warm-up of its own before its warm-up and measured window: {@link #peerJitWarmup}, at least
 * {@link #PEER_JIT_WARMUP} of the same load (the method: "JIT warmed for 20 s first"), none with
 * {@code --prime 0}; in this JVM ({@link BenchPeer#IN_JVM}) it is primed with the rest.
 */
final class BenchPrime {
    /** The least JIT warm-up of Neo4j's server in a JVM of its own, unless {@code --prime 0}. */
    static final Duration PEER_JIT_WARMUP = Duration.ofSeconds(20);

    private final BenchOptions options;
    private final BenchPlan plan;

    BenchPrime(BenchOptions options, BenchPlan plan) {
        this.options = options;
        this.plan = plan;
    }

    /**
     * What Neo4j's server placed at {@code peer} runs before its measured window: the run's warm-up, and in a JVM
     * of its own ({@link BenchPeer#PROCESS}) its JIT warm-up before that, as one stretch of the same load.
     */
    Duration peerWarmup(BenchPeer peer) {
        return peer == BenchPeer.PROCESS ? peerJitWarmup().plus(options.warmup()) : options.warmup();
    }

    /**
     * The JIT warm-up of Neo4j's server in a JVM of its own: what the prime gives it in the bench's JVM (its
     * apis' slices of {@code --prime}), and at least {@link #PEER_JIT_WARMUP}; none with {@code --prime 0}, which
     * warms nothing. The sluice servers' code is warmed by the prime in the bench's JVM; a child starts cold and
     * its compiled code ends with it, so it is warmed in the child, on the store it is then measured on: the
     * rows of the warm-up stay (counted in what it acknowledged), as the run's own warm-up's do.
     */
    Duration peerJitWarmup() {
        if (options.prime().isZero() || !options.modes().contains(BenchMode.NEO4J)) {
            return Duration.ZERO;
        }
        int peerRuns = plan.apis(BenchMode.NEO4J).size();
        Duration share = options.prime().multipliedBy(peerRuns).dividedBy(sluiceRuns() + peerRuns);
        return share.compareTo(PEER_JIT_WARMUP) > 0 ? share : PEER_JIT_WARMUP;
    }

    /** How many (mode, api) runs of sluice's a round has, auth and appliers aside: the prime's slices. */
    private int sluiceRuns() {
        return options.modes().stream().filter(m -> m != BenchMode.NEO4J).mapToInt(m -> plan.apis(m).size()).sum();
    }

    /**
     * Every mode (and api) in turn on one throwaway server, for an equal share of the prime time, Neo4j's server's
     * apis on a throwaway server of its own in this JVM when it is measured here ({@link BenchPeer#IN_JVM});
     * nothing is kept. Neo4j's server in a JVM of its own gets its share in that JVM ({@link #peerJitWarmup}).
     */
    void prime(BenchServers servers, ModeMeasurement modes, String kafka) throws InterruptedException {
        boolean inJvmPeer = options.modes().contains(BenchMode.NEO4J) && options.peers().contains(BenchPeer.IN_JVM);
        int runs = sluiceRuns() + (inJvmPeer ? plan.apis(BenchMode.NEO4J).size() : 0);
        if (runs == 0) {
            return; // Neo4j's server alone, in a JVM of its own: warmed there
        }
        Duration slice = options.prime().dividedBy(runs);
        int appliers = options.appliers().getFirst();
        boolean auth = options.auth().getFirst();
        List<BenchMode> sluiceModes = options.modes().stream().filter(m -> m != BenchMode.NEO4J).toList();
        if (!sluiceModes.isEmpty()) {
            boolean bolt = sluiceModes.stream().anyMatch(m -> plan.apis(m).stream().anyMatch(BenchApi::bolt));
            servers.onFreshServer(sluiceModes.getFirst(), options.serverConfig(appliers,
                    options.coalesce().getFirst(), options.neo4jSettings().getFirst()), auth, bolt,
                    (server, boltUri) -> {
                for (BenchMode mode : sluiceModes) {
                    for (BenchApi api : plan.apis(mode)) {
                        modes.measure(server, boltUri, mode, api, appliers, auth, ModeResult.LOCAL,
                                " (priming the JIT)", Duration.ZERO, slice, 0);
                    }
                }
                return null;
            });
        }
        if (inJvmPeer) {
            servers.onPeer(BenchPeer.IN_JVM, auth, peer -> {
                for (BenchApi api : plan.apis(BenchMode.NEO4J)) {
                    modes.measurePeer(peer, api, auth, " (priming the JIT)", Duration.ZERO, slice);
                }
                return null;
            });
        }
        if (kafka != null) { // the producer's and the Kafka applier's paths: one more slice, on a server of their own
            BenchPlan.Run run = new BenchPlan.Run(auth, options.coalesce().getFirst(), BenchMode.ASYNC,
                    plan.apis(BenchMode.ASYNC).getFirst(), appliers, ModeResult.KAFKA, null,
                    options.neo4jSettings().getFirst());
            servers.onFreshServer(BenchMode.ASYNC, servers.config(run), auth, false, (server, bolt) ->
                    modes.measure(server, bolt, BenchMode.ASYNC, run.api(), appliers, auth, ModeResult.KAFKA,
                            " (priming the JIT, journal on Kafka)", Duration.ZERO, slice, 0));
        }
    }
}
