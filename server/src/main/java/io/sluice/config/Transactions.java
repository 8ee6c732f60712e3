package io.sluice.config;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * {@code transactions}: explicit transactions of both HTTP APIs: real Neo4j transactions held open between a
 * client's requests. {@code idleTimeout} (the Query API's; Neo4j's default 60 s) and {@code classicIdleTimeout}
 * (the classic API's; Neo4j's default 30 s; Bolt's use the Query API's) roll back one left idle; at most
 * {@code maxOpen} at once over both APIs and Bolt (each holds its locks and, over {@code --neo4j}, one of the
 * driver's connections: keep it below the pool's 32), each also counting as one pending row against
 * {@code admission}; one more waits for a place up to the admission timeout.
 */
public record Transactions(Duration idleTimeout, Duration classicIdleTimeout, int maxOpen)
        implements SluiceConfig.Section {
    public static final Transactions DEFAULT = new Transactions(Duration.ofSeconds(60), Duration.ofSeconds(30), 16);

    public Transactions {
        requireNonNull(idleTimeout, "transactions.idle_timeout");
        requireNonNull(classicIdleTimeout, "transactions.classic_idle_timeout");
        if (maxOpen < 1 || !idleTimeout.isPositive() || !classicIdleTimeout.isPositive()) {
            throw new IllegalArgumentException("transactions.max_open must be >= 1 and the idle timeouts positive, got "
                    + maxOpen + ", " + idleTimeout + " and " + classicIdleTimeout);
        }
    }

    @JsonCreator
    static Transactions fromYaml(@JsonProperty("idle_timeout") Duration idleTimeout,
            @JsonProperty("classic_idle_timeout") Duration classicIdleTimeout,
            @JsonProperty("max_open") Integer maxOpen) {
        return new Transactions(
                requireNonNullElse(idleTimeout, DEFAULT.idleTimeout),
                requireNonNullElse(classicIdleTimeout, DEFAULT.classicIdleTimeout),
                requireNonNullElse(maxOpen, DEFAULT.maxOpen));
    }
}
