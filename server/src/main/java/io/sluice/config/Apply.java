package io.sluice.config;

import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * {@code apply}: the appliers: how many transactions run at once (each owns a partition of the keys), whether a
 * batch's rows are sorted into one global lock order (see Template.lockOrder), and whether raw requests of one
 * statement are coalesced into its UNWIND form where that is the same (see cypher.Coalescing; default on; off
 * runs every raw statement as sent).
 */
public record Apply(int appliers, boolean lockOrder, boolean coalesceCypher) implements Section {
    public static final Apply DEFAULT = new Apply(2, true, true);

    public Apply {
        if (appliers < 1 || appliers > 256) {
            throw new IllegalArgumentException("apply.appliers must be in [1, 256], got " + appliers);
        }
    }

    @JsonCreator
    static Apply fromYaml(@JsonProperty("appliers") Integer appliers, @JsonProperty("lock_order") Boolean lockOrder,
            @JsonProperty("coalesce_cypher") Boolean coalesceCypher) {
        return new Apply(
                requireNonNullElse(appliers, DEFAULT.appliers),
                requireNonNullElse(lockOrder, DEFAULT.lockOrder),
                requireNonNullElse(coalesceCypher, DEFAULT.coalesceCypher));
    }
}
