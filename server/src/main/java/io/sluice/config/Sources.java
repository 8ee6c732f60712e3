package io.sluice.config;

import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code sources}: where writes come from besides the front ends. {@code kafka}: application topics (null: none).
 * See docs/SOURCES.md.
 */
public record Sources(KafkaSource kafka) implements Section {
    public static final Sources DEFAULT = new Sources(null);

    @JsonCreator
    static Sources fromYaml(@JsonProperty("kafka") KafkaSource kafka) {
        return new Sources(kafka);
    }

    /** What a record that fails alone, or cannot be read, does to its partition. */
    public enum OnError {
        /** To the dead-letter topic, with Kafka Connect's error headers; the partition moves on. */
        DEAD_LETTER,
        /** The partition holds at it (the others go on), tried again every minute: nothing is skipped. */
        STOP,
        /** Logged and counted, then skipped (the connector's {@code errors.tolerance=all} without a DLQ). */
        SKIP;

        @JsonCreator
        public static OnError of(String name) {
            return switch (name) {
                case "dead_letter" -> DEAD_LETTER;
                case "stop" -> STOP;
                case "skip" -> SKIP;
                default -> throw new IllegalArgumentException("unknown on_error '" + name
                        + "'; known: dead_letter, stop, skip");
            };
        }

        public String yamlName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Where a partition with no position in the graph starts. */
    public enum Start {
        EARLIEST, LATEST;

        @JsonCreator
        public static Start of(String name) {
            return switch (name) {
                case "earliest" -> EARLIEST;
                case "latest" -> LATEST;
                default -> throw new IllegalArgumentException("unknown start '" + name + "'; known: earliest, latest");
            };
        }

        public String yamlName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Consumer settings sluice's exactly-once rests on: refused in {@code properties}. */
    static final List<String> SLUICES = List.of("group.id", "enable.auto.commit", "auto.offset.reset",
            "key.deserializer", "value.deserializer");

