package io.sluice.bench;

import io.sluice.config.Apply;
import io.sluice.config.HostPort;
import io.sluice.config.SluiceConfig;
import io.sluice.server.SluiceServer;
import io.sluice.sink.BoltSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What to run.
 *
 * @param scenario       the template, schema and rows
 * @param modes          the modes, run one after another, each on a fresh database ({@link BenchMode#NEO4J}: on
 *                       a fresh Neo4j server of its own)
 * @param clients        closed-loop HTTP clients, or Bolt sessions (raw always runs one thread); open loop: the
 *                       pool's connections, or sessions
 * @param duration       measured time per mode
 * @param warmup         time per mode before measuring; not counted
 * @param prime          time before the first mode, on a throwaway server, shared by the modes: warms the JIT
 *                       on every mode's code path, so that the mode that runs first is not measured on a cold
 *                       JVM (on 2 cores C2 needs tens of seconds under load; without this, order changed the
 *                       sync/direct ratio from 1.4 to 2.6)
 * @param rowsPerRequest rows in each HTTP request (1: one JSON object; more: an array)
 * @param config         the server's config; the scenario's template and schema replace its own
 * @param workDir        where each mode's temporary database directory is made
 * @param seed           seeds the row generators
 * @param client         the HTTP load generator
 * @param appliers       applier counts: sync and async run once per count (direct and raw once, with the first)
 * @param remote         a Neo4j over Bolt to bench against instead of the embedded one (wiped before each
 *                       mode), or null
 * @param auth           authentication settings to run every HTTP mode under, in order ({@code [true, false]}
 *                       measures what checking credentials costs); default: the config's
 * @param apis           how HTTP modes send the rows, in order: each HTTP mode runs once per api (default:
 *                       {@link BenchApi#TEMPLATE}); the Bolt apis, one per driver style, on sync and neo4j only
 *                       ({@link BenchPlan#apis})
 * @param loadProcess    run the load (HTTP, or the Bolt driver) in a JVM of its own ({@link LoadProcess}), so the
 *                       bench's process, and its CPU time, is the server's alone
 * @param loadJavaOptions extra JVM options of the load process (e.g. a flight recording)
 * @param rounds         how many times to run the whole list of measurements, every other round in reverse
 *                       order (ABBA): on this machine the JIT is still compiling for minutes after the prime, so
 *                       a mode measured earlier pays more CPU than one measured later; ratios are taken within
 *                       each round and their geometric mean reported, which cancels a steady trend
 * @param coalesce       server settings of {@code apply.coalesce_cypher} to run the raw-Cypher apis under, in
 *                       order ({@code [true, false]}: what coalescing gains, in one run); default: the config's
 * @param rates          open-loop arrival rates ({@code --rate}): after each HTTP mode's closed-loop run, one
 *                       open-loop run per rate, each on a fresh server ({@link OpenLoop}); empty: none. Netty
 *                       client only
 * @param peers          where {@link BenchMode#NEO4J}'s server runs, each in turn ({@link BenchPeer}; default:
 *                       in a process of its own)
 * @param neo4jSettings  Neo4j settings to run sluice's modes under, in order, each on top of the config's
 *                       ({@code [{}, {k: v}]}: what setting {@code k} gains, in one run); default: the config's
 *                       alone. Neo4j's own server runs under the config's alone
 */
public record BenchOptions(Scenario scenario, List<BenchMode> modes, int clients, Duration duration,
        Duration warmup, Duration prime, int rowsPerRequest, SluiceConfig config, Path workDir, long seed,
        LoadClient client, List<Integer> appliers, BoltSink.Options remote, List<Boolean> auth,
        List<BenchApi> apis, boolean loadProcess, List<String> loadJavaOptions, int rounds, List<Boolean> coalesce,
        String kafka, List<Rate> rates, List<BenchPeer> peers, List<Map<String, String>> neo4jSettings) {

    public BenchOptions(Scenario scenario, List<BenchMode> modes, int clients, Duration duration, Duration warmup,
            Duration prime, int rowsPerRequest, SluiceConfig config, Path workDir, long seed, LoadClient client,
            List<Integer> appliers, BoltSink.Options remote, List<Boolean> auth) {
        this(scenario, modes, clients, duration, warmup, prime, rowsPerRequest, config, workDir, seed, client,
                appliers, remote, auth, List.of(BenchApi.TEMPLATE), false, List.of(), 1, null, null, List.of(), null,
                null);
    }

    public BenchOptions(Scenario scenario, List<BenchMode> modes, int clients, Duration duration, Duration warmup,
            Duration prime, int rowsPerRequest, SluiceConfig config, Path workDir, long seed, LoadClient client,
            List<Integer> appliers) {
        this(scenario, modes, clients, duration, warmup, prime, rowsPerRequest, config, workDir, seed, client,
                appliers, null, null);
    }

    public BenchOptions(Scenario scenario, List<BenchMode> modes, int clients, Duration duration, Duration warmup,
            Duration prime, int rowsPerRequest, SluiceConfig config, Path workDir, long seed, LoadClient client) {
        this(scenario, modes, clients, duration, warmup, prime, rowsPerRequest, config, workDir, seed, client,
                List.of(config.apply().appliers()));
    }

    public BenchOptions {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(workDir, "workDir");
        Objects.requireNonNull(client, "client");
        modes = List.copyOf(modes);
        appliers = List.copyOf(appliers);
        auth = auth == null || auth.isEmpty() ? List.of(config.security().auth()) : List.copyOf(auth);
        apis = apis == null || apis.isEmpty() ? List.of(BenchApi.TEMPLATE) : List.copyOf(apis);
        coalesce = coalesce == null || coalesce.isEmpty() ? List.of(config.apply().coalesceCypher())
                : List.copyOf(coalesce);
        loadJavaOptions = loadJavaOptions == null ? List.of() : List.copyOf(loadJavaOptions);
        kafka = kafka == null || kafka.isBlank() ? null : kafka.strip();
        rates = rates == null ? List.of() : List.copyOf(rates);
        peers = peers == null || peers.isEmpty() ? List.of(BenchPeer.PROCESS) : List.copyOf(peers);
        neo4jSettings = neo4jSettings == null || neo4jSettings.isEmpty() ? List.of(Map.of())
                : neo4jSettings.stream().map(Map::copyOf).toList();
        if (neo4jSettings.size() > 1 && remote != null) {
            throw new IllegalArgumentException("--neo4j-settings are the embedded Neo4j's: not with --neo4j");
        }
        if (!rates.isEmpty() && client != LoadClient.NETTY) {
            throw new IllegalArgumentException("--rate (open loop) needs the netty load generator: the "
                    + client.label() + " client runs closed loop only");
        }
        if (!rates.isEmpty() && modes.stream().noneMatch(BenchMode::overHttp)) {
            throw new IllegalArgumentException("--rate paces HTTP requests: add an HTTP mode (direct, sync, async)"
                    + " to --modes");
        }
        if (kafka != null && !modes.contains(BenchMode.ASYNC)) {
            throw new IllegalArgumentException("--kafka journals async writes: add async to --modes");
        }
        if (apis.stream().anyMatch(BenchApi::bolt) && rowsPerRequest != 1) {
            throw new IllegalArgumentException("--api bolt writes one row a transaction: it needs one row per request,"
                    + " not " + rowsPerRequest);
        }
        if (remote != null && modes.contains(BenchMode.SYNC) && apis.stream().anyMatch(BenchApi::bolt)) {
            // whether sluice takes a Bolt listener beside a Neo4j of one's own is the server's rule: asked here, so
            // that a refusal comes before the prime rather than at the first Bolt measurement
            new SluiceServer.Options(config, workDir, null,
                    new HostPort("127.0.0.1", 0), remote, null);
        }
        if (apis.contains(BenchApi.QUERY_V2) && rowsPerRequest != 1) {
            throw new IllegalArgumentException("the Query API takes one statement per request: --api query-v2 needs"
                    + " one row per request, not " + rowsPerRequest);
        }
        if (appliers.isEmpty() || appliers.stream().anyMatch(a -> a < 1 || a > 256)) {
            throw new IllegalArgumentException("appliers must be 1..256 each, got " + appliers);
        }
        if (rounds < 1 || rounds > 100) {
            throw new IllegalArgumentException("rounds must be in [1, 100], got " + rounds);
        }
        if (modes.isEmpty()) {
            throw new IllegalArgumentException("at least one mode is needed");
        }
        if (clients < 1 || clients > 10_000) {
            throw new IllegalArgumentException("clients must be in [1, 10000], got " + clients);
        }
        if (duration.isNegative() || duration.isZero() || duration.compareTo(Duration.ofHours(24)) > 0) {
            throw new IllegalArgumentException("duration must be in (0, 24h], got " + duration);
        }
        if (warmup.isNegative() || warmup.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("warmup must be in [0, 1h], got " + warmup);
        }
        if (prime.isNegative() || prime.compareTo(Duration.ofHours(1)) > 0) {
            throw new IllegalArgumentException("prime must be in [0, 1h], got " + prime);
        }
        if (rowsPerRequest < 1 || rowsPerRequest > 100_000) {
            throw new IllegalArgumentException("rows per request must be in [1, 100000], got " + rowsPerRequest);
        }
    }

    /** The same, sending the rows through each of {@code apis} in turn. */
    public BenchOptions withApis(List<BenchApi> apis) {
        return new BenchOptions(scenario, modes, clients, duration, warmup, prime, rowsPerRequest, config, workDir,
                seed, client, appliers, remote, auth, apis, loadProcess, loadJavaOptions, rounds, coalesce, kafka, rates,
                peers, neo4jSettings);
    }

    /** The same, with the HTTP load in a process of its own, started with {@code javaOptions} added. */
    public BenchOptions withLoadProcess(boolean on, List<String> javaOptions) {
        return new BenchOptions(scenario, modes, clients, duration, warmup, prime, rowsPerRequest, config, workDir,
                seed, client, appliers, remote, auth, apis, on, javaOptions, rounds, coalesce, kafka, rates, peers,
                neo4jSettings);
    }

    /** The same, {@code n} rounds (ABBA order). */
    public BenchOptions withRounds(int n) {
        return new BenchOptions(scenario, modes, clients, duration, warmup, prime, rowsPerRequest, config, workDir,
                seed, client, appliers, remote, auth, apis, loadProcess, loadJavaOptions, n, coalesce, kafka, rates,
                peers, neo4jSettings);
    }

    /** The same, running the raw-Cypher apis under each of {@code settings} of {@code apply.coalesce_cypher}. */
    public BenchOptions withCoalesce(List<Boolean> settings) {
        return new BenchOptions(scenario, modes, clients, duration, warmup, prime, rowsPerRequest, config, workDir,
                seed, client, appliers, remote, auth, apis, loadProcess, loadJavaOptions, rounds, settings, kafka, rates,
                peers, neo4jSettings);
    }

    /** The same, async mode also run with its journal on Kafka at {@code bootstrap} (null: local only). */
    public BenchOptions withKafka(String bootstrap) {
        return new BenchOptions(scenario, modes, clients, duration, warmup, prime, rowsPerRequest, config, workDir,
                seed, client, appliers, remote, auth, apis, loadProcess, loadJavaOptions, rounds, coalesce, bootstrap, rates,
                peers, neo4jSettings);
    }

    /** The same, each HTTP mode also run open loop at each of {@code list} ({@link Rate}). */
    public BenchOptions withRates(List<Rate> list) {
        return new BenchOptions(scenario, modes, clients, duration, warmup, prime, rowsPerRequest, config, workDir,
                seed, client, appliers, remote, auth, apis, loadProcess, loadJavaOptions, rounds, coalesce, kafka, list,
                peers, neo4jSettings);
    }

    /** The same, {@link BenchMode#NEO4J} run once per peer placement in {@code list}, in order. */
    public BenchOptions withPeers(List<BenchPeer> list) {
        return new BenchOptions(scenario, modes, clients, duration, warmup, prime, rowsPerRequest, config, workDir,
                seed, client, appliers, remote, auth, apis, loadProcess, loadJavaOptions, rounds, coalesce, kafka, rates,
                list, neo4jSettings);
    }

    /**
     * The same, every measurement of sluice's modes run once per entry of {@code variants}, each entry Neo4j
     * settings on top of the config's ({@code neo4j.settings}; an empty one: the config's alone).
     */
    public BenchOptions withNeo4jSettings(List<Map<String, String>> variants) {
        return new BenchOptions(scenario, modes, clients, duration, warmup, prime, rowsPerRequest, config, workDir,
                seed, client, appliers, remote, auth, apis, loadProcess, loadJavaOptions, rounds, coalesce, kafka, rates,
                peers, variants);
    }

    /**
     * A variant of {@link #neo4jSettings} from {@code --neo4j-settings}' {@code text}: {@code config} (none added), or
     * {@code k=v;k=v}, its names checked as {@code config}'s own {@code neo4j.settings} are.
     */
    public static Map<String, String> settingsVariant(SluiceConfig config, String text) {
        Map<String, String> settings = new LinkedHashMap<>();
        if (!text.strip().equals("config")) {
            for (String pair : text.split(";")) {
                int eq = pair.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("--neo4j-settings takes config or KEY=VALUE[;KEY=VALUE...],"
                            + " got '" + text + "'");
                }
                settings.put(pair.substring(0, eq).strip(), pair.substring(eq + 1).strip());
            }
        }
        config.neo4j().withSettings(settings); // a name sluice sets itself is refused here, before anything starts
        return settings;
    }

    /** How a variant of {@link #neo4jSettings} is named in the report: its settings, {@code k=v,k=v}. */
    public static String label(Map<String, String> variant) {
        return String.join(",", new TreeMap<>(variant).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).toList());
    }

    /** The server config of {@link #serverConfig(int, boolean)} with {@code variant}'s Neo4j settings on top. */
    public SluiceConfig serverConfig(int n, boolean coalesceCypher, Map<String, String> variant) {
        SluiceConfig c = serverConfig(n, coalesceCypher);
        return variant.isEmpty() ? c : c.with(c.neo4j().withSettings(variant));
    }

    /** Where async writes are journaled in this run: local, and Kafka when {@link #kafka} is given. */
    public List<String> journals() {
        return kafka == null ? List.of(ModeResult.LOCAL) : List.of(ModeResult.LOCAL, ModeResult.KAFKA);
    }

    /** The server config for this scenario: its one template and its schema. */
    public SluiceConfig serverConfig() {
        return config.withTemplates(Map.of(scenario.name(), scenario.template()), scenario.schema());
    }

    /** The same with {@code n} appliers. */
    public SluiceConfig serverConfig(int n) {
        return serverConfig(n, config.apply().coalesceCypher());
    }

    /** The same with {@code n} appliers, raw Cypher coalesced or not. */
    public SluiceConfig serverConfig(int n, boolean coalesceCypher) {
        return serverConfig().with(new Apply(n, config.apply().lockOrder(), coalesceCypher));
    }
}
