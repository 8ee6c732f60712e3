package io.sluice.config;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code transactions}: explicit transactions of both HTTP APIs and Bolt: real Neo4j transactions held open between a
 * client's requests. {@code idleTimeout} (the Query API's; Neo4j's default 60 s) and {@code classicIdleTimeout}
 * (the classic API's; Neo4j's default 30 s; Bolt's use the Query API's) roll back one left idle; at most
 * {@code maxOpen} at once over both APIs and Bolt, each also counting as one pending row against {@code admission};
 * one more waits for a place up to the admission timeout. Unset ({@code 0} here), the sink says
 * ({@link #maxOpen(int)}): 900 embedded (under Neo4j's own cap of 1000, {@code db.transaction.concurrent.maximum},
 * which sluice's own transactions share); over
 * {@code --neo4j}, where each holds one of the driver's connections, half its pool (16 of 32), so that the
 * appliers and reads keep theirs.
 *
 * <p>{@code group} ({@link Grouped}: {@code managed} by default; {@code groupUsers} overrides it per user, as
 * {@code modes.users} does the mode): which write transactions share Neo4j transactions, one commit per group
 * (docs/API.md, "Grouped transactions"); a group takes at most {@code groupMaxMembers}, and a member that keeps it
 * waiting longer than {@code groupMemberTimeout} (a client silent between its statements, or before its COMMIT) is
 * taken out of it.
 */
public record Transactions(Duration idleTimeout, Duration classicIdleTimeout, int maxOpen, Grouped group,
        Map<String, Grouped> groupUsers, int groupMaxMembers, Duration groupMemberTimeout)
        implements Section {
    /**
     * Whose write transactions are grouped: none ({@code false}); the drivers' managed ones over Bolt, whose drivers
     * retry them ({@code managed}, the default); or also every write transaction over HTTP ({@code true}: HTTP
     * clients must then retry a transaction told to).
     */
    public enum Grouped {
        OFF, MANAGED, ALL;

        /** {@code text} as a file gives it at {@code where}: true, false or managed (all and off also read). */
        static Grouped parse(String where, String text) {
            return switch (text.strip().toLowerCase(Locale.ROOT)) {
                case "false", "off" -> OFF;
                case "managed" -> MANAGED;
                case "true", "all" -> ALL;
                default -> throw new IllegalArgumentException(where + " must be managed, true or false, got '"
                        + text + "'");
            };
        }
    }

    public static final Transactions DEFAULT = new Transactions(Duration.ofSeconds(60), Duration.ofSeconds(30), 0,
            Grouped.MANAGED, Map.of(), 64, Duration.ofSeconds(1));

    public Transactions {
        requireNonNull(idleTimeout, "transactions.idle_timeout");
        requireNonNull(classicIdleTimeout, "transactions.classic_idle_timeout");
        requireNonNull(groupMemberTimeout, "transactions.group_member_timeout");
        requireNonNull(group, "transactions.group");
        groupUsers = Map.copyOf(requireNonNullElse(groupUsers, Map.of()));
        if (maxOpen < 0 || !idleTimeout.isPositive() || !classicIdleTimeout.isPositive()) {
            throw new IllegalArgumentException("transactions.max_open must be >= 1 and the idle timeouts positive, got "
                    + maxOpen + ", " + idleTimeout + " and " + classicIdleTimeout);
        }
        if (groupMaxMembers < 1 || !groupMemberTimeout.isPositive()) {
            throw new IllegalArgumentException("transactions.group_max_members must be >= 1 and"
                    + " transactions.group_member_timeout positive, got " + groupMaxMembers + " and "
                    + groupMemberTimeout);
        }
    }

    /** Without grouping settings (their defaults). */
    public Transactions(Duration idleTimeout, Duration classicIdleTimeout, int maxOpen) {
        this(idleTimeout, classicIdleTimeout, maxOpen, DEFAULT.group, DEFAULT.groupUsers, DEFAULT.groupMaxMembers,
                DEFAULT.groupMemberTimeout);
    }

    /** The bound on open transactions: {@code max_open} when set, else {@code sinkDefault}, what the sink holds. */
    public int maxOpen(int sinkDefault) {
        return maxOpen > 0 ? maxOpen : sinkDefault;
    }

    /** Which of {@code user}'s write transactions are grouped (null: anonymous, when auth is off). */
    public Grouped grouped(String user) {
        return user == null ? group : groupUsers.getOrDefault(user, group);
    }

    /** Whether anyone's are: the Bolt front end then asks drivers for TELEMETRY, which tells managed ones apart. */
    public boolean anyGrouped() {
        return group != Grouped.OFF || groupUsers.values().stream().anyMatch(g -> g != Grouped.OFF);
    }

    @JsonCreator
    static Transactions fromYaml(@JsonProperty("idle_timeout") Duration idleTimeout,
            @JsonProperty("classic_idle_timeout") Duration classicIdleTimeout,
            @JsonProperty("max_open") Integer maxOpen, @JsonProperty("group") String group,
            @JsonProperty("group_users") Map<String, String> groupUsers,
            @JsonProperty("group_max_members") Integer groupMaxMembers,
            @JsonProperty("group_member_timeout") Duration groupMemberTimeout) {
        if (maxOpen != null && maxOpen < 1) {
            throw new IllegalArgumentException("transactions.max_open must be >= 1, got " + maxOpen);
        }
        return new Transactions(
                requireNonNullElse(idleTimeout, DEFAULT.idleTimeout),
                requireNonNullElse(classicIdleTimeout, DEFAULT.classicIdleTimeout),
                requireNonNullElse(maxOpen, DEFAULT.maxOpen),
                group == null ? DEFAULT.group : Grouped.parse("transactions.group", group),
                groupUsers == null ? DEFAULT.groupUsers : users(groupUsers),
                requireNonNullElse(groupMaxMembers, DEFAULT.groupMaxMembers),
                requireNonNullElse(groupMemberTimeout, DEFAULT.groupMemberTimeout));
    }

    private static Map<String, Grouped> users(Map<String, String> groupUsers) {
        Map<String, Grouped> users = new LinkedHashMap<>();
        groupUsers.forEach((user, g) -> users.put(user, Grouped.parse("transactions.group_users." + user,
                requireNonNull(g, "transactions.group_users." + user))));
        return users;
    }
}
