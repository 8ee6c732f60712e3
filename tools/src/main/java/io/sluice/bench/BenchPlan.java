package io.sluice.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * What a round of {@code sluice bench} measures ({@link #plan()}), and what each measurement is called in the
 * progress lines, as in the report. HTTP modes run once per {@link BenchApi} asked for (the Bolt apis on sync
 * only, {@link #apis}); Neo4j's server ({@link BenchMode#NEO4J}) through the apis it has (no template).
 */
final class BenchPlan {
    private final BenchOptions options;

    BenchPlan(BenchOptions options) {
        this.options = options;
    }

    /**
     * One measurement of a round; {@code journal}: where async writes go ({@link ModeResult#LOCAL} or KAFKA);
     * {@code peer}: where {@link BenchMode#NEO4J}'s server runs (null for sluice's modes).
     */
    record Run(boolean auth, boolean coalesce, BenchMode mode, BenchApi api, int appliers, String journal,
            BenchPeer peer, Map<String, String> settings) {}

    /**
     * A round's measurements, in order: per auth setting, coalescing setting, mode, api (HTTP modes), applier count
     * (batched modes), peer placement (Neo4j's server). Raw mode runs once (no HTTP: credentials change
     * nothing), templates once per auth setting (coalescing is of raw Cypher), Neo4j's server once per auth
     * setting, api and placement (coalescing and Neo4j settings are sluice's); all of it once per Neo4j settings
     * variant.
     */
    List<Run> plan() {
        List<Run> plan = new ArrayList<>();
        for (Map<String, String> settings : options.neo4jSettings()) {
            plan.addAll(plan(settings));
        }
        return plan;
    }

    /** {@link #plan()}'s measurements under one of its Neo4j settings variants. */
    private List<Run> plan(Map<String, String> settings) {
        List<Run> plan = new ArrayList<>();
        for (boolean auth : options.auth()) {
            for (boolean coalesce : options.coalesce()) {
                for (BenchMode mode : options.modes()) {
                    for (BenchApi api : apis(mode)) {
                        if ((!mode.overHttp() && auth != options.auth().getFirst())
                                || ((api == BenchApi.TEMPLATE || mode == BenchMode.NEO4J)
                                        && coalesce != options.coalesce().getFirst())
                                || (mode == BenchMode.NEO4J && settings != options.neo4jSettings().getFirst())) {
                            continue;
                        }
                        boolean batched = mode == BenchMode.SYNC || mode == BenchMode.ASYNC;
                        for (int appliers : batched ? options.appliers() : options.appliers().subList(0, 1)) {
                            for (String journal : mode == BenchMode.ASYNC ? options.journals()
                                    : List.of(ModeResult.LOCAL)) {
                                for (BenchPeer peer : mode == BenchMode.NEO4J ? options.peers()
                                        : Collections.<BenchPeer>singletonList(null)) {
                                    plan.add(new Run(auth, coalesce, mode, api, appliers, journal, peer,
                                            settings));
                                }
                            }
                        }
                    }
                }
            }
        }
        return plan;
    }

    /**
     * The apis {@code mode} runs: raw mode its rows, Neo4j's server those it has (no template), sync all, direct and
     * async all but Bolt's: a Bolt client has no {@code ?mode=} to choose, so sluice's Bolt listener is measured
     * once, as sync (group commit, what it does).
     */
    List<BenchApi> apis(BenchMode mode) {
        return switch (mode) {
            case RAW -> List.of(BenchApi.TEMPLATE);
            case NEO4J -> options.apis().stream().filter(a -> a != BenchApi.TEMPLATE).toList();
            case SYNC -> options.apis();
            case DIRECT, ASYNC -> options.apis().stream().filter(a -> !a.bolt()).toList();
        };
    }

    String label(BenchMode mode, BenchApi api) {
        return mode.overHttp() && !options.apis().equals(List.of(BenchApi.TEMPLATE))
                ? api.label() + ":" + mode.label() : mode.label();
    }

    /** {@link #label(BenchMode, BenchApi)}, Neo4j's server in this JVM {@code -in-jvm} as in the report. */
    String label(BenchMode mode, BenchApi api, BenchPeer peer) {
        return label(mode, api) + (peer == BenchPeer.IN_JVM ? BenchReport.IN_JVM : "");
    }

    String label(Run run) {
        return label(run.mode(), run.api(), run.peer());
    }
}
