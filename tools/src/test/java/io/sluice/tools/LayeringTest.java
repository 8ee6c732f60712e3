package io.sluice.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.Layering;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The tools module's package layering (docs/ARCHITECTURE.md, "Modules"): every package here has its rules. */
class LayeringTest {
    /** Which of sluice's packages each of this module's packages may use (besides itself and {@code time}). */
    static final Map<String, Set<String>> ALLOWED = Map.of(
            // the benchmarks drive a server as clients do, and start sluice's commands as child processes; the
            // sources bench starts the application topics' consumers as serve does (their apply loop's parts)
            "bench", Set.of("apply", "cli", "config", "csv", "cypher", "durable", "importer", "metrics", "online",
                    "security", "server", "sink", "source", "tools", "topic", "write"),
            // the tools' commands, the whole command line, and the trial Kafka broker (the journal's directory lock)
            "tools", Set.of("bench", "cli", "config", "journal", "sink"));

    @Test
    void everyPackageHasItsRules() throws IOException {
        assertThat(ALLOWED.keySet()).as("packages with layering rules").containsAll(Layering.packages(Layering.MAIN));
    }

    @Test
    void packagesUseOnlyWhatTheLayeringAllows() throws IOException {
        Map<String, Set<String>> uses = Layering.uses(Layering.MAIN);
        assertThat(uses).containsKeys("bench", "tools");
        ALLOWED.forEach((pkg, allowed) -> assertThat(uses.getOrDefault(pkg, Set.of()))
                .as("sluice packages used by '%s'", pkg).isSubsetOf(allowed));
    }

    @Test
    void timeIsReadOnlyThroughTheInjectedClock() throws IOException {
        assertThat(Layering.clockReaders(Layering.MAIN)).as("direct uses of the JVM's clocks outside io.sluice.time")
                .isEmpty();
    }
}
