package io.sluice.connector;

import io.sluice.config.ConfigLoader;
import io.sluice.topic.AvroReader;
import io.sluice.config.SluiceConfig;
import io.sluice.config.Sources.Binding;
import io.sluice.config.Sources.Cypher;
import io.sluice.config.Sources.DeadLetter;
import io.sluice.config.Sources.Format;
import io.sluice.config.Sources.KafkaSource;
import io.sluice.config.Sources.OnError;
import io.sluice.config.Sources.PatternStrategy;
import io.sluice.config.Sources.Start;
import io.sluice.config.Sources.Topic;
import io.sluice.config.Sources;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;

/**
 * The Neo4j Kafka Connector's sink configuration ({@value #CONNECTOR_CLASS}, 5.x), as sluice runs it
 * ({@code sluice serve --connector-config FILE}): the {@code sources.kafka} section it amounts to
 * ({@link #kafka()}), the Neo4j it writes to ({@link #neo4j()}, what {@code --neo4j}, {@code --user},
 * {@code --password} and {@code --database} would say), the batch row limit ({@link #maxRows()}), the notes on
 * settings accepted with another meaning or none ({@link #notes()}), and the same as sluice YAML ({@link #yaml()}).
 * docs/reference/connector-config.md lists every setting and what becomes of it.
 *
 * <h2>Design</h2>
 * The file is the connector's as it is: Kafka Connect's REST body ({@code {"name", "config"}}), the bare map of
 * settings, or a standalone worker's {@code .properties} (with the worker's {@code bootstrap.servers} and
 * {@code consumer.*} if it is merged with the worker's file). Values are strings, read as Connect and the connector
 * parse them ({@link ConnectorSettings}).
 *
 * <p>Every setting is honoured, accepted with a note, or refused, never silently ignored: a setting no conversion
 * step reads is unknown and refused by name, like one sluice cannot honour (a transform, a schema-registry
 * converter, a CDC strategy, Kerberos). Refusals are collected and thrown together, one
 * {@link IllegalArgumentException} naming every such setting, so a file is mended in one pass. A wrong
 * {@code connector.class} or a config provider reference ({@code ${file:...}}) is thrown alone: with either, the
 * other settings do not say what sluice would think they say.
 *
 * <p>The connector's own checks are mirrored: a topic with no strategy or two, a DLQ topic among the topics, blank
 * Basic credentials, the bindings that bind nothing. Where the connector is lenient in a way that hides a mistake
 * (it never reads a strategy whose topic is not in {@code topics}) sluice refuses; where Connect's and the
 * connector's behaviour differs from sluice's (errors, batches, retries), {@link #notes()} says how.
 *
 * <p>The Neo4j connection is returned, not applied: {@code --neo4j} on the command line wins, and the caller
 * decides. The password is never written to the YAML.
 */
public final class ConnectorConfig {
    public static final String CONNECTOR_CLASS = "org.neo4j.connectors.kafka.sink.Neo4jConnector";
    static final String LEGACY_CLASS = "streams.kafka.connect.sink.Neo4jSinkConnector";
    static final String SOURCE_CLASS = "org.neo4j.connectors.kafka.source.Neo4jConnector";
    static final String JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter";
    static final String STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter";
    static final String BYTES_CONVERTER = "org.apache.kafka.connect.converters.ByteArrayConverter";
    static final String AVRO_CONVERTER = "io.confluent.connect.avro.AvroConverter";
    static final String HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter";

    static final String CYPHER_TOPIC = "neo4j.cypher.topic.";
    static final String PATTERN_TOPIC = "neo4j.pattern.topic.";
    static final String CUD_TOPICS = "neo4j.cud.topics";
    static final String DLQ_TOPIC = "errors.deadletterqueue.topic.name";
    private static final List<String> CDC = List.of("neo4j.cdc.schema.topics", "neo4j.cdc.source-id.topics",
            "neo4j.cdc.source-id.label-name", "neo4j.cdc.source-id.property-name");
    /** The connector's {@code neo4j.uri} schemes (Neo4jConfigurationDeclarations.kt), sluice's Bolt sink's too. */
    private static final List<String> SCHEMES = List.of("neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc");
    /** Settings of a standalone worker's file that say nothing about this connector's work. */
    private static final List<String> WORKER_ONLY = List.of("offset.storage.file.filename", "offset.flush.interval.ms",
            "plugin.path");

    /**
     * The Neo4j the connector writes to: the first of {@code neo4j.uri}, its scheme with {@code +s} or {@code +ssc}
     * when {@code neo4j.security.*} asks for TLS; the Basic {@code user} and {@code password} (null, null: no
     * authentication); the {@code database} (null: the connector names none, so the server's default).
     */
    public record Neo4jSink(String uri, String user, String password, String database) {
        /** Never shows the password. */
        @Override
        public String toString() {
            return "Neo4jSink[uri=" + uri + ", user=" + user + ", password=" + (password == null ? "none" : "...")
                    + ", database=" + database + "]";
        }
    }

