package io.sluice.vocab;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which of a statement's notifications a client asked for, as Neo4j decides it ({@code NotificationConfiguration}):
 * a minimum severity ({@code WARNING}: warnings only; null: every severity), the categories (classifications) left
 * out, or none at all ({@code off}). Standard statuses are not notifications and are never filtered. Each front end
 * reads its own request's words into one (Bolt's HELLO, BEGIN and RUN; the Query API's {@code notificationsFilter}).
 *
 * @param minimumSeverity {@code WARNING} or {@code INFORMATION}, or null: not asked
 * @param disabled the categories left out, upper case, or null: not asked
 */
public record NoticeFilter(boolean off, String minimumSeverity, Set<String> disabled) {
    /** Every notification: what a client that asks nothing gets. */
    public static final NoticeFilter ALL = new NoticeFilter(false, null, null);
    /** None: {@code OFF}. */
    public static final NoticeFilter NONE = new NoticeFilter(true, null, null);
    /** The severities a client may name, upper case. */
    public static final Set<String> SEVERITIES = Set.of("INFORMATION", "WARNING", "OFF");
    /** The categories (classifications) a client may leave out, upper case. */
    public static final Set<String> CATEGORIES = Set.of("HINT", "UNRECOGNIZED", "UNSUPPORTED", "PERFORMANCE",
            "DEPRECATION", "GENERIC", "SECURITY", "TOPOLOGY", "SCHEMA");

    public NoticeFilter {
        disabled = disabled == null ? null : Set.copyOf(disabled);
    }

    /**
     * Whether a notification of {@code severity} ({@code WARNING}, {@code INFORMATION}) and {@code category} is
     * sent: at or above the minimum severity (none: all) and not of a category left out ({@code UNKNOWN} never is).
     */
    public boolean includes(String severity, String category) {
        if (off) {
            return false;
        }
        if ("WARNING".equals(minimumSeverity) && !"WARNING".equals(severity)) {
            return false;
        }
        return disabled == null || !disabled.contains(category);
    }

    /** Whether {@link Summary}'s form of a notification (its diagnostic record's severity and class) is sent. */
    public boolean includes(Map<String, Object> notification) {
        Map<?, ?> d = notification.get("diagnostic_record") instanceof Map<?, ?> m ? m : Map.of();
        return includes(String.valueOf(d.get("_severity")), String.valueOf(d.get("_classification")));
    }

    /** The notifications of {@code summary} this filter lets through (the same list when all pass). */
    public List<Map<String, Object>> of(Summary summary) {
        List<Map<String, Object>> all = summary.notifications();
        if (this.equals(ALL) || all.isEmpty()) {
            return all;
        }
        List<Map<String, Object>> wanted = new ArrayList<>(all.size());
        for (Map<String, Object> n : all) {
            if (includes(n)) {
                wanted.add(n);
            }
        }
        return wanted;
    }
}