    /**
     * {@code sources.kafka}: the brokers ({@code bootstrap}; null: {@code --kafka} gives them), the consumer
     * {@code group} the instances share, {@code properties} for every Kafka client (security included), how many
     * {@code consumers} this instance runs (each a member of the group: the partitions it gets apply concurrently),
     * where a partition with no position in the graph starts ({@code start}, or once from {@code fromGroup}'s
     * committed offsets, or from the connector's EOS nodes labelled {@code eosOffsetLabel}), what a failing record
     * does ({@code onError}, {@code deadLetter}), the topics, and the schema registry the {@code avro} format reads
     * schemas from ({@code schemaRegistry}; null: none, and no topic may be avro).
     */
    public record KafkaSource(String bootstrap, String group, Map<String, String> properties, int consumers,
            Start start, String fromGroup, String eosOffsetLabel, OnError onError, DeadLetter deadLetter,
            List<Topic> topics, SchemaRegistry schemaRegistry, List<Debezium> debezium) {
        public KafkaSource {
            bootstrap = bootstrap == null || bootstrap.isBlank() ? null : bootstrap;
            if (group == null || group.isBlank()) {
                throw new IllegalArgumentException("sources.kafka.group is required");
            }
            properties = Map.copyOf(properties);
            for (String owned : SLUICES) {
                if (properties.containsKey(owned)) {
                    throw new IllegalArgumentException("sources.kafka.properties: " + owned + " is sluice's to set"
                            + " (" + (owned.equals("group.id") ? "use sources.kafka.group" : owned.equals(
                            "auto.offset.reset") ? "use sources.kafka.start; a partition's position is the graph's"
                            : "the positions live in the graph and the records are read as bytes") + ")");
                }
            }
            if (consumers < 1) {
                throw new IllegalArgumentException("sources.kafka.consumers must be >= 1");
            }
            fromGroup = fromGroup == null || fromGroup.isBlank() ? null : fromGroup;
            eosOffsetLabel = eosOffsetLabel == null || eosOffsetLabel.isBlank() ? null : eosOffsetLabel;
            if (eosOffsetLabel != null && !eosOffsetLabel.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException("sources.kafka.eos_offset_label '" + eosOffsetLabel
                        + "' is not a label name");
            }
            topics = List.copyOf(topics);
            debezium = List.copyOf(debezium);
            if (topics.isEmpty() && debezium.isEmpty()) {
                throw new IllegalArgumentException("sources.kafka.topics names no topic (and debezium no connector)");
            }
            java.util.Set<String> read = new java.util.HashSet<>();
            for (Debezium d : debezium) {
                for (String t : d.topics()) {
                    if (!read.add(t)) {
                        throw new IllegalArgumentException("sources.kafka.debezium: topic " + t + " is read twice");
                    }
                    for (Topic e : topics) {
                        if (t.equals(e.topic()) || e.regex() != null && Pattern.compile(e.regex()).matcher(t).matches()) {
                            throw new IllegalArgumentException("topic " + t + " is both debezium " + d.prefix()
                                    + "'s and topics' " + e.name());
                        }
                    }
                }
            }
            if (onError == OnError.DEAD_LETTER && deadLetter.topic() == null) {
                throw new IllegalArgumentException("sources.kafka.on_error dead_letter needs dead_letter.topic");
            }
            if (schemaRegistry == null) {
                for (Topic t : topics) {
                    if (t.keyFormat() == Format.AVRO || t.valueFormat() == Format.AVRO) {
                        throw new IllegalArgumentException("topic " + t.name() + " reads avro, which needs"
                                + " sources.kafka.schema_registry.url");
                    }
                }
                for (Debezium d : debezium) {
                    if (d.keyFormat() == Format.AVRO || d.valueFormat() == Format.AVRO) {
                        throw new IllegalArgumentException("debezium " + d.prefix() + " reads avro, which needs"
                                + " sources.kafka.schema_registry.url");
                    }
                }
            }
        }

        /** Without Debezium connectors. */
        public KafkaSource(String bootstrap, String group, Map<String, String> properties, int consumers,
                Start start, String fromGroup, String eosOffsetLabel, OnError onError, DeadLetter deadLetter,
                List<Topic> topics, SchemaRegistry schemaRegistry) {
            this(bootstrap, group, properties, consumers, start, fromGroup, eosOffsetLabel, onError, deadLetter,
                    topics, schemaRegistry, List.of());
        }

        /**
         * Every entry the group's consumers apply: {@code topics}, and each table topic of a Debezium connector
         * applied row by row (one without {@code transactions}; a connector with them has a consumer of its own).
         */
        public List<Topic> grouped() {
            List<Topic> out = new java.util.ArrayList<>(topics);
            for (Debezium d : debezium) {
                if (!d.transactions()) {
                    for (String table : d.tables().keySet()) {
                        out.add(new Topic(d.topicOf(table), null, d.keyFormat(), d.valueFormat(), null, null, false,
                                d));
                    }
                }
            }
            return out;
        }

        /** Without a schema registry. */
        public KafkaSource(String bootstrap, String group, Map<String, String> properties, int consumers,
                Start start, String fromGroup, String eosOffsetLabel, OnError onError, DeadLetter deadLetter,
                List<Topic> topics) {
            this(bootstrap, group, properties, consumers, start, fromGroup, eosOffsetLabel, onError, deadLetter,
                    topics, null);
        }

        @JsonCreator
        static KafkaSource fromYaml(@JsonProperty("bootstrap") String bootstrap, @JsonProperty("group") String group,
                @JsonProperty("properties") Map<String, String> properties,
                @JsonProperty("consumers") Integer consumers, @JsonProperty("start") Start start,
                @JsonProperty("from_group") String fromGroup,
                @JsonProperty("eos_offset_label") String eosOffsetLabel, @JsonProperty("on_error") OnError onError,
                @JsonProperty("dead_letter") DeadLetter deadLetter, @JsonProperty("topics") List<Topic> topics,
                @JsonProperty("schema_registry") SchemaRegistry schemaRegistry,
                @JsonProperty("debezium") List<Debezium> debezium) {
            DeadLetter dl = requireNonNullElse(deadLetter, DeadLetter.NONE);
            return new KafkaSource(bootstrap, requireNonNullElse(group, "sluice-sources"),
                    requireNonNullElse(properties, Map.of()), requireNonNullElse(consumers, 2),
                    requireNonNullElse(start, Start.EARLIEST), fromGroup, eosOffsetLabel,
                    requireNonNullElse(onError, dl.topic() == null ? OnError.STOP : OnError.DEAD_LETTER), dl,
                    requireNonNullElse(topics, List.of()), schemaRegistry, requireNonNullElse(debezium, List.of()));
        }

        public KafkaSource withBootstrap(String bootstrap) {
            return new KafkaSource(bootstrap, group, properties, consumers, start, fromGroup, eosOffsetLabel, onError,
                    deadLetter, topics, schemaRegistry, debezium);
        }
    }

