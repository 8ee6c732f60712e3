package io.sluice.config;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * {@code warmup}: what runs before {@code /health} says UP (it answers WARMING, 503, meanwhile, so a load balancer
 * waits; writes that come anyway are taken as usual, only slower).
 *
 * @param onStart   read the database into Neo4j's page cache at every start ({@code POST /db/{db}/warmup} does
 *                  it on demand). Off by default: a new or small store has nothing to warm.
 * @param writePath rehearse the templates' sync write path for at most this long at start, ending sooner once
 *                  the JIT has compiled it (the server package's {@code Rehearsal}: synthetic rows through a private
 *                  HTTP listener, batcher and appliers, into a scratch database). {@code 60s} by default;
 *                  {@code 0s} turns it off. Only a server with templates, an HTTP listener and the embedded Neo4j
 *                  rehearses (over {@code --neo4j} the only database at hand would be the user's own).
 */
public record Warmup(boolean onStart, Duration writePath) implements Section {
    public static final Warmup DEFAULT = new Warmup(false, Duration.ofSeconds(60));

    public Warmup {
        requireNonNull(writePath, "warmup.write_path");
        if (writePath.isNegative() || writePath.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException("warmup.write_path must be in [0s, 10m], got " + writePath);
        }
    }

    @JsonCreator
    static Warmup fromYaml(@JsonProperty("on_start") Boolean onStart, @JsonProperty("write_path") Duration writePath) {
        return new Warmup(
                requireNonNullElse(onStart, DEFAULT.onStart),
                requireNonNullElse(writePath, DEFAULT.writePath));
    }

    /** The same with another limit on the write path's rehearsal ({@code 0s}: none). */
    public Warmup withWritePath(Duration writePath) {
        return new Warmup(onStart, writePath);
    }

    /** This warm-up without the write-path rehearsal (what benchmarks and tests start with). */
    public Warmup withoutRehearsal() {
        return withWritePath(Duration.ZERO);
    }
}
