package io.sluice.tools;

import io.sluice.bench.Bench;
import io.sluice.bench.BenchApi;
import io.sluice.bench.BenchMode;
import io.sluice.bench.BenchOptions;
import io.sluice.bench.BenchPeer;
import io.sluice.bench.BenchReport;
import io.sluice.bench.LoadClient;
import io.sluice.bench.Rate;
import io.sluice.bench.Scenario;
import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.sink.BoltSink;
import io.sluice.time.Time;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sluice bench}: runs a scenario in several modes, each on a fresh in-process sluice, and compares them. */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Benchmark sluice's modes against each other over loopback HTTP (or Bolt), against raw UNWIND"
                + " batches, and against Neo4j's own server.",
                "Each mode runs on a fresh database: start, warm up, measure, stop, delete."})
final class BenchCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SCENARIO",
            description = "create-node, create-labeled, create-indexed or visited")
    String scenario;

    @Option(names = "--modes", defaultValue = "direct,sync,raw",
            description = "modes to run, in order: direct, sync, async, raw, neo4j (Neo4j's own server, the same"
                    + " rows through its --api, tx-commit, query-v2 and bolt only; no sluice) (default: ${DEFAULT-VALUE})")
    String modes;

    @Option(names = "--peer", defaultValue = "process", paramLabel = "process|in-jvm[,...]",
            description = "where the neo4j mode's server runs, each in turn: process (a JVM of its own, as deployed:"
                    + " this JVM's heap and GC flags, the config's page cache, a fresh store per measurement, its JIT"
                    + " warmed in it first for the prime's share of the neo4j mode, at least 20 s, none with --prime 0;"
                    + " cpu us/w is that process's) or in-jvm (in the bench's JVM: its JIT warmed by sluice's runs,"
                    + " the heap shared; labelled neo4j-in-jvm); process,in-jvm compares them in one run"
                    + " (default: ${DEFAULT-VALUE})")
    String peer;

    @Option(names = "--clients", defaultValue = "64",
            description = "closed-loop HTTP clients, or Bolt sessions with --api bolt (default: ${DEFAULT-VALUE})")
    int clients;

    @Option(names = "--duration", defaultValue = "20", description = "measured seconds per mode (default: ${DEFAULT-VALUE})")
    double duration;

    @Option(names = "--warmup", defaultValue = "5", description = "warm-up seconds per mode, not counted (default: ${DEFAULT-VALUE})")
    double warmup;

    @Option(names = "--prime", defaultValue = "30",
            description = "seconds, before the first mode, of untimed load in every mode on a throwaway server, "
                    + "to warm up the JIT so that the order of the modes does not matter (default: ${DEFAULT-VALUE})")
    double prime;

    @Option(names = "--rows-per-request", defaultValue = "1",
            description = "rows per HTTP request; more than 1 sends a JSON array (default: ${DEFAULT-VALUE})")
    int rowsPerRequest;

    @Option(names = "--out", paramLabel = "FILE.json", description = "also write the results as JSON")
    Path out;

    @Option(names = "--config", description = "YAML config for the server (batch, admission, neo4j); "
            + "its templates and schema are replaced by the scenario's")
    Path config;

    @Option(names = "--work", paramLabel = "DIR", description = "where the temporary databases go (default: the system temp dir)")
    Path work;

    @Option(names = "--seed", defaultValue = "42", description = "seed of the row generators (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--http-client", defaultValue = "netty",
            description = "HTTP load generator: netty (cheapest per request) or jdk (java.net.http) (default: ${DEFAULT-VALUE})")
    String httpClient;

    @Option(names = "--appliers", split = ",", paramLabel = "N[,N...]",
            description = "applier counts of the server; sync and async run once per count (default: the config's)")
    List<Integer> appliers;

    @Option(names = "--neo4j", paramLabel = "URI",
            description = "bench against this Neo4j over Bolt (e.g. one started with ./sluice neo4j); it is EMPTIED before each mode")
    String neo4j;

    @Option(names = "--user", description = "Neo4j user for --neo4j (default: no auth)")
    String user;

    @Option(names = "--password", description = "Neo4j password for --neo4j (or env SLUICE_NEO4J_PASSWORD)")
    String password;

    @Option(names = "--auth", split = ",", paramLabel = "on|off[,...]",
            description = "run every HTTP mode with authentication on, off, or both (on,off: its cost, same run);"
                    + " default: the config's (on)")
    List<String> auth;

    @Option(names = "--api", defaultValue = "template", paramLabel = "API[,API...]",
            description = "how the modes send the rows, each in turn: template (write/{scenario}), tx-commit "
                    + "(Neo4j's classic tx/commit), query-v2 (its Query API) or bolt (the official Java driver, one"
                    + " session per client, each row a transaction, in each of --bolt-styles), the last three as the"
                    + " scenario's statement with $parameters. A Bolt client chooses no mode: bolt runs on sync"
                    + " (sluice started with a Bolt listener, whatever serves there) and on neo4j (Neo4j's own Bolt"
                    + " connector); the report has bolt-STYLE:sync/bolt-STYLE:neo4j (default: ${DEFAULT-VALUE})")
    String api;

    @Option(names = "--bolt-styles", paramLabel = "STYLE[,STYLE...]",
            description = "how --api bolt writes a row, each in turn: run (session.run(statement, row), consumed: an"
                    + " auto-commit transaction), execute-write (session.executeWrite(tx -> tx.run(...).consume()):"
                    + " a managed transaction, retried by the driver on transient errors), executable-query"
                    + " (driver.executableQuery(statement).withParameters(row).execute()) (default: all three,"
                    + " " + BenchApi.BOLT_STYLES + ")")
    String boltStyles;

    @Option(names = "--load-process",
            description = "run the load generator (HTTP, or the Bolt driver) in a JVM of its own, so the bench's"
                    + " process is the server alone (its CPU per write is the server's own)")
    boolean loadProcess;

    @Option(names = "--load-java-options", paramLabel = "\"OPTIONS\"",
            description = "extra JVM options of the load process, space-separated (e.g. a flight recording)")
    String loadJavaOptions;

    @Option(names = "--rounds", defaultValue = "1",
            description = "run the whole list this many times, every other round in reverse order (ABBA); ratios are"
                    + " taken per round, then their geometric mean (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--coalesce", split = ",", paramLabel = "on|off[,...]",
            description = "run the raw-Cypher apis on servers that coalesce raw statements (apply.coalesce_cypher), "
                    + "that do not, or both (on,off: what it gains, same run); default: the config's (on)")
    List<String> coalesce;

    @Option(names = "--kafka", paramLabel = "HOST:PORT[,...]|start",
            description = "also run async mode with its journal on Kafka at these bootstrap servers (start: a broker"
                    + " of the bench's own, `sluice kafka` in a child process), each run on a topic of its own; the"
                    + " report has async-kafka/async")
    String kafka;

    @Option(names = "--rate", paramLabel = "R[,R...]",
            description = "after each of sluice's modes' closed-loop run, an open-loop run per rate (each on a fresh"
                    + " server): requests (over Bolt, transactions) due at R/s (3000) or at a percentage of that"
                    + " mode's closed-loop peak in the same round (50%%), on up to --clients connections (sessions),"
                    + " latency from each request's due time; HTTP: netty client only; not for neo4j")
    String rate;

    @Option(names = "--neo4j-settings", paramLabel = "config|KEY=VALUE[;KEY=VALUE...]",
            description = "run sluice's modes once per occurrence, under these Neo4j settings on top of the config's"
                    + " neo4j.settings ('config': none added); e.g. --neo4j-settings config --neo4j-settings"
                    + " dbms.memory.tracking.enable=false: what the setting gains, in one run (embedded Neo4j only;"
                    + " Neo4j's own server runs under the config's); repeatable")
    List<String> neo4jSettings;

    @Override
    public Integer call() throws Exception {
        SluiceConfig c = config == null ? SluiceConfig.defaults() : ConfigLoader.load(config);
        Path workDir = work != null ? work : Path.of(System.getProperty("java.io.tmpdir"));
        BenchOptions o = new BenchOptions(Scenario.named(scenario), BenchMode.parseList(modes), clients,
                seconds(duration, "--duration"), seconds(warmup, "--warmup"),
                seconds(prime, "--prime"), rowsPerRequest, c, workDir, seed,
                LoadClient.parse(httpClient), appliers == null ? List.of(c.apply().appliers()) : appliers,
                neo4j == null ? null : new BoltSink.Options(neo4j, user,
                        password != null ? password : System.getenv("SLUICE_NEO4J_PASSWORD"), c.neo4j().database()),
                auth == null ? null : auth.stream().map(BenchCommand::onOff).toList())
                .withApis(BenchApi.parseList(api, boltStyles)).withRounds(rounds)
                .withCoalesce(coalesce == null ? null : coalesce.stream().map(BenchCommand::onOff).toList())
                .withKafka(kafka).withRates(rate == null ? null : Rate.parseList(rate)).withLoadProcess(loadProcess, loadJavaOptions == null || loadJavaOptions.isBlank() ? List.of()
                        : List.of(loadJavaOptions.strip().split("\\s+")))
                .withPeers(BenchPeer.parseList(peer))
                .withNeo4jSettings(neo4jSettings == null ? null : neo4jSettings.stream()
                        .map(v -> BenchOptions.settingsVariant(c, v)).toList());
        if (loadJavaOptions != null && !loadProcess) {
            throw new IllegalArgumentException("--load-java-options needs --load-process");
        }
        BenchReport report = new Bench(o, Time.SYSTEM, System.err).run();
        List<String> failed = report.failed();
        if (!failed.isEmpty()) { // a table of refused requests would read as a measurement
            System.err.println("sluice bench: most requests failed, so there is nothing to report: "
                    + String.join("; ", failed) + ". 401 or 429: the load's credentials were refused (with --neo4j,"
                    + " give --user and --password of a user of that Neo4j); 503: the server was overloaded or down.");
            if (out != null) {
                report.writeJson(out);
                System.err.println("sluice bench: what was measured is in " + out);
            }
            return 1;
        }
        System.out.print(report.table());
        if (out != null) {
            report.writeJson(out);
            System.out.println("results written to " + out);
        }
        return 0;
    }

    private static boolean onOff(String text) {
        return switch (text.strip()) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("--auth and --coalesce take on or off, got '" + text + "'");
        };
    }

    private static Duration seconds(double s, String option) {
        if (!(s >= 0) || s > 86_400) {
            throw new IllegalArgumentException(option + " must be a number of seconds in [0, 86400], got " + s);
        }
        return Duration.ofMillis(Math.round(s * 1000));
    }
}
