package io.sluice.connector;

import io.sluice.config.Sources.Binding;
import io.sluice.config.Sources.Cypher;
import io.sluice.config.Format;
import io.sluice.config.Sources.PatternStrategy;
import io.sluice.config.Sources.Topic;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The topics and their strategies ({@code topics}, {@code neo4j.cypher.topic.*} with its bindings,
 * {@code neo4j.pattern.topic.*}, {@code neo4j.cud.topics}; the CDC strategies refused) as sluice's topic entries.
 */
final class ConnectorTopics {
    private ConnectorTopics() {}

    /**
     * The topics, each with its one strategy, as the connector assigns them (SinkStrategyHandler.createForTopic):
     * {@code neo4j.cypher.topic.<t>}, {@code neo4j.pattern.topic.<t>} or a place in {@code neo4j.cud.topics}.
     */
    static List<Topic> topics(ConnectorSettings s, Format key, Format value) {
        List<String> names = s.list("topics");
        String regex = s.optional("topics.regex");
        checkSubscription(s, names, regex);
        Map<String, String> cypher = s.prefixed(ConnectorNames.CYPHER_TOPIC);
        Map<String, String> pattern = s.prefixed(ConnectorNames.PATTERN_TOPIC);
        List<String> cud = s.list(ConnectorNames.CUD_TOPICS);
        List<String> cdcSchema = s.list(ConnectorNames.CDC.get(0));
        List<String> cdcSourceId = s.list(ConnectorNames.CDC.get(1));
        Binding bind = binding(s);
        checkPatternBindings(s);
        boolean mergeNodes = s.connectorBoolean("neo4j.pattern.merge-node-properties", false);
        boolean mergeRelationships = s.connectorBoolean("neo4j.pattern.merge-relationship-properties", false);
        String deadLetters = s.optional(ConnectorNames.DLQ_TOPIC);
        List<Topic> topics = new ArrayList<>();
        for (String t : names) {
            List<String> by = new ArrayList<>();
            if (cypher.containsKey(t)) {
                by.add(ConnectorNames.CYPHER_TOPIC + t);
            }
            if (pattern.containsKey(t)) {
                by.add(ConnectorNames.PATTERN_TOPIC + t);
            }
            if (cud.contains(t)) {
                by.add(ConnectorNames.CUD_TOPICS);
            }
            if (cdcSchema.contains(t)) {
                by.add(ConnectorNames.CDC.get(0));
            }
            if (cdcSourceId.contains(t)) {
                by.add(ConnectorNames.CDC.get(1));
            }
            if (t.equals(deadLetters)) {
                s.refuse("topics", "the DLQ topic '" + t + "' is among the topics (Kafka Connect refuses it too)");
            }
            if (by.isEmpty()) {
                s.refuse("topics", "topic '" + t + "' is not assigned a sink strategy (the connector refuses it"
                        + " too): give it one of " + ConnectorNames.CYPHER_TOPIC + t + ", "
                        + ConnectorNames.PATTERN_TOPIC + t + ", " + ConnectorNames.CUD_TOPICS);
            } else if (by.size() > 1) {
                s.refuse("topics", "topic '" + t + "' has multiple strategies defined, " + by
                        + " (the connector refuses it too)");
            } else if (!ConnectorNames.CDC.contains(by.get(0))) {
                topic(s, t, by.get(0), key, value, cypher.get(t), pattern.get(t), bind, mergeNodes,
                        mergeRelationships).ifPresent(topics::add);
            }
        }
        refuseCdc(s, cdcSchema, cdcSourceId);
        if (regex == null) {
            refuseUnlisted(s, names, cypher.keySet(), pattern.keySet(), cud);
        }
        return topics;
    }

    private static void checkSubscription(ConnectorSettings s, List<String> names, String regex) {
        if (names.isEmpty() && regex == null) {
            s.refuse("topics", "missing: Kafka Connect needs topics or topics.regex");
        } else if (!names.isEmpty() && regex != null) {
            s.refuse("topics.regex", "topics and topics.regex are mutually exclusive (Kafka Connect refuses both)");
        } else if (regex != null) {
            s.refuse("topics.regex", "the connector finds each topic's strategy by the names in `topics`"
                    + " (SinkConfiguration.topicNames); with topics.regex it has none, and every record fails its task."
                    + " Name the topics in `topics`, or write sluice's own config, whose topics entries take a"
                    + " `regex` with a strategy");
        }
    }

