package io.sluice.config;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code security.access}: what each user may send, as an {@link Access} level: {@code cypher} (everything),
 * {@code templates} (only the named templates) or {@code read}; {@code default} for users not in {@code users}.
 */
public record AccessLevels(Access defaultAccess, Map<String, Access> users) {
    public static final AccessLevels DEFAULT = new AccessLevels(Access.CYPHER, Map.of());

    public AccessLevels {
        requireNonNull(defaultAccess, "security.access.default");
        users = Map.copyOf(users);
    }

    @JsonCreator
    static AccessLevels fromYaml(@JsonProperty("default") String defaultAccess,
            @JsonProperty("users") Map<String, String> users) {
        Map<String, Access> levels = new LinkedHashMap<>();
        requireNonNullElse(users, Map.<String, String>of()).forEach((user, level) -> levels.put(user, level(level)));
        return new AccessLevels(defaultAccess == null ? DEFAULT.defaultAccess : level(defaultAccess), levels);
    }

    /** The level a file names, in lower case as the README writes it. */
    private static Access level(String text) {
        for (Access a : Access.values()) {
            if (a.name().toLowerCase(Locale.ROOT).equals(text)) {
                return a;
            }
        }
        throw new IllegalArgumentException("security.access levels are cypher, templates or read, got '" + text + "'");
    }

    /** The level of {@code user} (null: anonymous, when auth is off). */
    public Access of(String user) {
        return user == null ? defaultAccess : users.getOrDefault(user, defaultAccess);
    }
}
