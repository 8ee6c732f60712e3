package io.sluice.config;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * {@code security}: who may come in. {@code auth}: Neo4j's users and passwords on HTTP and Bolt (off also with
 * {@code NEO4J_AUTH=none}). {@code metricsOpen}: {@code /metrics} without credentials. A client address with
 * {@code maxFailedAttempts} failed logins is refused (429) for {@code lockTime} after its last one.
 * Verified credentials are cached ({@code credentialCacheSize} entries, {@code credentialCacheTtl} each).
 * {@code protectedMode}: with auth off, refuse to listen anywhere but loopback. {@code access}: what each
 * user may send ({@code cypher}, {@code templates} or {@code read}; {@code default} for everyone else).
 */
public record Security(boolean auth, boolean metricsOpen, int maxFailedAttempts, Duration lockTime,
        int credentialCacheSize, Duration credentialCacheTtl, boolean protectedMode, AccessLevels access)
        implements Section {
    public static final Security DEFAULT = new Security(true, false, 5, Duration.ofSeconds(5), 10_000,
            Duration.ofSeconds(60), true, AccessLevels.DEFAULT);

    public Security {
        requireNonNull(lockTime, "security.lock_time");
        requireNonNull(credentialCacheTtl, "security.credential_cache_ttl");
        requireNonNull(access, "security.access");
        if (maxFailedAttempts < 0) {
            throw new IllegalArgumentException("security.max_failed_attempts must be >= 0 (0: no limit), got "
                    + maxFailedAttempts);
        }
        if (credentialCacheSize < 0) {
            throw new IllegalArgumentException("security.credential_cache_size must be >= 0, got "
                    + credentialCacheSize);
        }
    }

    @JsonCreator
    static Security fromYaml(@JsonProperty("auth") Boolean auth, @JsonProperty("metrics_open") Boolean metricsOpen,
            @JsonProperty("max_failed_attempts") Integer maxFailedAttempts,
            @JsonProperty("lock_time") Duration lockTime,
            @JsonProperty("credential_cache_size") Integer credentialCacheSize,
            @JsonProperty("credential_cache_ttl") Duration credentialCacheTtl,
            @JsonProperty("protected_mode") Boolean protectedMode, @JsonProperty("access") AccessLevels access) {
        return new Security(
                requireNonNullElse(auth, DEFAULT.auth),
                requireNonNullElse(metricsOpen, DEFAULT.metricsOpen),
                requireNonNullElse(maxFailedAttempts, DEFAULT.maxFailedAttempts),
                requireNonNullElse(lockTime, DEFAULT.lockTime),
                requireNonNullElse(credentialCacheSize, DEFAULT.credentialCacheSize),
                requireNonNullElse(credentialCacheTtl, DEFAULT.credentialCacheTtl),
                requireNonNullElse(protectedMode, DEFAULT.protectedMode),
                requireNonNullElse(access, DEFAULT.access));
    }

    /** The same with authentication on or off. */
    public Security withAuth(boolean on) {
        return new Security(on, metricsOpen, maxFailedAttempts, lockTime, credentialCacheSize, credentialCacheTtl,
                protectedMode, access);
    }
}