    private final String name;
    private final KafkaSource kafka;
    private final Neo4jSink neo4j;
    private final Integer maxRows;
    private final List<String> notes;

    private ConnectorConfig(String name, KafkaSource kafka, Neo4jSink neo4j, Integer maxRows, List<String> notes) {
        this.name = name;
        this.kafka = kafka;
        this.neo4j = neo4j;
        this.maxRows = maxRows;
        this.notes = List.copyOf(notes);
    }

    /** The configuration of a connector file (JSON or {@code .properties}). */
    public static ConnectorConfig load(Path file) throws IOException {
        String text = Files.readString(file);
        try {
            return of(ConnectorSettings.parse(text), "connector config " + file);
        } catch (IllegalArgumentException e) {
            if (e.getMessage().startsWith("connector config ")) {
                throw e;
            }
            throw new IllegalArgumentException("connector config " + file + ": " + e.getMessage(), e);
        }
    }

    /** The configuration of a connector file's text (JSON or {@code .properties}). */
    public static ConnectorConfig parse(String text) {
        return of(ConnectorSettings.parse(text), "connector config");
    }

    static ConnectorConfig of(ConnectorSettings s, String what) {
        refuseProviderReferences(s, what);
        checkClass(s, what);
        Map<String, String> registries = new TreeMap<>();
        Format key = format(s, "key", registries);
        Format value = format(s, "value", registries);
        Sources.SchemaRegistry registry = registry(s, registries);
        List<Topic> topics = topics(s, key, value);
        Errors errors = errors(s);
        Client client = client(s);
        int consumers = consumers(s);
        String eos = eosOffsetLabel(s);
        Neo4jSink neo4j = neo4j(s);
        Integer maxRows = batch(s);
        acceptAsNoted(s);
        refuseUnsupported(s);
        s.refuseUnread();
        s.throwRefusals(what);
        KafkaSource kafka;
        try {
            kafka = new KafkaSource(client.bootstrap, client.group, client.properties, consumers, client.start,
                    client.fromGroup, eos, errors.onError, errors.deadLetter, topics, registry);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
        }
        return new ConnectorConfig(s.name(), kafka, neo4j, maxRows, s.notes());
    }

    /** The connector's name (null when the file gives none). */
    public String name() {
        return name;
    }

    /** The {@code sources.kafka} section the connector amounts to. */
    public KafkaSource kafka() {
        return kafka;
    }

    /** The Neo4j it writes to; {@code --neo4j} and its credentials, when given, take its place. */
    public Neo4jSink neo4j() {
        return neo4j;
    }

    /** {@code batch.max_rows} from {@code neo4j.batch-size}, when the file sets it. */
    public OptionalInt maxRows() {
        return maxRows == null ? OptionalInt.empty() : OptionalInt.of(maxRows);
    }

    /** Settings accepted with another meaning than the connector's, or none: each starts with its name. */
    public List<String> notes() {
        return notes;
    }

    /**
     * {@code base} with these sources, the connector's database (when it names one) and row limit (when it sets
     * one). Refused when {@code base} has sources of its own: which of the two would be meant is not for sluice to
     * guess.
     */
    public SluiceConfig applyTo(SluiceConfig base) {
        if (base.sources().kafka() != null) {
            throw new IllegalArgumentException("the config file has sources.kafka and a connector config is given:"
                    + " use one of them");
        }
        SluiceConfig c = base.with(new Sources(kafka));
        if (neo4j.database() != null) {
            c = c.with(c.neo4j().withDatabase(neo4j.database()));
        }
        if (maxRows != null) {
            c = c.with(maxRows < c.batch().minRows() ? c.batch().withMinRows(maxRows).withMaxRows(maxRows)
                    : c.batch().withMaxRows(maxRows));
        }
        return c;
    }

    /**
     * The equivalent sluice YAML: the {@code sources} section, {@code neo4j.database} and {@code batch.max_rows}
     * when the connector sets them, and, as comments, the Neo4j URI and user for the command line (never the
     * password) and the notes. {@link ConfigLoader} reads it back into an equal {@link #kafka()}.
     */
    public String yaml() {
        return ConnectorYaml.of(this);
    }

    // ---- the conversion, a step per group of settings ----

    private static void refuseProviderReferences(ConnectorSettings s, String what) {
        for (String key : s.providerReferences()) {
            s.refuse(key, "a Kafka Connect config provider reference (${provider:...}), which only a Connect worker"
                    + " resolves; write the value itself (a Neo4j password: --password or SLUICE_NEO4J_PASSWORD)");
        }
        s.throwRefusals(what);
    }