    /**
     * {@code sources.kafka.schema_registry}: a Confluent-compatible schema registry's REST API at {@code url}
     * (Confluent's, or another's compatible endpoint, e.g. Apicurio's {@code .../apis/ccompat/v6}); the
     * {@code avro} format reads each writer's schema from it by id ({@code GET {url}/schemas/ids/{id}}).
     */
    public record SchemaRegistry(String url) {
        public SchemaRegistry {
            if (url == null || url.isBlank()) {
                throw new IllegalArgumentException("sources.kafka.schema_registry.url is required");
            }
            url = url.strip();
            while (url.endsWith("/")) {
                url = url.substring(0, url.length() - 1);
            }
            URI u;
            try {
                u = new URI(url);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("sources.kafka.schema_registry.url '" + url + "': "
                        + e.getReason());
            }
            if ((!"http".equals(u.getScheme()) && !"https".equals(u.getScheme())) || u.getHost() == null) {
                throw new IllegalArgumentException("sources.kafka.schema_registry.url '" + url + "' is not an"
                        + " http:// or https:// URL");
            }
            if (u.getUserInfo() != null) {
                throw new IllegalArgumentException("sources.kafka.schema_registry.url: credentials in the URL are"
                        + " not supported (sluice reads a registry without authentication)");
            }
        }

        @JsonCreator
        static SchemaRegistry fromYaml(@JsonProperty("url") String url) {
            return new SchemaRegistry(url);
        }
    }

    /**
     * Dead letters: the {@code topic} (null: none), at most {@code maxPerMinute} per partition a minute (past it the
     * partition pauses: a flood of failures is more likely an outage or a bad mapping than bad data), and whether
     * the Kafka Connect context headers ({@code __connect.errors.*}) are written ({@code contextHeaders}).
     */
    public record DeadLetter(String topic, int maxPerMinute, boolean contextHeaders) {
        public static final DeadLetter NONE = new DeadLetter(null, 100, true);

        public DeadLetter {
            topic = topic == null || topic.isBlank() ? null : topic;
            if (maxPerMinute < 1) {
                throw new IllegalArgumentException("sources.kafka.dead_letter.max_per_minute must be >= 1");
            }
        }

        @JsonCreator
        static DeadLetter fromYaml(@JsonProperty("topic") String topic,
                @JsonProperty("max_per_minute") Integer maxPerMinute,
                @JsonProperty("context_headers") Boolean contextHeaders) {
            return new DeadLetter(topic, requireNonNullElse(maxPerMinute, NONE.maxPerMinute),
                    requireNonNullElse(contextHeaders, NONE.contextHeaders));
        }
    }

