package io.sluice.config;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code modes}: the {@link Mode} a write gets when its request names none ({@code ?mode=}): {@code default} for
 * everyone, or per user, so an unchanged client (which cannot add {@code ?mode=} to Neo4j's URLs) still gets sync,
 * async or direct.
 */
public record Modes(Mode defaultMode, Map<String, Mode> users) implements Section {
    public static final Modes DEFAULT = new Modes(Mode.SYNC, Map.of());

    public Modes {
        requireNonNull(defaultMode, "modes.default");
        users = Map.copyOf(users);
    }

    @JsonCreator
    static Modes fromYaml(@JsonProperty("default") String defaultMode,
            @JsonProperty("users") Map<String, String> users) {
        Map<String, Mode> modes = new LinkedHashMap<>();
        requireNonNullElse(users, Map.<String, String>of()).forEach((user, mode) -> modes.put(user, mode(mode)));
        return new Modes(defaultMode == null ? DEFAULT.defaultMode : mode(defaultMode), modes);
    }

    /** The mode a file names, in lower case as the README writes it. */
    private static Mode mode(String text) {
        for (Mode m : Mode.values()) {
            if (m.label().equals(text)) {
                return m;
            }
        }
        throw new IllegalArgumentException("modes: a mode is sync, async or direct, got '" + text + "'");
    }

    /** The mode of {@code user} (null: anonymous, when auth is off). */
    public Mode of(String user) {
        return user == null ? defaultMode : users.getOrDefault(user, defaultMode);
    }
}
