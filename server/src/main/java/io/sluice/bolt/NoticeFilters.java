package io.sluice.bolt;

import io.sluice.bolt.Handshake.Version;
import io.sluice.vocab.NoticeFilter;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * How a Bolt client asks for notifications ({@link NoticeFilter}), as Neo4j's Bolt server reads it
 * ({@code NotificationsConfigMetadataReader}, {@code NotificationConfiguration.includes}): HELLO, BEGIN and an
 * auto-commit RUN may carry {@code notifications_minimum_severity} ({@code OFF}, {@code WARNING},
 * {@code INFORMATION}) and the categories to leave out ({@code notifications_disabled_categories} from Bolt 5.2,
 * {@code notifications_disabled_classifications} from 5.6; the other name is ignored, as is everything before 5.2).
 * A transaction's filter is its BEGIN's or RUN's; what that leaves unsaid comes from the connection's (HELLO's) when
 * that one is selective, else the defaults (every severity, no category left out); {@code OFF} anywhere is none at
 * all, inheriting nothing. Standard statuses are never filtered. Values are case-insensitive; others are refused.
 */
final class NoticeFilters {
    private NoticeFilters() {}

    /**
     * What {@code extra} asks (null: it asks nothing, the connection's filter applies); throws
     * {@link IllegalArgumentException} with Neo4j's words for a value it cannot take.
     */
    static NoticeFilter read(Map<String, Object> extra, Version version) {
        if (!version.atLeast(Version.V5_2)) {
            return null;
        }
        Object severity = extra.get("notifications_minimum_severity");
        Object categories = extra.get(version.atLeast(Version.V5_6) ? "notifications_disabled_classifications"
                : "notifications_disabled_categories");
        if (severity == null && categories == null) {
            return null;
        }
        String s = null;
        if (severity != null) {
            s = String.valueOf(severity).toUpperCase(Locale.ROOT);
            if (!(severity instanceof String) || !NoticeFilter.SEVERITIES.contains(s)) {
                throw new IllegalArgumentException("Illegal value for field \"metadata\": Illegal value for field "
                        + "\"Could not parse a NotificationConfig's minimum severity.\"");
            }
            if (s.equals("OFF")) {
                return NoticeFilter.NONE;
            }
        }
        Set<String> disabled = null;
        if (categories != null) {
            if (!(categories instanceof List<?> list)) {
                throw badCategory();
            }
            disabled = new HashSet<>();
            for (Object c : list) {
                String name = String.valueOf(c).toUpperCase(Locale.ROOT);
                if (!(c instanceof String) || !NoticeFilter.CATEGORIES.contains(name)) {
                    throw badCategory();
                }
                disabled.add(name);
            }
        }
        return new NoticeFilter(false, s, disabled == null ? null : Set.copyOf(disabled));
    }

    private static IllegalArgumentException badCategory() {
        return new IllegalArgumentException("Illegal value for field \"metadata\": Illegal value for field "
                + "\"Could not parse a NotificationConfig's category to ignore.\"");
    }

    /** This filter (a transaction's; null: none asked) over the connection's {@code connection} (null: none). */
    static NoticeFilter resolve(NoticeFilter asked, NoticeFilter connection) {
        if (asked == null) {
            return connection == null ? NoticeFilter.ALL : connection;
        }
        if (asked.off() || connection == null || connection.off()) {
            return asked;
        }
        return new NoticeFilter(false, asked.minimumSeverity() != null ? asked.minimumSeverity()
                : connection.minimumSeverity(), asked.disabled() != null ? asked.disabled() : connection.disabled());
    }
}