    /**
     * One topic ({@code topic}) or every topic matching {@code regex}, its key and value {@code keyFormat} and
     * {@code valueFormat}, and exactly one strategy: {@code cypher}, {@code pattern} or {@code cud}.
     */
    public record Topic(String topic, String regex, Format keyFormat, Format valueFormat, Cypher cypher,
            PatternStrategy pattern, boolean cud, Debezium debezium) {
        public Topic(String topic, String regex, Format keyFormat, Format valueFormat, Cypher cypher,
                PatternStrategy pattern, boolean cud) {
            this(topic, regex, keyFormat, valueFormat, cypher, pattern, cud, null);
        }

        public Topic {
            if ((topic == null) == (regex == null)) {
                throw new IllegalArgumentException("a sources.kafka.topics entry names a 'topic' or a 'regex', one");
            }
            if (regex != null) {
                try {
                    Pattern.compile(regex);
                } catch (PatternSyntaxException e) {
                    throw new IllegalArgumentException("topic regex '" + regex + "': " + e.getDescription());
                }
            }
            int strategies = (cypher == null ? 0 : 1) + (pattern == null ? 0 : 1) + (cud ? 1 : 0)
                    + (debezium == null ? 0 : 1);
            if (strategies != 1) {
                throw new IllegalArgumentException("topic " + name() + " needs exactly one of cypher, pattern, cud"
                        + " (it has " + strategies + ")");
            }
        }

        /** How the file names it: the topic, or {@code /regex/}. */
        public String name() {
            return topic != null ? "'" + topic + "'" : "/" + regex + "/";
        }

        @JsonCreator
        static Topic fromYaml(@JsonProperty("topic") String topic, @JsonProperty("regex") String regex,
                @JsonProperty("key_format") Format keyFormat, @JsonProperty("value_format") Format valueFormat,
                @JsonProperty("cypher") Object cypher, @JsonProperty("route") Route route,
                @JsonProperty("bind") Binding bind, @JsonProperty("lock_order") List<String> lockOrder,
                @JsonProperty("pattern") String pattern,
                @JsonProperty("merge_node_properties") Boolean mergeNodeProperties,
                @JsonProperty("merge_relationship_properties") Boolean mergeRelationshipProperties,
                @JsonProperty("cud") Boolean cud) {
            Cypher c = null;
            if (cypher != null || route != null) {
                if (cypher != null && route != null) {
                    throw new IllegalArgumentException("topic '" + topic + "': cypher or route, not both");
                }
                c = new Cypher(statements(cypher), route, requireNonNullElse(bind, Binding.DEFAULT),
                        requireNonNullElse(lockOrder, List.of()));
            } else if (bind != null || lockOrder != null) {
                throw new IllegalArgumentException("topic '" + topic + "': bind and lock_order belong to cypher");
            }
            PatternStrategy p = null;
            if (pattern != null) {
                p = new PatternStrategy(pattern, requireNonNullElse(mergeNodeProperties, false),
                        requireNonNullElse(mergeRelationshipProperties, false));
            } else if (mergeNodeProperties != null || mergeRelationshipProperties != null) {
                throw new IllegalArgumentException("topic '" + topic + "': merge_*_properties belong to pattern");
            }
            return new Topic(topic, regex, requireNonNullElse(keyFormat, Format.JSON),
                    requireNonNullElse(valueFormat, Format.JSON), c, p, Boolean.TRUE.equals(cud));
        }

        @SuppressWarnings("unchecked")
        static List<String> statements(Object cypher) {
            if (cypher == null) {
                return List.of();
            }
            if (cypher instanceof String s) {
                return List.of(s);
            }
            if (cypher instanceof List<?> l && l.stream().allMatch(String.class::isInstance) && !l.isEmpty()) {
                return (List<String>) l;
            }
            throw new IllegalArgumentException("cypher must be a statement or a list of statements");
        }
    }