    private static void checkClass(ConnectorSettings s, String what) {
        String cls = s.optional("connector.class");
        String why = cls == null ? "missing: Kafka Connect requires it; sluice runs " + CONNECTOR_CLASS
                : cls.equals(CONNECTOR_CLASS) ? null
                : cls.equals(LEGACY_CLASS) ? "the neo4j-streams sink (4.x), whose settings (neo4j.topic.cypher.*,"
                        + " neo4j.server.uri, ...) and strategies differ from the 5.x connector's; sluice reads the"
                        + " settings of " + CONNECTOR_CLASS + " only: migrate the file to it first (Neo4j's migration"
                        + " guide maps each setting)"
                : cls.equals(SOURCE_CLASS) ? "the connector's source, which reads from Neo4j; sluice runs its sink, "
                        + CONNECTOR_CLASS
                : "not the Neo4j sink connector; sluice runs " + CONNECTOR_CLASS + " configurations only";
        if (why != null) {
            s.refuse("connector.class", (cls == null ? "" : cls + ": ") + why);
            s.throwRefusals(what);
        }
    }

    /**
     * The key's or value's format, from {@code key.converter} or {@code value.converter} and its settings; an
     * {@code AvroConverter}'s registry URL goes into {@code registries} by its setting's name.
     */
    private static Format format(ConnectorSettings s, String which, Map<String, String> registries) {
        String setting = which + ".converter";
        String cls = s.optional(setting);
        Map<String, String> settings = s.prefixed(setting + ".");
        if (cls == null) {
            s.note(setting, "not set, so the Connect worker's converter applies; sluice assumes Kafka Connect's"
                    + " JsonConverter" + (settings.containsKey("schemas.enable") ? " with the file's " + setting
                    + ".schemas.enable" : " with schemas.enable=true (json-schema), the worker's usual setting")
                    + ": set " + setting + " in the file if your worker's is another");
            cls = JSON_CONVERTER;
        }
        return switch (cls) {
            case JSON_CONVERTER -> jsonFormat(s, setting, settings);
            case STRING_CONVERTER -> stringFormat(s, setting, settings);
            case BYTES_CONVERTER -> bytesFormat(s, setting, settings);
            case AVRO_CONVERTER -> avroFormat(s, setting, settings, registries);
            default -> {
                s.refuse(setting, cls + ": " + (needsRegistry(cls)
                        ? "sluice reads a schema registry's Avro only (" + AVRO_CONVERTER + "); produce Avro, or JSON"
                                + " (with or without schemas), strings or bytes"
                        : "sluice reads JsonConverter, StringConverter, ByteArrayConverter and AvroConverter formats"
                                + " only")
                        + (settings.isEmpty() ? "" : " (nor its settings " + settings.keySet() + ")"));
                yield Format.JSON;
            }
        };
    }

    private static boolean needsRegistry(String converter) {
        String c = converter.toLowerCase(Locale.ROOT);
        return c.contains("avro") || c.contains("protobuf") || c.contains("jsonschema") || c.contains("registry")
                || c.startsWith("io.confluent.") || c.startsWith("io.apicurio.");
    }

    private static Format jsonFormat(ConnectorSettings s, String setting, Map<String, String> settings) {
        boolean schemas = true; // JsonConverterConfig's default
        for (Map.Entry<String, String> e : settings.entrySet()) {
            String key = setting + "." + e.getKey();
            switch (e.getKey()) {
                case "schemas.enable" -> {
                    if (e.getValue().equalsIgnoreCase("true") || e.getValue().equalsIgnoreCase("false")) {
                        schemas = Boolean.parseBoolean(e.getValue());
                    } else {
                        s.refuse(key, "'" + e.getValue() + "' is not a boolean");
                    }
                }
                case "schemas.cache.size" -> s.note(key, "accepted; sluice keeps no converter schema cache");
                case "decimal.format" -> s.note(key, "accepted; it says how JsonConverter writes decimals, and reading"
                        + " takes both forms");
                case "replace.null.with.default" -> {
                    if (!e.getValue().equalsIgnoreCase("true")) {
                        s.refuse(key, "sluice's json-schema reading has no such switch");
                    }
                }
                default -> s.refuse(key, "not a JsonConverter setting sluice knows");
            }
        }
        return schemas ? Format.JSON_SCHEMA : Format.JSON;
    }

    private static Format stringFormat(ConnectorSettings s, String setting, Map<String, String> settings) {
        settings.forEach((k, v) -> {
            if (!k.equals("converter.encoding")) {
                s.refuse(setting + "." + k, "not a StringConverter setting sluice knows");
            } else if (!v.equalsIgnoreCase("UTF-8") && !v.equalsIgnoreCase("UTF8")) {
                s.refuse(setting + "." + k, "'" + v + "': sluice reads strings as UTF-8 only");
            }
        });
        return Format.STRING; // the same reading as the connector's: a string that is JSON is that value
    }

