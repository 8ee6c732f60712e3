package io.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The package layering of docs/ARCHITECTURE.md, checked on the sources' imports. */
class LayeringTest {
    static final Path MAIN = Path.of("src/main/java/io/sluice");
    static final Pattern IMPORT = Pattern.compile("^import (?:static )?io\\.sluice\\.([a-z]+)\\.", Pattern.MULTILINE);
    static final Pattern QUALIFIED = Pattern.compile("io\\.sluice\\.([a-z]+)\\.[A-Z]");

    /**
     * Which of sluice's packages each package may use (besides itself and {@code time}). Every package is here:
     * {@link #everyPackageHasItsRules} fails on one that is not.
     */
    static final Map<String, Set<String>> ALLOWED = Map.ofEntries(
            // leaves
            Map.entry("time", Set.of()),
            Map.entry("config", Set.of()),
            // who may come in: credentials, the cache, TLS material (the user store is Neo4j's, behind sink)
            Map.entry("security", Set.of()),
            Map.entry("metrics", Set.of()),
            Map.entry("journal", Set.of()),
            // neo4j-admin import's input format: pure format code
            Map.entry("csv", Set.of()),
            // a /status document as the terminal page of sluice status: Jackson only
            Map.entry("status", Set.of()),
            // the seam to Neo4j
            Map.entry("cypher", Set.of("sink")),
            Map.entry("sink", Set.of("config", "security")),
            // the write path's public, protocol-neutral types: what every front end and in-process client sees
            Map.entry("write", Set.of("config", "cypher", "sink")),
            Map.entry("batch", Set.of("write")),
            // the appliers; cypher for the coalesced form of raw statements (Coalescing)
            Map.entry("apply", Set.of("batch", "cypher", "write", "sink", "metrics")),
            // explicit transactions held open between a client's requests: over the sink, ids by the front end
            Map.entry("txn", Set.of("config", "sink", "write")),
            // the journals' one apply loop, positions in the graph, the local journal
            Map.entry("durable", Set.of("journal", "apply", "batch", "write", "sink")),
            // Kafka as the journal of a fleet, through durable's apply loop
            Map.entry("kafka", Set.of("journal", "durable", "batch", "config", "sink", "write")),
            // the gateway routes between parts others build; it never reaches a front end or its owner
            Map.entry("gateway", Set.of("apply", "batch", "config", "cypher", "durable", "sink", "txn", "write")),
            // what every front end shares: who is calling, the lifecycle
            Map.entry("front", Set.of("config", "security", "write")),
            // the HTTP front end reaches the write path only through write (and its own txn registries' ids)
            Map.entry("http", Set.of("write", "front", "txn", "sink", "metrics", "config", "security")),
            // the online import drives sluice like a client: through the write path (in-process) or over HTTP
            Map.entry("online", Set.of("csv", "config", "write", "sink")),
            // sluice import: the command over the online engine, and the offline path (Neo4j's importer)
            Map.entry("importer", Set.of("csv", "online", "config", "write")),
            // the one owner: builds every part of the product, and nothing of the tools
            Map.entry("server", Set.of("apply", "batch", "config", "cypher", "durable", "front", "gateway", "http",
                    "kafka", "metrics", "security", "sink", "txn", "write")),
            // the commands: the composition root of each tool
            Map.entry("cli", Set.of("bench", "config", "csv", "importer", "kafka", "security", "server", "sink",
                    "status", "write")),
            // the benchmarks drive a server like clients do; they start sluice's own commands as child processes
            Map.entry("bench", Set.of("cli", "config", "csv", "cypher", "importer", "online", "security", "server",
                    "sink", "write")));

    /** The one clock: time is read, slept and jittered through {@code io.sluice.time}, nowhere else. */
    static final Pattern CLOCK = Pattern.compile(
            "System\\.nanoTime|System\\.currentTimeMillis|Thread\\.sleep|ThreadLocalRandom|Instant\\.now|Clock\\.system");

    static Map<String, Set<String>> uses() throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String pkg = MAIN.relativize(f).getName(0).toString();
                String src = Files.readString(f);
                Set<String> used = uses.computeIfAbsent(pkg, k -> new TreeSet<>());
                for (Matcher m : new Matcher[] {IMPORT.matcher(src), QUALIFIED.matcher(src)}) {
                    while (m.find()) {
                        // time is a leaf every package may use, like java.time
                        if (!m.group(1).equals(pkg) && !m.group(1).equals("time")) {
                            used.add(m.group(1));
                        }
                    }
                }
            }
        }
        return uses;
    }

    @Test
    void timeIsReadOnlyThroughTheInjectedClock() throws IOException {
        Map<String, String> found = new TreeMap<>();
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                if (MAIN.relativize(f).getName(0).toString().equals("time")) {
                    continue;
                }
                Matcher m = CLOCK.matcher(Files.readString(f));
                if (m.find()) {
                    found.put(MAIN.relativize(f).toString(), m.group());
                }
            }
        }
        assertThat(found).as("direct uses of the JVM's clocks outside io.sluice.time").isEmpty();
    }

    @Test
    void everyPackageHasItsRules() throws IOException {
        Set<String> packages = new TreeSet<>();
        try (Stream<Path> dirs = Files.list(MAIN)) {
            dirs.filter(Files::isDirectory).forEach(d -> packages.add(d.getFileName().toString()));
        }
        assertThat(packages).as("packages of src/main").hasSizeGreaterThan(20);
        assertThat(ALLOWED.keySet()).as("packages with layering rules").containsAll(packages);
    }

    @Test
    void packagesUseOnlyWhatTheLayeringAllows() throws IOException {
        Map<String, Set<String>> uses = uses();
        assertThat(uses).containsKeys("http", "batch", "apply", "sink", "write", "csv", "online", "importer");
        ALLOWED.forEach((pkg, allowed) -> assertThat(uses.getOrDefault(pkg, Set.of()))
                .as("sluice packages used by '%s'", pkg).isSubsetOf(allowed));
    }
}
