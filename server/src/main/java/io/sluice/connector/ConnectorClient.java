package io.sluice.connector;

import io.sluice.config.Sources.Start;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The consumer the connector runs as: its bootstrap servers, group, properties and start
 * ({@code consumer.override.*}, a standalone worker's {@code consumer.*}), {@code tasks.max} and the EOS label.
 */
final class ConnectorClient {
    private ConnectorClient() {}

    record Client(String bootstrap, String group, String fromGroup, Map<String, String> properties,
            Start start) {}

    /**
     * The consumer: a standalone worker's {@code bootstrap.servers} and {@code consumer.*}, under the connector's
     * {@code consumer.override.*} (Kafka Connect's order). The connector's consumer group, {@code connect-<name>}
     * unless overridden, is sluice's group and where a partition with no position in the graph starts from.
     */
    static Client client(ConnectorSettings s) {
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
    static int consumers(ConnectorSettings s) {
        int tasks = s.integer("tasks.max", 1, 1);
        if (tasks > 1) {
            s.note("tasks.max", "sources.kafka.consumers: so many consumers in this sluice, each a member of the"
                    + " group, as the connector's tasks are");
        }
        return tasks;
    }

    static String eosOffsetLabel(ConnectorSettings s) {
        String label = s.optional("neo4j.eos-offset-label");
        if (label != null && !label.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            s.refuse("neo4j.eos-offset-label", "'" + label + "' is not a label name sluice takes ([A-Za-z_][A-Za-z0-9_]*)");
            return null;
        }
        return label;
    }
}
