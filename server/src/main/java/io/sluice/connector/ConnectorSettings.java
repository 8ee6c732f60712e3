package io.sluice.connector;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A Kafka Connect connector's settings as its file gives them, and what {@link ConnectorConfig} made of each.
 * Every read marks a setting used, so those no read reached are the unknown ones; refusals ({@link #refuse}) and
 * notes ({@link #note}) are collected, so that one exception names every setting sluice cannot run.
 *
 * <p>Values are read as Kafka Connect parses them: trimmed; lists split on commas, each item trimmed; Connect's own
 * booleans in any case, the connector's ({@code Validators.bool()}) only {@code true} or {@code false}.
 */
final class ConnectorSettings {
    /** The connector's durations ({@code SIMPLE_DURATION_PATTERN} in its Duration.kt). */
    private static final Pattern DURATION = Pattern.compile("(\\d+(ms|s|m|h|d))+");
    /** A Kafka Connect config provider reference, {@code ${provider:[path:]key}}, resolved by the worker. */
    private static final Pattern PROVIDER = Pattern.compile("\\$\\{[^}]*:[^}]*}");
    /** The keys of the connector JSON that Connect's REST API posts or returns, around {@code config}. */
    private static final Set<String> ENVELOPE = Set.of("name", "config", "tasks", "type");

    private final Map<String, String> values;
    private final String name;
    private final Set<String> used = new HashSet<>();
    private final List<String> refusals = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    ConnectorSettings(Map<String, String> values, String name) {
        this.values = new TreeMap<>(values);
        this.name = name == null || name.isBlank() ? null : name.trim();
    }

    /** The settings of a file's text: JSON (Connect's REST body, or the bare map) when it starts with '{'. */
    static ConnectorSettings parse(String text) {
        return text.stripLeading().startsWith("{") ? json(text) : properties(text);
    }

    private static ConnectorSettings properties(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("not a properties file: " + e.getMessage(), e);
        }
        Map<String, String> m = new TreeMap<>();
        p.stringPropertyNames().forEach(k -> m.put(k, p.getProperty(k)));
        return new ConnectorSettings(m, m.get("name"));
    }

    private static ConnectorSettings json(String text) {
        JsonNode root;
        try {
            root = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).readTree(text);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + (e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage()), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("the JSON is not an object of settings");
        }
        if (!root.path("config").isObject()) {
            return fromMap(root, null);
        }
        List<String> odd = new ArrayList<>();
        root.fieldNames().forEachRemaining(f -> {
            if (!ENVELOPE.contains(f)) {
                odd.add(f);
            }
        });
        if (!odd.isEmpty()) {
            throw new IllegalArgumentException("unexpected " + odd + " beside \"config\" (Kafka Connect's REST body"
                    + " has \"name\" and \"config\")");
        }
        if (root.has("type") && !"sink".equals(root.get("type").asText())) {
            throw new IllegalArgumentException("\"type\": " + root.get("type") + ": this is not a sink connector");
        }
        String name = root.path("name").isTextual() ? root.get("name").asText() : null;
        String inner = root.get("config").path("name").asText(null);
        if (name != null && inner != null && !name.equals(inner)) {
            throw new IllegalArgumentException("\"name\" '" + name + "' and config.name '" + inner + "' differ"
                    + " (Kafka Connect refuses that too)");
        }
        return fromMap(root.get("config"), name);
    }

    private static ConnectorSettings fromMap(JsonNode map, String name) {
        Map<String, String> m = new TreeMap<>();
        List<String> bad = new ArrayList<>();
        map.properties().forEach(e -> {
            if (e.getValue().isValueNode() && !e.getValue().isNull()) {
                m.put(e.getKey(), e.getValue().asText());
            } else {
                bad.add(e.getKey());
            }
        });
        if (!bad.isEmpty()) {
            throw new IllegalArgumentException("settings " + bad + ": a Kafka Connect setting's value is a string");
        }
        return new ConnectorSettings(m, name != null ? name : m.get("name"));
    }

    /** The connector's name: the REST body's, else the {@code name} setting; null when neither is given. */
    String name() {
        return name;
    }

    /** The settings whose values are config provider references, which only a Connect worker resolves. */
    List<String> providerReferences() {
        return values.entrySet().stream().filter(e -> PROVIDER.matcher(e.getValue()).find()).map(Map.Entry::getKey)
                .toList();
    }

    boolean has(String key) {
        return values.containsKey(key);
    }

    /** The value, trimmed, or {@code otherwise} when absent; marks the setting used. */
    String string(String key, String otherwise) {
        used.add(key);
        String v = values.get(key);
        return v == null ? otherwise : v.trim();
    }

    /** The value, or null when absent or blank (the default of Connect's and the connector's optional strings). */
    String optional(String key) {
        String v = string(key, "");
        return v.isEmpty() ? null : v;
    }

    /** A Connect LIST: comma-separated, items trimmed, empty items dropped; absent: empty. */
    List<String> list(String key) {
        String v = string(key, "");
        return v.isEmpty() ? List.of()
                : Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).distinct().toList();
    }

    /** A Connect BOOLEAN: true or false in any case. */
    boolean connectBoolean(String key, boolean otherwise) {
        String v = string(key, null);
        if (v == null) {
            return otherwise;
        }
        if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
            refuse(key, "'" + v + "' is not a boolean");
            return otherwise;
        }
        return Boolean.parseBoolean(v);
    }

    /** One of the connector's booleans: exactly true or false (its {@code Validators.bool()}). */
    boolean connectorBoolean(String key, boolean otherwise) {
        String v = string(key, null);
        if (v == null) {
            return otherwise;
        }
        if (!v.equals("true") && !v.equals("false")) {
            refuse(key, "'" + v + "' must be true or false (the connector refuses it too)");
            return otherwise;
        }
        return v.equals("true");
    }

    /** An integer of at least {@code min}. */
    int integer(String key, int otherwise, int min) {
        String v = string(key, null);
        if (v == null) {
            return otherwise;
        }
        try {
            int i = Integer.parseInt(v);
            if (i >= min) {
                return i;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        refuse(key, "'" + v + "' must be an integer >= " + min);
        return otherwise;
    }

    /** A whole number of at least {@code min} (Connect's LONG and SHORT settings); true when the key is set. */
    boolean whole(String key, long min) {
        String v = string(key, null);
        if (v == null) {
            return false;
        }
        try {
            if (Long.parseLong(v) >= min) {
                return true;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        refuse(key, "'" + v + "' must be a whole number >= " + min);
        return true;
    }

    /** One of {@code allowed}, as written (the connector's enums are case-sensitive). */
    String oneOf(String key, String otherwise, List<String> allowed) {
        String v = string(key, otherwise);
        if (!allowed.contains(v)) {
            refuse(key, "'" + v + "' must be one of " + allowed);
            return otherwise;
        }
        return v;
    }

    /** Checks a duration as the connector writes them ({@code 30s}, {@code 1m30s}); true when the key is set. */
    boolean duration(String key) {
        String v = string(key, null);
        if (v != null && !DURATION.matcher(v).matches()) {
            refuse(key, "'" + v + "' is not a duration such as 30s or 1m30s (units ms, s, m, h, d)");
        }
        return v != null;
    }

    /**
     * The settings under {@code prefix}, by the rest of their names, marked used; those under a longer prefix in
     * {@code except} are left for their own reader.
     */
    Map<String, String> prefixed(String prefix, String... except) {
        Map<String, String> m = new TreeMap<>();
        for (Map.Entry<String, String> e : values.entrySet()) {
            String k = e.getKey();
            if (k.startsWith(prefix) && k.length() > prefix.length()
                    && Arrays.stream(except).noneMatch(k::startsWith)) {
                used.add(k);
                m.put(k.substring(prefix.length()), e.getValue().trim());
            }
        }
        return m;
    }

    /** Whether the file sets anything under {@code prefix}. */
    boolean anyUnder(String prefix) {
        return values.keySet().stream().anyMatch(k -> k.startsWith(prefix));
    }

    /** The setting names that start with {@code prefix}, not yet read. */
    List<String> unread(String prefix) {
        return values.keySet().stream().filter(k -> k.startsWith(prefix) && !used.contains(k)).toList();
    }

    /** Refuses a setting: sluice will not run with it, for {@code why}. */
    void refuse(String key, String why) {
        used.add(key);
        refusals.add(key + ": " + why);
    }

    /** Notes a setting sluice accepts with another meaning, or none. */
    void note(String key, String what) {
        notes.add(key + ": " + what);
    }

    List<String> notes() {
        return List.copyOf(notes);
    }

    /** Refuses every setting no read reached: sluice does not know what it asks for. */
    void refuseUnread() {
        for (String k : values.keySet()) {
            if (!used.contains(k)) {
                refusals.add(k + ": " + unknownReason(k));
            }
        }
    }

    private static String unknownReason(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        return lower.startsWith("neo4j.")
                ? "not a setting of the Neo4j sink connector sluice reads (org.neo4j.connectors.kafka.sink.Neo4jConnector"
                        + " 5.x; see docs/reference/connector-config.md); sluice refuses what it does not know rather"
                        + " than ignore it"
                : "unknown to sluice; it refuses what it does not know rather than ignore it"
                        + " (docs/reference/connector-config.md)";
    }

    /** Throws the refusals, all of them, if there are any. */
    void throwRefusals(String what) {
        if (!refusals.isEmpty()) {
            throw new IllegalArgumentException(what + ": sluice cannot run " + (refusals.size() == 1
                    ? "this setting" : "these " + refusals.size() + " settings") + ":\n  " + String.join("\n  ",
                    refusals));
        }
    }
}