    private static Optional<Topic> topic(ConnectorSettings s, String t, String setting, Format key,
            Format value, String cypher, String pattern, Binding bind, boolean mergeNodes,
            boolean mergeRelationships) {
        try {
            Cypher c = cypher == null ? null : new Cypher(List.of(cypher), null, bind, List.of());
            PatternStrategy p = pattern == null ? null
                    : new PatternStrategy(pattern, mergeNodes, mergeRelationships);
            return Optional.of(new Topic(t, null, key, value, c, p, c == null && p == null));
        } catch (IllegalArgumentException e) {
            s.refuse(setting, e.getMessage());
            return Optional.empty();
        }
    }

    private static void refuseCdc(ConnectorSettings s, List<String> cdcSchema, List<String> cdcSourceId) {
        String why = "the CDC strategies are not supported by sluice: it maps records with the Cypher, pattern and"
                + " CUD strategies only";
        if (!cdcSchema.isEmpty()) {
            s.refuse(ConnectorNames.CDC.get(0), why);
        }
        if (!cdcSourceId.isEmpty()) {
            s.refuse(ConnectorNames.CDC.get(1), why);
        }
        for (String setting : ConnectorNames.CDC.subList(2, 4)) {
            if (s.has(setting)) {
                s.refuse(setting, why);
            }
        }
    }

    /** A strategy for a topic not in {@code topics}: the connector never reads it; sluice will not ignore it. */
    private static void refuseUnlisted(ConnectorSettings s, List<String> names, Set<String> cypher,
            Set<String> pattern, List<String> cud) {
        String why = " is not in `topics`: the connector never reads this strategy, and sluice will not ignore it;"
                + " add the topic to `topics` or remove the strategy";
        cypher.stream().filter(t -> !names.contains(t))
                .forEach(t -> s.refuse(ConnectorNames.CYPHER_TOPIC + t, "topic '" + t + "'" + why));
        pattern.stream().filter(t -> !names.contains(t))
                .forEach(t -> s.refuse(ConnectorNames.PATTERN_TOPIC + t, "topic '" + t + "'" + why));
        cud.stream().filter(t -> !names.contains(t))
                .forEach(t -> s.refuse(ConnectorNames.CUD_TOPICS, "topic '" + t + "'" + why));
    }

    /** The Cypher strategy's names for the record ({@code neo4j.cypher.bind-*}), checked as the connector does. */
    private static Binding binding(ConnectorSettings s) {
        Binding d = Binding.DEFAULT;
        String timestamp = s.string("neo4j.cypher.bind-timestamp-as", d.timestamp());
        String header = s.string("neo4j.cypher.bind-header-as", d.header());
        String key = s.string("neo4j.cypher.bind-key-as", d.key());
        String value = s.string("neo4j.cypher.bind-value-as", d.value());
        boolean event = s.connectorBoolean("neo4j.cypher.bind-value-as-event", d.event());
        try {
            return new Binding(timestamp, header, key, value, event);
        } catch (IllegalArgumentException e) {
            s.refuse("neo4j.cypher.bind-timestamp-as, -header-as, -key-as, -value-as, -value-as-event",
                    e.getMessage() + " (the connector: at least one variable binding must be specified)");
            return d;
        }
    }

    /** The pattern strategy's names for the record: sluice's patterns read the default ones only. */
    private static void checkPatternBindings(ConnectorSettings s) {
        Binding d = Binding.DEFAULT;
        Map<String, String> defaults = Map.of("neo4j.pattern.bind-timestamp-as", d.timestamp(),
                "neo4j.pattern.bind-header-as", d.header(), "neo4j.pattern.bind-key-as", d.key(),
                "neo4j.pattern.bind-value-as", d.value());
        new TreeMap<>(defaults).forEach((setting, name) -> {
            String v = s.string(setting, name);
            if (!v.equals(name)) {
                s.refuse(setting, "'" + v + "': sluice's pattern strategy reads the record as __timestamp,"
                        + " __header.*, __key.* and __value.* only; write the paths in the pattern with those names");
            }
        });
    }
}
