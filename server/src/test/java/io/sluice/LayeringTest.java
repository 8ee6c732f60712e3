package io.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.Layering;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server module's package layering (docs/ARCHITECTURE.md), checked on the sources' imports. The journal module
 * depends on nothing of sluice's (its pom says so, and its own {@code LayeringTest}); the tools module checks its own
 * packages. Within a package, no loops among its files ({@link Layering#loops}).
 */
class LayeringTest {

    /**
     * Which of sluice's packages each package may use (besides itself, {@code time} and {@code vocab}, the leaves
     * every package may use: the clock, and Neo4j's vocabulary of errors, statuses, results and kinds). Every package is here:
     * {@link #everyPackageHasItsRules} fails on one that is not.
     */
    static final Map<String, Set<String>> ALLOWED = Map.ofEntries(
            // leaves
            Map.entry("time", Set.of()),
            // Neo4j's vocabulary: errors, status codes, statement results and kinds, graph values
            Map.entry("vocab", Set.of()),
            Map.entry("config", Set.of()),
            // who may come in: credentials, the cache, TLS material (the user store is Neo4j's, behind sink)
            Map.entry("security", Set.of()),
            Map.entry("metrics", Set.of()),
            // neo4j-admin import's input format: pure format code
            Map.entry("csv", Set.of()),
            // a /status document as the terminal page of sluice status: Jackson only
            Map.entry("status", Set.of()),
            // the Bolt front end: translates its wire into the session layer's calls and back (and the write path's
            // protocol-neutral types); never the sink, the registries or the groups
            Map.entry("bolt", Set.of("session", "write", "front", "metrics", "config", "security")),
            // the session layer between the front ends and the write path: sessions, their open transactions as one
            // sealed state, grouping (over group's machine) and the DBMS's system database
            Map.entry("session", Set.of("write", "txn", "group", "sink", "config", "security")),
            Map.entry("group", Set.of("sink", "txn")),
            // the seam to Neo4j
            Map.entry("cypher", Set.of("sink")),
            // the versions of the product and of what it keeps on disk and in the graph
            Map.entry("format", Set.of("sink")),
            Map.entry("sink", Set.of("config", "security")),
            // the write path's public, protocol-neutral types: what every front end and in-process client sees
            Map.entry("write", Set.of("config", "cypher", "sink")),
            Map.entry("batch", Set.of("write")),
            // the appliers; cypher for the coalesced form of raw statements (Coalescing)
            Map.entry("apply", Set.of("batch", "cypher", "write", "sink", "metrics")),
            // explicit transactions held open between a client's requests: over the sink, ids by the front end
            Map.entry("txn", Set.of("sink", "write")),
            // the journals' one apply loop, positions in the graph, the local journal
            Map.entry("durable", Set.of("journal", "apply", "batch", "write", "sink")),
            // the one driver of Kafka consumers (the journal's, the application topics'): a group member applying its
            // partitions through durable's apply loop, pausing a partition in an outage while it keeps polling
            Map.entry("consumer", Set.of("durable")),
            // Kafka as the journal of a fleet, consumed by consumer's driver through durable's apply loop
            Map.entry("kafka", Set.of("journal", "consumer", "durable", "batch", "config", "sink", "write")),
            // what a topic's records mean, whatever carries them: formats, the message, the strategies (templates'
            // rows); no Kafka client type, so a source that is not Kafka can use it
            Map.entry("topic", Set.of("config", "write")),
            // the Neo4j Kafka Connector's configuration read and written as sluice's (its Avro settings: topic's)
            Map.entry("connector", Set.of("config", "topic")),
            // application topics in from Kafka: topic's strategies, applied through durable's apply loop; a door (front)
            // Debezium's change events as the graph: the mapping and the reassembly of source transactions
            Map.entry("cdc", Set.of("config", "topic", "write")),
            Map.entry("source", Set.of("cdc", "config", "consumer", "durable", "front", "metrics", "sink", "topic",
                    "write")),
            // the gateway routes between parts others build; it never reaches a door or its owner: of front, only the
            // registry of doors its owner fills, for /health (Doors, over the Door interface)
            Map.entry("gateway", Set.of("apply", "batch", "config", "cypher", "durable", "front", "sink", "txn",
                    "write")),
            // what every door into the write path shares: who is calling, the lifecycle (Door), their registry
            Map.entry("front", Set.of("config", "security", "write")),
            // the HTTP front end reaches the write path only through write (its explicit transactions are the session
            // layer's, behind write.ExplicitTransactions)
            Map.entry("http", Set.of("write", "front", "metrics", "config", "security")),
            // the online import drives sluice like a client: through the write path (in-process) or over HTTP
            Map.entry("online", Set.of("csv", "config", "write", "sink")),
            // sluice import: the command over the online engine, and the offline path (Neo4j's importer)
            Map.entry("importer", Set.of("csv", "online", "config", "sink", "write")),
            // the one owner: builds every part of the product, and nothing of the tools
            Map.entry("server", Set.of("apply", "batch", "bolt", "config", "cypher", "durable", "format", "front", "gateway", "http",
                    "kafka", "metrics", "security", "session", "sink", "source", "txn", "group", "write")),
            // the product's commands: the composition root of each
            Map.entry("cli", Set.of("config", "connector", "csv", "format", "importer", "security", "server", "sink", "source",
                    "status", "write")));

    @Test
    void timeIsReadOnlyThroughTheInjectedClock() throws IOException {
        assertThat(Layering.clockReaders(Layering.MAIN)).as("direct uses of the JVM's clocks outside io.sluice.time")
                .isEmpty();
    }

    /** The clock rule sees a sleep by another name ({@code TimeUnit}'s), and not the injected clock's own sleep. */
    @Test
    void theClockRuleCatchesATimeUnitsSleep(@TempDir Path main) throws IOException {
        Files.createDirectories(main.resolve("a"));
        Files.writeString(main.resolve("a/Sleeps.java"), "class Sleeps { void s() { TimeUnit.NANOSECONDS.sleep(5); } }");
        Files.writeString(main.resolve("a/Imported.java"), "class Imported { void s() { SECONDS.timedJoin(t, 1); } }");
        Files.writeString(main.resolve("a/Clean.java"), "class Clean { void s() { time.sleep(d); Time.SYSTEM.sleep(d);"
                + " TimeUnit.SECONDS.toNanos(1); } }");
        assertThat(Layering.clockReaders(main)).containsOnlyKeys(Path.of("a/Sleeps.java").toString(),
                Path.of("a/Imported.java").toString());
    }

    @Test
    void everyPackageHasItsRules() throws IOException {
        Set<String> packages = Layering.packages(Layering.MAIN);
        assertThat(packages).as("packages of src/main").hasSizeGreaterThan(20);
        assertThat(ALLOWED.keySet()).as("packages with layering rules").containsAll(packages);
    }

    @Test
    void packagesUseOnlyWhatTheLayeringAllows() throws IOException {
        Map<String, Set<String>> uses = Layering.uses(Layering.MAIN);
        assertThat(uses).containsKeys("http", "batch", "apply", "sink", "write", "csv", "online", "importer");
        ALLOWED.forEach((pkg, allowed) -> assertThat(uses.getOrDefault(pkg, Set.of()))
                .as("sluice packages used by '%s'", pkg).isSubsetOf(allowed));
    }

    @Test
    void noPackageHasLoopsAmongItsFiles() throws IOException {
        Map<String, List<Layering.Loop>> loops = new TreeMap<>(Layering.loops(Layering.MAIN));
        assertThat(loops).as("loops among a package's files (A uses B and B, directly or not, A)").isEmpty();
    }
}
