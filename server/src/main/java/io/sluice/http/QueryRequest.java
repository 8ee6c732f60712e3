package io.sluice.http;

import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.vocab.NoticeFilter;
import io.sluice.write.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A Query API request body read as Neo4j 2026.08 reads it (its {@code QueryRequest} and {@code QueryTxRequest},
 * through Jackson; compared with the real server in {@code DifferentialTest}): an empty body is an empty request;
 * otherwise one JSON object with only that shape's fields, each of its type, or 400
 * {@code Neo.ClientError.Request.Invalid} (Neo4j says only "Bad Request"; sluice adds what is wrong). An empty
 * or null {@code statement} is no statement (a keep-alive or a bare commit in a transaction; the endpoint
 * without a transaction refuses it). Of the transaction's settings, {@code accessMode} and
 * {@code notificationsFilter} ({@code minimumSeverityLevel} {@code OFF}, {@code WARNING} or {@code INFORMATION};
 * {@code disabledCategories}, upper case, as Neo4j takes them) are honoured, {@code impersonatedUser} refused as
 * Community refuses it, the rest accepted and not used.
 *
 * @param statement null when there is none
 * @param accessMode {@code READ}, {@code WRITE}, or null when not given
 * @param notices the notifications asked for ({@link NoticeFilter#ALL} when not asked)
 */
record QueryRequest(Statement statement, boolean includeCounters, String accessMode, NoticeFilter notices) {
    static final QueryRequest EMPTY = new QueryRequest(null, false, null, NoticeFilter.ALL);

    /** Neo4j's two request shapes. */
    enum Shape {
        /** {@code /query/v2} and opening {@code /query/v2/tx} ({@code QueryTxRequest}): with transaction settings. */
        TRANSACTION(Set.of("statement", "parameters", "includeCounters", "accessMode", "maxExecutionTime",
                "bookmarks", "impersonatedUser", "txType", "txMetadata", "notificationsFilter")),
        /** {@code /tx/{id}} and {@code /tx/{id}/commit} ({@code QueryRequest}): a statement only. */
        STATEMENT(Set.of("statement", "parameters", "includeCounters"));

        private final Set<String> fields;

        Shape(Set<String> fields) {
            this.fields = fields;
        }
    }

    /** A body Neo4j would not accept; {@link #error} is its answer (HTTP 400). */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient Neo4jError error;

        Refused(Neo4jError error) {
            super(error.message());
            this.error = error;
        }

        Neo4jError error() {
            return error;
        }
    }

    boolean readOnly() {
        return "READ".equals(accessMode);
    }

    /** {@code body} as {@code shape}; {@code typed}: parameters in typed JSON (the request's Content-Type). */
    static QueryRequest parse(byte[] body, boolean typed, Shape shape) throws Refused {
        if (body.length == 0) {
            return EMPTY;
        }
        Map<String, Object> root;
        try {
            root = Json.object(Json.parse(body), "the request body");
        } catch (Json.BadRequest e) {
            throw bad(e.getMessage());
        }
        for (String field : root.keySet()) {
            if (!shape.fields.contains(field)) {
                throw bad("unknown field \"" + field + "\"; expected some of " + new TreeSet<>(shape.fields));
            }
        }
        String cypher = text(root.get("statement"), "statement");
        Map<String, Object> params = object(root.get("parameters"), "parameters");
        boolean counters = flag(root.get("includeCounters"));
        String access = accessMode(root.get("accessMode"));
        object(root.get("txMetadata"), "txMetadata");
        NoticeFilter notices = notices(object(root.get("notificationsFilter"), "notificationsFilter"));
        if (root.get("bookmarks") != null && !(root.get("bookmarks") instanceof List<?> l
                && l.stream().allMatch(b -> b == null || b instanceof String))) {
            throw bad("\"bookmarks\" must be an array of strings");
        }
        if (root.get("maxExecutionTime") != null && !(root.get("maxExecutionTime") instanceof Long)) {
            throw bad("\"maxExecutionTime\" must be a number of seconds");
        }
        text(root.get("txType"), "txType");
        String impersonated = text(root.get("impersonatedUser"), "impersonatedUser");
        if (impersonated != null && !impersonated.isBlank()) {
            throw new Refused(new Neo4jError(Neo4jStatus.Statement.ARGUMENT_ERROR,
                    "Impersonation is not supported in community edition."));
        }
        if (cypher == null || cypher.isEmpty()) {
            return new QueryRequest(null, counters, access, notices);
        }
        if (params != null && typed) {
            try {
                params = TypedJson.decodeParameters(params);
            } catch (IllegalArgumentException e) { // Neo4j's own words for an unknown type, else sluice's
                throw new Refused(Neo4jError.invalid(e.getMessage()));
            }
        }
        return new QueryRequest(new Statement(cypher, params == null ? Map.of() : params), counters, access, notices);
    }

    /** {@code notificationsFilter} as Neo4j reads it: its two fields only, values in upper case, null not asked. */
    private static NoticeFilter notices(Map<String, Object> filter) throws Refused {
        if (filter == null) {
            return NoticeFilter.ALL;
        }
        for (String field : filter.keySet()) {
            if (!field.equals("minimumSeverityLevel") && !field.equals("disabledCategories")) {
                throw bad("\"notificationsFilter\" has an unknown field \"" + field
                        + "\"; expected minimumSeverityLevel and disabledCategories");
            }
        }
        Object severity = filter.get("minimumSeverityLevel");
        if (severity != null && !(severity instanceof String s && NoticeFilter.SEVERITIES.contains(s))) {
            throw bad("\"minimumSeverityLevel\" must be one of " + new TreeSet<>(NoticeFilter.SEVERITIES) + ", got "
                    + (severity instanceof String s ? "\"" + s + "\"" : Json.kind(severity)));
        }
        Object categories = filter.get("disabledCategories");
        Set<String> disabled = null;
        if (categories != null) {
            if (!(categories instanceof List<?> list)) {
                throw bad("\"disabledCategories\" must be an array, got " + Json.kind(categories));
            }
            disabled = new HashSet<>();
            for (Object c : list) {
                if (!(c instanceof String name && NoticeFilter.CATEGORIES.contains(name))) {
                    throw bad("\"disabledCategories\" takes " + new TreeSet<>(NoticeFilter.CATEGORIES) + ", got "
                            + (c instanceof String name ? "\"" + name + "\"" : Json.kind(c)));
                }
                disabled.add((String) c);
            }
        }
        if ("OFF".equals(severity)) { // none at all, once the categories were found good
            return NoticeFilter.NONE;
        }
        return severity == null && disabled == null ? NoticeFilter.ALL
                : new NoticeFilter(false, (String) severity, disabled);
    }

    /** A string; a number or boolean as its text (Jackson's coercion); null stays null. */
    private static String text(Object v, String field) throws Refused {
        return switch (v) {
            case null -> null;
            case String s -> s;
            case Number n -> n.toString();
            case Boolean b -> b.toString();
            default -> throw bad("\"" + field + "\" must be a string, got " + Json.kind(v));
        };
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object v, String field) throws Refused {
        if (v == null || v instanceof Map<?, ?>) {
            return (Map<String, Object>) v;
        }
        throw bad("\"" + field + "\" must be an object, got " + Json.kind(v));
    }

    private static boolean flag(Object v) throws Refused {
        return switch (v) {
            case null -> false;
            case Boolean b -> b;
            case String s when s.equals("true") || s.equals("false") -> Boolean.parseBoolean(s);
            default -> throw bad("\"includeCounters\" must be true or false, got " + Json.kind(v));
        };
    }

    /** {@code READ} or {@code WRITE}, any case, as Neo4j's enum reads it. */
    private static String accessMode(Object v) throws Refused {
        if (v == null) {
            return null;
        }
        String mode = v instanceof String s ? s.toUpperCase(Locale.ROOT) : "";
        if (!mode.equals("READ") && !mode.equals("WRITE")) {
            throw bad("\"accessMode\" must be READ or WRITE, got "
                    + (v instanceof String s ? "'" + s + "'" : Json.kind(v)));
        }
        return mode;
    }

    private static Refused bad(String detail) {
        return new Refused(Neo4jError.invalid("Bad Request: " + detail));
    }
}
