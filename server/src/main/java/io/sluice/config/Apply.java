package io.sluice.config;

import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;

/**
 * {@code apply}: the appliers: how many transactions run at once (each owns a partition of the keys), whether a
 * batch's rows are sorted into one global lock order (see Template.lockOrder), and whether raw requests of one
 * statement are coalesced into its UNWIND form where that is the same (see cypher.Coalescing; default on; off
 * runs every raw statement as sent), and how long a batch may wait for a lock held outside sluice's batches (a
 * client's open transaction, anyone's who bypasses sluice) before the write that waits is set aside to wait alone
 * and the rest of its batch runs again without it ({@code set_aside_after}, default 20 ms; 0 never sets aside: the
 * whole batch waits, as before; see apply.LockWatch).
 */
public record Apply(int appliers, boolean lockOrder, boolean coalesceCypher, Duration setAsideAfter)
        implements Section {
    public static final Apply DEFAULT = new Apply(2, true, true, Duration.ofMillis(20));

    public Apply {
        if (appliers < 1 || appliers > 256) {
            throw new IllegalArgumentException("apply.appliers must be in [1, 256], got " + appliers);
        }
        if (setAsideAfter == null || setAsideAfter.isNegative()) {
            throw new IllegalArgumentException("apply.set_aside_after must be 0 (off) or a duration, got "
                    + setAsideAfter);
        }
    }

    /** With the default {@code set_aside_after}. */
    public Apply(int appliers, boolean lockOrder, boolean coalesceCypher) {
        this(appliers, lockOrder, coalesceCypher, DEFAULT.setAsideAfter);
    }

    @JsonCreator
    static Apply fromYaml(@JsonProperty("appliers") Integer appliers, @JsonProperty("lock_order") Boolean lockOrder,
            @JsonProperty("coalesce_cypher") Boolean coalesceCypher,
            @JsonProperty("set_aside_after") Duration setAsideAfter) {
        return new Apply(
                requireNonNullElse(appliers, DEFAULT.appliers),
                requireNonNullElse(lockOrder, DEFAULT.lockOrder),
                requireNonNullElse(coalesceCypher, DEFAULT.coalesceCypher),
                requireNonNullElse(setAsideAfter, DEFAULT.setAsideAfter));
    }
}