    /**
     * The Cypher strategy: {@code statements} run for each record, in order (or, with {@code route}, the
     * statements of the case a header or field names), each seeing the record as {@code bind} names it; a batch's
     * rows are sorted by {@code lockOrder} paths when that reorders no key.
     */
    public record Cypher(List<String> statements, Route route, Binding bind, List<String> lockOrder) {
        public Cypher {
            statements = List.copyOf(statements);
            lockOrder = List.copyOf(lockOrder);
            if (statements.isEmpty() == (route == null)) {
                throw new IllegalArgumentException("cypher needs statements or a route, one");
            }
            for (String s : statements) {
                if (s.isBlank()) {
                    throw new IllegalArgumentException("a cypher statement is blank");
                }
            }
        }
    }

    /**
     * A statement chosen per record: {@code by} a path ({@code __header.type}, {@code __value.kind},
     * {@code __key.x}; the record's own names, whatever {@code bind} renames), the {@code cases} by the value found
     * there (each one or more statements), and what a record matching none does ({@code otherwise}: statements, or
     * none: it fails, see on_error).
     */
    public record Route(String by, Map<String, List<String>> cases, List<String> otherwise) {
        public Route {
            if (by == null || !by.matches("__(header|key|value|timestamp)(\\.[^.]+)*")) {
                throw new IllegalArgumentException("route.by '" + by + "' must be a path under __header, __key,"
                        + " __value");
            }
            cases = Collections.unmodifiableMap(new LinkedHashMap<>(cases));
            otherwise = otherwise == null ? List.of() : List.copyOf(otherwise);
            if (cases.isEmpty()) {
                throw new IllegalArgumentException("route has no cases");
            }
        }

        @JsonCreator
        static Route fromYaml(@JsonProperty("by") String by, @JsonProperty("cases") Map<String, Object> cases,
                @JsonProperty("otherwise") Object otherwise) {
            Map<String, List<String>> c = new LinkedHashMap<>();
            requireNonNullElse(cases, Map.<String, Object>of()).forEach((k, v) -> c.put(k, Topic.statements(v)));
            return new Route(by, c, Topic.statements(otherwise));
        }
    }

    /**
     * The names a Cypher statement sees the record by (the connector's {@code neo4j.cypher.bind-*-as}); an empty
     * name binds nothing; {@code event}: the value is also {@code event}.
     */
    public record Binding(String timestamp, String header, String key, String value, boolean event) {
        public static final Binding DEFAULT = new Binding("__timestamp", "__header", "__key", "__value", true);

        public Binding {
            for (String n : new String[] {timestamp, header, key, value}) {
                if (n == null || !(n.isEmpty() || n.matches("[A-Za-z_][A-Za-z0-9_]*"))) {
                    throw new IllegalArgumentException("bind name '" + n + "' is not a variable name");
                }
            }
            if (!event && timestamp.isEmpty() && header.isEmpty() && key.isEmpty() && value.isEmpty()) {
                throw new IllegalArgumentException("bind names nothing: the statement would not see the record");
            }
        }

        @JsonCreator
        static Binding fromYaml(@JsonProperty("timestamp") String timestamp, @JsonProperty("header") String header,
                @JsonProperty("key") String key, @JsonProperty("value") String value,
                @JsonProperty("event") Boolean event) {
            return new Binding(requireNonNullElse(timestamp, DEFAULT.timestamp),
                    requireNonNullElse(header, DEFAULT.header), requireNonNullElse(key, DEFAULT.key),
                    requireNonNullElse(value, DEFAULT.value), requireNonNullElse(event, DEFAULT.event));
        }
    }

    /**
     * The pattern strategy: the connector's pattern, and whether a node's or a relationship's properties merge into
     * what is there ({@code neo4j.pattern.merge-node-properties}, {@code -relationship-}) or replace it (the default).
     */
    public record PatternStrategy(String pattern, boolean mergeNodeProperties, boolean mergeRelationshipProperties) {
        public PatternStrategy {
            if (pattern == null || pattern.isBlank()) {
                throw new IllegalArgumentException("pattern is blank");
            }
        }
    }
}
