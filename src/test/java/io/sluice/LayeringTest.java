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

    /** Which of sluice's packages each package may use (besides itself). */
    static final Map<String, Set<String>> ALLOWED = Map.ofEntries(
            Map.entry("time", Set.of()),
            Map.entry("config", Set.of()),
            Map.entry("cypher", Set.of("sink")),
            Map.entry("sink", Set.of("security")),
            // who may come in: credentials, the cache, TLS material; a leaf (the user store is Neo4j's, behind sink)
            Map.entry("security", Set.of()),
            Map.entry("metrics", Set.of()),
            Map.entry("journal", Set.of()),
            // Kafka as the journal of a fleet; KafkaBroker (sluice kafka) takes the journal's directory lock
            Map.entry("kafka", Set.of("journal", "durable", "apply", "batch", "config", "metrics", "sink", "write")),
            // explicit transactions held open between HTTP requests: over the sink only
            Map.entry("txn", Set.of("sink")),
            Map.entry("write", Set.of("config", "cypher", "sink")),
            Map.entry("batch", Set.of("write")),
            // the appliers; cypher for the coalesced form of raw statements (Coalescing)
            Map.entry("apply", Set.of("batch", "cypher", "write", "sink", "metrics")),
            Map.entry("durable", Set.of("journal", "apply", "batch", "write", "sink", "metrics")),
            Map.entry("http", Set.of("write", "sink", "metrics", "config", "security")),
            // the gateway routes between parts others build; it never reaches the HTTP layer or its owner
            Map.entry("gateway", Set.of("apply", "batch", "config", "cypher", "durable", "sink", "txn", "write")),
            // neo4j-admin import's input format: pure format code
            Map.entry("csv", Set.of()),
            // the online import drives sluice like a client: through the write path of a server it starts, or over HTTP
            Map.entry("online", Set.of("csv", "config", "write", "sink", "server")),
            // sluice import: the command over the online engine, and the offline path (Neo4j's importer, then the schema)
            // sink: Neo4j's status codes only (sink.Neo4jStatus: ImportSummary's deadlock retries)
            Map.entry("importer", Set.of("csv", "online", "config", "server", "sink")));

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
    void packagesUseOnlyWhatTheLayeringAllows() throws IOException {
        Map<String, Set<String>> uses = uses();
        assertThat(uses).containsKeys("http", "batch", "apply", "sink", "write", "csv", "online", "importer");
        ALLOWED.forEach((pkg, allowed) -> assertThat(uses.getOrDefault(pkg, Set.of()))
                .as("sluice packages used by '%s'", pkg).isSubsetOf(allowed));
    }
}