    /**
     * Confluent's AvroConverter: the avro format, its {@code schema.registry.url} the registry (the first of a
     * list). What only its serializing side reads is accepted with a note; authentication and TLS settings for the
     * registry are refused, sluice sends none.
     */
    private static Format avroFormat(ConnectorSettings s, String setting, Map<String, String> settings,
            Map<String, String> registries) {
        for (Map.Entry<String, String> e : settings.entrySet()) {
            String key = setting + "." + e.getKey();
            String k = e.getKey();
            switch (k) {
                case "schema.registry.url" -> {
                    List<String> urls = List.of(e.getValue().split("\\s*,\\s*"));
                    if (urls.size() > 1) {
                        s.note(key, "a list: sluice reads the first, " + urls.getFirst() + ", and fails over to no"
                                + " other");
                    }
                    registries.put(key, urls.getFirst());
                }
                case "schemas.cache.config" -> s.note(key, "accepted; sluice keeps the last "
                        + AvroReader.MAX_SCHEMAS + " schemas it read, by id");
                case "auto.register.schemas", "use.latest.version", "latest.compatibility.strict",
                        "normalize.schemas", "key.subject.name.strategy", "value.subject.name.strategy" ->
                        s.note(key, "accepted, not used: a serializer's setting; reading takes the schema id each"
                                + " record carries");
                case "connect.meta.data", "enhanced.avro.schema.support" -> s.note(key, "accepted; it shapes"
                        + " Connect's schema, not the values sluice reads");
                default -> s.refuse(key, k.startsWith("basic.auth.") || k.startsWith("bearer.auth.")
                        || k.startsWith("schema.registry.ssl.") || k.startsWith("schema.registry.basic.auth.")
                        ? "sluice reads the schema registry without authentication or TLS client settings"
                                + " (https with the JVM's trusted CAs works)"
                        : "not an AvroConverter setting sluice knows");
            }
        }
        if (!settings.containsKey("schema.registry.url")) {
            s.refuse(setting, AVRO_CONVERTER + " needs " + setting + ".schema.registry.url");
        }
        s.note(setting, "AvroConverter: the avro format; a union of several types (not just null and one) is the"
                + " value of its branch, where Connect gives the connector a struct with a field per branch");
        return Format.AVRO;
    }

    /** The one schema registry the converters name (null: none): key's and value's must be the same. */
    private static Sources.SchemaRegistry registry(ConnectorSettings s, Map<String, String> registries) {
        if (registries.isEmpty()) {
            return null;
        }
        if (registries.values().stream().distinct().count() > 1) {
            registries.keySet().forEach(k -> s.refuse(k, "the key's and the value's converters name different"
                    + " schema registries " + registries.values() + "; sluice reads one"));
            return null;
        }
        try {
            return new Sources.SchemaRegistry(registries.values().iterator().next());
        } catch (IllegalArgumentException e) {
            registries.keySet().forEach(k -> s.refuse(k, e.getMessage()));
            return null;
        }
    }

    private static Format bytesFormat(ConnectorSettings s, String setting, Map<String, String> settings) {
        settings.keySet().forEach(k -> s.refuse(setting + "." + k, "ByteArrayConverter has no settings"));
        s.note(setting, "ByteArrayConverter: the bytes format, the bytes as they are; the connector also parses bytes"
                + " that are JSON as that JSON (SinkMessage.fromConnectValue), sluice does not");
        return Format.BYTES;
    }

