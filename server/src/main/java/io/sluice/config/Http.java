package io.sluice.config;

import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code http}: the HTTP and HTTPS listeners' I/O threads: they parse requests, check credentials, receive bodies,
 * decode template rows and send answers; a write's work is the appliers'. {@code ioThreads} defaults to half the
 * cores, at least one (Undertow's own default is one per core, at least two). Measured on 2 cores
 * (docs/BENCHMARKS.md, session 10): one I/O thread took an async write for 7% less CPU than two, at more
 * writes a second, since one busier thread finds more connections ready per wake-up and the other core is
 * left to Neo4j; a sync write cost 4-11% more, its answers leaving from one thread instead of two.
 */
public record Http(int ioThreads) implements Section {
    public static final Http DEFAULT = new Http(Math.max(1, Runtime.getRuntime().availableProcessors() / 2));

    public Http {
        if (ioThreads < 1 || ioThreads > 256) {
            throw new IllegalArgumentException("http.io_threads must be in [1, 256], got " + ioThreads);
        }
    }

    @JsonCreator(mode = JsonCreator.Mode.PROPERTIES) // one key: by name, not the value itself
    static Http fromYaml(@JsonProperty("io_threads") Integer ioThreads) {
        return new Http(requireNonNullElse(ioThreads, DEFAULT.ioThreads));
    }
}
