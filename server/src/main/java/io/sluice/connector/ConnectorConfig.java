package io.sluice.connector;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.config.Sources.Cypher;
import io.sluice.config.Sources.DeadLetter;
import io.sluice.config.Format;
import io.sluice.config.Sources.KafkaSource;
import io.sluice.config.Sources.OnError;
import io.sluice.config.Sources.Topic;
import io.sluice.config.Sources;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
    public static final String CONNECTOR_CLASS = ConnectorNames.CONNECTOR_CLASS;

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
        Format key = ConnectorFormats.format(s, "key", registries);
        Format value = ConnectorFormats.format(s, "value", registries);
        Sources.SchemaRegistry registry = ConnectorFormats.registry(s, registries);
        List<Topic> topics = ConnectorTopics.topics(s, key, value);
        Errors errors = errors(s);
        ConnectorClient.Client client = ConnectorClient.client(s);
        int consumers = ConnectorClient.consumers(s);
        String eos = ConnectorClient.eosOffsetLabel(s);
        Neo4jSink neo4j = ConnectorNeo4j.neo4j(s);
        Integer maxRows = batch(s);
        acceptAsNoted(s);
        refuseUnsupported(s);
        s.refuseUnread();
        s.throwRefusals(what);
        KafkaSource kafka;
        try {
            kafka = new KafkaSource(client.bootstrap(), client.group(), client.properties(), consumers,
                    client.start(), client.fromGroup(), eos, errors.onError, errors.deadLetter, topics, registry);
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
        return ConnectorYaml.of(name, kafka, neo4j, maxRows(), notes);
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
                : cls.equals(ConnectorNames.LEGACY_CLASS) ? "the neo4j-streams sink (4.x), whose settings"
                        + " (neo4j.topic.cypher.*, neo4j.server.uri, ...) and strategies differ from the 5.x connector's; sluice reads the"
                        + " settings of " + CONNECTOR_CLASS + " only: migrate the file to it first (Neo4j's migration"
                        + " guide maps each setting)"
                : cls.equals(ConnectorNames.SOURCE_CLASS) ? "the connector's source, which reads from Neo4j; sluice"
                        + " runs its sink, " + CONNECTOR_CLASS
                : "not the Neo4j sink connector; sluice runs " + CONNECTOR_CLASS + " configurations only";
        if (why != null) {
            s.refuse("connector.class", (cls == null ? "" : cls + ": ") + why);
            s.throwRefusals(what);
        }
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
        String topic = s.optional(ConnectorNames.DLQ_TOPIC);
        boolean headers = s.connectBoolean("errors.deadletterqueue.context.headers.enable", false);
        if (s.whole("errors.deadletterqueue.topic.replication.factor", -1)) {
            s.note("errors.deadletterqueue.topic.replication.factor", "accepted, not used: sluice creates no"
                    + " dead-letter topic with a replication factor of its own; create it beforehand, or the"
                    + " broker's defaults apply");
        }
        DeadLetter deadLetter = new DeadLetter(topic, DeadLetter.NONE.maxPerMinute(), headers);
        OnError onError = onError(s, tolerance, log, topic);
        if (onError == OnError.DEAD_LETTER) {
            s.note(ConnectorNames.DLQ_TOPIC, "dead letters past " + deadLetter.maxPerMinute()
                    + " a minute in one partition pause it"
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
        if (header != null && !header.equals(ConnectorNames.HEADER_CONVERTER)) {
            s.refuse("header.converter", header + ": sluice reads headers one way, as the worker's default, "
                    + ConnectorNames.HEADER_CONVERTER + ", does");
        }
        s.oneOf("config.action.reload", "restart", List.of("none", "restart"));
        s.connectBoolean("tasks.max.enforce", true);
        for (String w : ConnectorNames.WORKER_ONLY) {
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