    /**
     * The topics, each with its one strategy, as the connector assigns them (SinkStrategyHandler.createForTopic):
     * {@code neo4j.cypher.topic.<t>}, {@code neo4j.pattern.topic.<t>} or a place in {@code neo4j.cud.topics}.
     */
    private static List<Topic> topics(ConnectorSettings s, Format key, Format value) {
        List<String> names = s.list("topics");
        String regex = s.optional("topics.regex");
        checkSubscription(s, names, regex);
        Map<String, String> cypher = s.prefixed(CYPHER_TOPIC);
        Map<String, String> pattern = s.prefixed(PATTERN_TOPIC);
        List<String> cud = s.list(CUD_TOPICS);
        List<String> cdcSchema = s.list(CDC.get(0));
        List<String> cdcSourceId = s.list(CDC.get(1));
        Binding bind = binding(s);
        checkPatternBindings(s);
        boolean mergeNodes = s.connectorBoolean("neo4j.pattern.merge-node-properties", false);
        boolean mergeRelationships = s.connectorBoolean("neo4j.pattern.merge-relationship-properties", false);
        String deadLetters = s.optional(DLQ_TOPIC);
        List<Topic> topics = new ArrayList<>();
        for (String t : names) {
            List<String> by = new ArrayList<>();
            if (cypher.containsKey(t)) {
                by.add(CYPHER_TOPIC + t);
            }
            if (pattern.containsKey(t)) {
                by.add(PATTERN_TOPIC + t);
            }
            if (cud.contains(t)) {
                by.add(CUD_TOPICS);
            }
            if (cdcSchema.contains(t)) {
                by.add(CDC.get(0));
            }
            if (cdcSourceId.contains(t)) {
                by.add(CDC.get(1));
            }
            if (t.equals(deadLetters)) {
                s.refuse("topics", "the DLQ topic '" + t + "' is among the topics (Kafka Connect refuses it too)");
            }
            if (by.isEmpty()) {
                s.refuse("topics", "topic '" + t + "' is not assigned a sink strategy (the connector refuses it"
                        + " too): give it one of " + CYPHER_TOPIC + t + ", " + PATTERN_TOPIC + t + ", " + CUD_TOPICS);
            } else if (by.size() > 1) {
                s.refuse("topics", "topic '" + t + "' has multiple strategies defined, " + by
                        + " (the connector refuses it too)");
            } else if (!CDC.contains(by.get(0))) {
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
            s.refuse(CDC.get(0), why);
        }
        if (!cdcSourceId.isEmpty()) {
            s.refuse(CDC.get(1), why);
        }
        for (String setting : CDC.subList(2, 4)) {
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
        cypher.stream().filter(t -> !names.contains(t)).forEach(t -> s.refuse(CYPHER_TOPIC + t, "topic '" + t + "'"
                + why));
        pattern.stream().filter(t -> !names.contains(t)).forEach(t -> s.refuse(PATTERN_TOPIC + t, "topic '" + t
                + "'" + why));
        cud.stream().filter(t -> !names.contains(t)).forEach(t -> s.refuse(CUD_TOPICS, "topic '" + t + "'" + why));
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

    private record Errors(OnError onError, DeadLetter deadLetter) {}

    /**
     * What a failing record does. Connect reports a record the connector fails alone (Neo4jSinkTask re-runs each
     * message of a failed batch) only when it has an errant record reporter, that is with a DLQ topic or
     * {@code errors.log.enable}; without one the task fails whatever {@code errors.tolerance} says.
     */
    private static Errors errors(ConnectorSettings s) {
        String tolerance = s.oneOf("errors.tolerance", "none", List.of("none", "all"));
        boolean log = s.connectBoolean("errors.log.enable", false);
        if (s.connectBoolean("errors.log.include.messages", false)) {
            s.note("errors.log.include.messages", "accepted; sluice's logs and dead letters say which record failed"
                    + " and why, and do not copy records into the log");
        }
        String topic = s.optional(DLQ_TOPIC);
        boolean headers = s.connectBoolean("errors.deadletterqueue.context.headers.enable", false);
        if (s.whole("errors.deadletterqueue.topic.replication.factor", -1)) {
            s.note("errors.deadletterqueue.topic.replication.factor", "accepted, not used: sluice creates no"
                    + " dead-letter topic with a replication factor of its own; create it beforehand, or the"
                    + " broker's defaults apply");
        }
        DeadLetter deadLetter = new DeadLetter(topic, DeadLetter.NONE.maxPerMinute(), headers);
        OnError onError = onError(s, tolerance, log, topic);
        if (onError == OnError.DEAD_LETTER) {
            s.note(DLQ_TOPIC, "dead letters past " + deadLetter.maxPerMinute() + " a minute in one partition pause it"
                    + " (sources.kafka.dead_letter.max_per_minute): a flood of failures is more likely an outage or a"
                    + " bad mapping than bad data; Kafka Connect has no such bound");
        }
        return new Errors(onError, deadLetter);
    }

    private static OnError onError(ConnectorSettings s, String tolerance, boolean log, String topic) {
        if (tolerance.equals("none")) {
            if (topic != null) {
                s.note("errors.tolerance", "none with a DLQ topic: the connector copies the failing record to the DLQ"
                        + " and then its task fails; sluice stops the partition at that record (on_error: stop) and"
                        + " writes no dead letter");
            }
            return OnError.STOP;
        }
        String transients = "; sluice retries transient errors (Neo4j unavailable, deadlocks) without limit and"
                + " never counts them as a record's failure, where the connector fails each record of a batch once"
                + " neo4j.max-retry-time has passed";
        if (topic != null) {
            s.note("errors.tolerance", "all with a DLQ topic: on_error dead_letter, for records that fail alone"
                    + transients);
            return OnError.DEAD_LETTER;
        }
        if (log) {
            s.note("errors.tolerance", "all with errors.log.enable and no DLQ topic: on_error skip (logged and"
                    + " counted), for records that fail alone" + transients);
            return OnError.SKIP;
        }
        s.note("errors.tolerance", "all, but with neither a DLQ topic nor errors.log.enable Kafka Connect gives the"
                + " connector no errant record reporter, so a record Neo4j refuses fails the task (only records the"
                + " converter cannot read are skipped): sluice stops the partition at a failing record"
                + " (on_error: stop). Set errors.log.enable=true to skip failing records instead");
        return OnError.STOP;
    }

    private record Client(String bootstrap, String group, String fromGroup, Map<String, String> properties,
            Start start) {}

    /**
     * The consumer: a standalone worker's {@code bootstrap.servers} and {@code consumer.*}, under the connector's
     * {@code consumer.override.*} (Kafka Connect's order). The connector's consumer group, {@code connect-<name>}
     * unless overridden, is sluice's group and where a partition with no position in the graph starts from.
     */
    private static Client client(ConnectorSettings s) {
        Map<String, String> p = new TreeMap<>(s.prefixed("consumer.", "consumer.override."));
        p.putAll(s.prefixed("consumer.override."));
        String bootstrap = p.remove("bootstrap.servers");
        if (bootstrap == null) {
            bootstrap = s.optional("bootstrap.servers");
        }
        if (bootstrap == null) {
            s.note("bootstrap.servers", "none in the file (they are the Connect worker's): give them with --kafka");
        }
        String group = p.remove("group.id");
        if (group == null && s.name() != null) {
            group = "connect-" + s.name();
        }
        String fromGroup = group;
        if (group == null) {
            group = "sluice-sources";
            s.note("name", "none in the file, so the connector's consumer group (connect-<name>) is unknown: sluice"
                    + " uses the group sluice-sources, and a partition with no position in the graph starts at the"
                    + " earliest record, not where the connector stopped; give the name to resume there");
        }
        Start start = start(s, p.remove("auto.offset.reset"));
        ownedConsumerSettings(s, p);
        sharedClientSettings(s, p, bootstrap);
        return new Client(bootstrap, group, fromGroup, p, start);
    }

    /** Connect's sink consumers start at the earliest record where their group has no offset. */
    private static Start start(ConnectorSettings s, String reset) {
        if (reset == null || reset.equals("earliest")) {
            return Start.EARLIEST;
        }
        if (reset.equals("latest")) {
            return Start.LATEST;
        }
        s.refuse("consumer.override.auto.offset.reset", "'" + reset + "': sluice starts a partition with no position"
                + " at the earliest or the latest record");
        return Start.EARLIEST;
    }

    /** Consumer settings sluice sets itself: how it commits and how it reads bytes. */
    private static void ownedConsumerSettings(ConnectorSettings s, Map<String, String> p) {
        String commit = p.remove("enable.auto.commit");
        if (commit != null && !commit.equalsIgnoreCase("false")) {
            s.refuse("consumer.override.enable.auto.commit", "sluice commits positions itself, as Connect does");
        }
        for (String k : List.of("key.deserializer", "value.deserializer")) {
            if (p.remove(k) != null) {
                s.refuse("consumer.override." + k, "the converters say how records are read; sluice reads bytes");
            }
        }
    }

    /**
     * The dead-letter producer's and admin client's overrides: sluice gives its Kafka clients one set of
     * properties, so an override is accepted when the consumer has the same.
     */
    private static void sharedClientSettings(ConnectorSettings s, Map<String, String> consumer, String bootstrap) {
        for (String kind : List.of("producer.override.", "admin.override.")) {
            s.prefixed(kind).forEach((k, v) -> {
                String same = k.equals("bootstrap.servers") ? bootstrap : consumer.get(k);
                if (!v.equals(same)) {
                    s.refuse(kind + k, "sluice gives all its Kafka clients (consumers, the dead-letter producer) the"
                            + " same properties: set it to the consumer's value (consumer.override." + k + ") or"
                            + " remove it");
                }
            });
        }
    }

    /** {@code tasks.max}: so many consumers, as so many tasks (Connect's default 1, not sluice's 2). */
    private static int consumers(ConnectorSettings s) {
        int tasks = s.integer("tasks.max", 1, 1);
        if (tasks > 1) {
            s.note("tasks.max", "sources.kafka.consumers: so many consumers in this sluice, each a member of the"
                    + " group, as the connector's tasks are");
        }
        return tasks;
    }

    private static String eosOffsetLabel(ConnectorSettings s) {
        String label = s.optional("neo4j.eos-offset-label");
        if (label != null && !label.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            s.refuse("neo4j.eos-offset-label", "'" + label + "' is not a label name sluice takes ([A-Za-z_][A-Za-z0-9_]*)");
            return null;
        }
        return label;
    }

    /** The Neo4j connection: {@code neo4j.uri}, {@code neo4j.database}, authentication and TLS. */
    private static Neo4jSink neo4j(ConnectorSettings s) {
        String uri = uri(s);
        String database = s.optional("neo4j.database");
        if (database == null) {
            s.note("neo4j.database", "not set: the connector writes to the server's default database; sluice names"
                    + " one, neo4j.database in its config or --database (default neo4j)");
        }
        String[] credentials = credentials(s);
        uri = tls(s, uri);
        connectionSettings(s);
        return new Neo4jSink(uri, credentials[0], credentials[1], database);
    }

    private static String uri(ConnectorSettings s) {
        List<String> uris = s.list("neo4j.uri");
        if (uris.isEmpty()) {
            s.refuse("neo4j.uri", "missing: the connector requires it");
            return null;
        }
        boolean valid = true;
        for (String u : uris) {
            try {
                URI parsed = new URI(u);
                if (!SCHEMES.contains(parsed.getScheme()) || parsed.getHost() == null) {
                    s.refuse("neo4j.uri", "'" + u + "': a URI such as neo4j://host:7687 is needed, its scheme one of "
                            + SCHEMES);
                    valid = false;
                } else if (parsed.getUserInfo() != null) {
                    s.refuse("neo4j.uri", "'" + u + "': credentials belong in neo4j.authentication.basic.*, not in"
                            + " the URI");
                    valid = false;
                }
            } catch (URISyntaxException e) {
                s.refuse("neo4j.uri", "'" + u + "' is not a URI: " + e.getMessage());
                valid = false;
            }
        }
        if (uris.size() > 1) {
            s.note("neo4j.uri", "several URIs: sluice connects to the first, " + uris.get(0) + "; the connector gives"
                    + " the driver all of them as the addresses the first resolves to (its first routers), sluice"
                    + " only that one");
        }
        return valid ? uris.get(0) : null;
    }

    /** The Basic user and password, or none; the other authentication types are refused. */
    private static String[] credentials(ConnectorSettings s) {
        String type = s.oneOf("neo4j.authentication.type", "BASIC",
                List.of("NONE", "BASIC", "KERBEROS", "BEARER", "CUSTOM"));
        String user = s.optional("neo4j.authentication.basic.username");
        String password = s.optional("neo4j.authentication.basic.password");
        String realm = s.optional("neo4j.authentication.basic.realm");
        for (String other : List.of("kerberos.ticket", "bearer.token", "custom.scheme", "custom.principal",
                "custom.credentials", "custom.realm")) {
            if (s.optional("neo4j.authentication." + other) != null) {
                s.refuse("neo4j.authentication." + other, "sluice's Bolt sink authenticates with Basic or none only");
            }
        }
        switch (type) {
            case "NONE" -> {
                if (user != null || password != null || realm != null) {
                    s.note("neo4j.authentication.basic.*", "not used: neo4j.authentication.type is NONE, as in the"
                            + " connector");
                }
                return new String[] {null, null};
            }
            case "BASIC" -> {
                if (user == null) {
                    s.refuse("neo4j.authentication.basic.username", "missing: Basic authentication needs it (the"
                            + " connector refuses it too)");
                }
                if (password == null) {
                    s.refuse("neo4j.authentication.basic.password", "missing: Basic authentication needs it (the"
                            + " connector refuses it too)");
                }
                if (realm != null) {
                    s.refuse("neo4j.authentication.basic.realm", "sluice's Bolt sink sends Basic credentials without"
                            + " a realm");
                }
                return new String[] {user, password};
            }
            default -> {
                s.refuse("neo4j.authentication.type", type + ": sluice's Bolt sink authenticates with BASIC or NONE");
                return new String[] {null, null};
            }
        }
    }

    /**
     * TLS as the connector sets it up: with a {@code +s} or {@code +ssc} URI the scheme decides and
     * {@code neo4j.security.*} is not read; otherwise {@code neo4j.security.encrypted} turns TLS on, which sluice's
     * Bolt sink spells as the scheme: {@code +s} (system CAs, host name checked) or {@code +ssc} (any certificate).
     */
    private static String tls(ConnectorSettings s, String uri) {
        boolean encrypted = s.connectorBoolean("neo4j.security.encrypted", false);
        String trust = s.oneOf("neo4j.security.trust-strategy", "TRUST_SYSTEM_CA_SIGNED_CERTIFICATES",
                List.of("TRUST_ALL_CERTIFICATES", "TRUST_CUSTOM_CA_SIGNED_CERTIFICATES",
                        "TRUST_SYSTEM_CA_SIGNED_CERTIFICATES"));
        boolean hostnames = s.connectorBoolean("neo4j.security.hostname-verification-enabled", true);
        List<String> certFiles = s.list("neo4j.security.cert-files");
        boolean set = s.anyUnder("neo4j.security.");
        if (uri == null) {
            return null;
        }
        String scheme = uri.substring(0, uri.indexOf(':'));
        String rest = uri.substring(uri.indexOf(':'));
        if (scheme.endsWith("+s") || scheme.endsWith("+ssc")) {
            if (set) {
                s.note("neo4j.security.*", "not used: the URI's scheme says how TLS is set up, as in the connector");
            }
            return uri;
        }
        if (!encrypted) {
            if (set) {
                s.note("neo4j.security.*", "plain Bolt: neo4j.security.encrypted is false, as in the connector");
            }
            return uri;
        }
        if (!certFiles.isEmpty() && !trust.equals("TRUST_CUSTOM_CA_SIGNED_CERTIFICATES")) {
            s.note("neo4j.security.cert-files", "not used: the trust strategy is " + trust + ", as in the connector");
        }
        if (trust.equals("TRUST_ALL_CERTIFICATES")) {
            s.note("neo4j.security.encrypted", "TLS trusting any certificate: the URI's scheme becomes " + scheme
                    + "+ssc");
            return scheme + "+ssc" + rest;
        }
        if (trust.equals("TRUST_CUSTOM_CA_SIGNED_CERTIFICATES")) {
            s.refuse("neo4j.security.trust-strategy", "TRUST_CUSTOM_CA_SIGNED_CERTIFICATES (" + certFiles + "):"
                    + " sluice's Bolt sink trusts the JVM's CAs (" + scheme + "+s) or any certificate (" + scheme
                    + "+ssc), not CA files of its own");
            return uri;
        }
        if (!hostnames) {
            s.refuse("neo4j.security.hostname-verification-enabled", "false: sluice's Bolt sink checks the host name"
                    + " of a CA-signed certificate (" + scheme + "+s); " + scheme + "+ssc trusts any certificate");
            return uri;
        }
        s.note("neo4j.security.encrypted", "TLS with the system's CAs: the URI's scheme becomes " + scheme + "+s");
        return scheme + "+s" + rest;
    }

    /** The driver's pool and timeout settings, checked; sluice's Bolt sink sizes and times its own. */
    private static void connectionSettings(ConnectorSettings s) {
        if (s.has("neo4j.pool.max-connection-pool-size")) {
            s.integer("neo4j.pool.max-connection-pool-size", 100, 1);
            s.note("neo4j.pool.max-connection-pool-size", "accepted, not used: sluice's Bolt sink sizes its own"
                    + " pool");
        }
        for (String d : List.of("neo4j.connection-timeout", "neo4j.pool.connection-acquisition-timeout",
                "neo4j.pool.idle-time-before-connection-test", "neo4j.pool.max-connection-lifetime")) {
            if (s.duration(d)) {
                s.note(d, "accepted, not used: sluice's Bolt sink uses the driver's defaults and a 5s connection"
                        + " timeout");
            }
        }
        if (s.duration("neo4j.max-retry-time")) {
            s.note("neo4j.max-retry-time", "accepted, not used: sluice retries transient errors (Neo4j unavailable,"
                    + " deadlocks, lock timeouts) without limit, with capped backoff (retry.*), and never gives up"
                    + " on a record for them");
        }
    }

    /** {@code neo4j.batch-size}: at most so many rows in one transaction, sluice-wide. */
    private static Integer batch(ConnectorSettings s) {
        if (!s.has("neo4j.batch-size")) {
            return null;
        }
        int size = s.integer("neo4j.batch-size", 1000, 1);
        s.note("neo4j.batch-size", "batch.max_rows " + size + ": at most so many rows (a record's operations) in one"
                + " transaction; sluice's adaptive batches stay at or under it. It bounds the HTTP and Bolt batches"
                + " too: batch is sluice-wide");
        return size;
    }

    /** Settings sluice accepts with no effect, each with its note when the file sets it. */
    private static void acceptAsNoted(ConnectorSettings s) {
        s.string("name", null); // the group's, read by ConnectorSettings
        if (s.duration("neo4j.batch-timeout")) {
            s.note("neo4j.batch-timeout", "accepted, not used: the connector defines it and never reads it");
        }
        if (s.has("neo4j.max-batched-queries")) {
            s.integer("neo4j.max-batched-queries", 50, 1);
            s.note("neo4j.max-batched-queries", "accepted, not used: sluice runs the rows of one statement next to"
                    + " each other in a batch as one UNWIND, with no bound on the distinct statements of a"
                    + " transaction");
        }
        for (String r : List.of("errors.retry.timeout", "errors.retry.delay.max.ms")) {
            if (s.whole(r, r.endsWith(".ms") ? 0 : -1)) {
                s.note(r, "accepted, not used: Connect retries with it only converters and transforms; sluice's"
                        + " reading of a record does not fail transiently");
            }
        }
        String header = s.optional("header.converter");
        if (header != null && !header.equals(HEADER_CONVERTER)) {
            s.refuse("header.converter", header + ": sluice reads headers one way, as the worker's default, "
                    + HEADER_CONVERTER + ", does");
        }
        s.oneOf("config.action.reload", "restart", List.of("none", "restart"));
        s.connectBoolean("tasks.max.enforce", true);
        for (String w : WORKER_ONLY) {
            if (s.string(w, null) != null) {
                s.note(w, "a standalone worker's setting: not used (sluice keeps its positions in the graph)");
            }
        }
    }

    /** Transforms and their predicates, which sluice does not run. */
    private static void refuseUnsupported(ConnectorSettings s) {
        for (String kind : List.of("transforms", "predicates")) {
            if (s.optional(kind) != null) {
                s.refuse(kind, "Single Message Transforms are not supported: sluice maps records with the strategy"
                        + " alone; do the transform in the Cypher statement, or upstream");
            }
            s.unread(kind + ".").forEach(k -> s.refuse(k, "Single Message Transforms are not supported"));
        }
    }

    @Override
    public String toString() {
        return "ConnectorConfig[name=" + name + ", kafka=" + kafka + ", neo4j=" + neo4j + ", maxRows=" + maxRows
                + "]";
    }
}
