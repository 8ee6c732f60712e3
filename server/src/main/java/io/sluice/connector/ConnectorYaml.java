package io.sluice.connector;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.Sources.Binding;
import io.sluice.config.Sources.Cypher;
import io.sluice.config.Sources.DeadLetter;
import io.sluice.config.Sources.KafkaSource;
import io.sluice.config.Sources.Topic;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * A connector's configuration ({@code ConnectorConfig}) as sluice YAML. Written by hand rather than by a YAML mapper so that it can carry
 * comments (the Neo4j connection for the command line, the notes) and list every key, defaults included, in the
 * order docs write them. Every string is a YAML double-quoted scalar written as a JSON string, which YAML reads
 * back as it was (Cypher with ': ', quotes or line breaks included).
 */
final class ConnectorYaml {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int WIDTH = 118;

    private final StringBuilder out = new StringBuilder();

    private ConnectorYaml() {}

    /** The connector {@code name}'s configuration as sluice YAML. */
    static String of(String name, KafkaSource kafka, Neo4jSink neo4j, OptionalInt maxRows, List<String> notes) {
        ConnectorYaml y = new ConnectorYaml();
        y.header(name, neo4j, notes);
        maxRows.ifPresent(rows -> y.line(0, "batch:").line(1, "max_rows: " + rows));
        if (neo4j.database() != null) {
            y.line(0, "neo4j:").line(1, "database: " + quote(neo4j.database()));
        }
        y.line(0, "sources:").line(1, "kafka:");
        y.kafka(kafka);
        return y.out.toString();
    }

    private void header(String name, Neo4jSink n, List<String> notes) {
        comment("sluice configuration from the Neo4j Kafka Connector sink configuration"
                + (name == null ? "" : " '" + name + "'") + " (" + ConnectorNames.CONNECTOR_CLASS
                + "); docs/reference/connector-config.md says what becomes of each setting.");
        comment("");
        if (n.uri() != null) {
            comment("Neo4j, for the command line (sluice's config file does not hold the server's address):");
            comment("  --neo4j " + n.uri() + (n.user() == null ? "" : " --user " + n.user()));
            if (n.password() != null) {
                comment("  and the password (neo4j.authentication.basic.password, never written here) as --password"
                        + " or SLUICE_NEO4J_PASSWORD");
            }
        }
        if (!notes.isEmpty()) {
            comment("");
            comment("Settings accepted with another meaning than the connector's, or none:");
            notes.forEach(note -> comment("- " + note));
        }
    }

    private void kafka(KafkaSource k) {
        if (k.bootstrap() != null) {
            line(2, "bootstrap: " + quote(k.bootstrap()));
        }
        line(2, "group: " + quote(k.group()));
        if (k.fromGroup() != null) {
            line(2, "from_group: " + quote(k.fromGroup()));
        }
        map(2, "properties", k.properties());
        line(2, "consumers: " + k.consumers());
        line(2, "start: " + k.start().yamlName());
        if (k.eosOffsetLabel() != null) {
            line(2, "eos_offset_label: " + quote(k.eosOffsetLabel()));
        }
        line(2, "on_error: " + k.onError().yamlName());
        deadLetter(k.deadLetter());
        if (k.schemaRegistry() != null) {
            line(2, "schema_registry:");
            line(3, "url: " + quote(k.schemaRegistry().url()));
        }
        line(2, "topics:");
        k.topics().forEach(this::topic);
    }

    private void deadLetter(DeadLetter d) {
        line(2, "dead_letter:");
        if (d.topic() != null) {
            line(3, "topic: " + quote(d.topic()));
        }
        line(3, "max_per_minute: " + d.maxPerMinute());
        line(3, "context_headers: " + d.contextHeaders());
    }

    private void topic(Topic t) {
        line(3, "- " + (t.topic() != null ? "topic: " + quote(t.topic()) : "regex: " + quote(t.regex())));
        line(4, "key_format: " + t.keyFormat().yamlName());
        line(4, "value_format: " + t.valueFormat().yamlName());
        if (t.cypher() != null) {
            cypher(t.cypher());
        }
        if (t.pattern() != null) {
            line(4, "pattern: " + quote(t.pattern().pattern()));
            line(4, "merge_node_properties: " + t.pattern().mergeNodeProperties());
            line(4, "merge_relationship_properties: " + t.pattern().mergeRelationshipProperties());
        }
        if (t.cud()) {
            line(4, "cud: true");
        }
    }

    /** A connector's Cypher strategy: its statements and its binding; no route, no lock order. */
    private void cypher(Cypher c) {
        List<String> statements = c.statements();
        if (statements.size() == 1) {
            line(4, "cypher: " + quote(statements.get(0)));
        } else {
            line(4, "cypher:");
            statements.forEach(s -> line(5, "- " + quote(s)));
        }
        Binding b = c.bind();
        if (!b.equals(Binding.DEFAULT)) {
            line(4, "bind:");
            line(5, "timestamp: " + quote(b.timestamp()));
            line(5, "header: " + quote(b.header()));
            line(5, "key: " + quote(b.key()));
            line(5, "value: " + quote(b.value()));
            line(5, "event: " + b.event());
        }
        if (!c.lockOrder().isEmpty()) {
            line(4, "lock_order:");
            c.lockOrder().forEach(p -> line(5, "- " + quote(p)));
        }
    }

    private void map(int depth, String key, Map<String, String> m) {
        if (!m.isEmpty()) {
            line(depth, key + ":");
            new TreeMap<>(m).forEach((k, v) -> line(depth + 1, quote(k) + ": " + quote(v)));
        }
    }

    private ConnectorYaml line(int depth, String text) {
        out.append("  ".repeat(depth)).append(text).append('\n');
        return this;
    }

    /** A comment, wrapped; a continuation indented under its first word. */
    private void comment(String text) {
        String rest = text.replaceAll("[\\r\\n]+", " ");
        String indent = rest.startsWith("- ") ? "  " : rest.startsWith("  ") ? "    " : "";
        boolean first = true;
        do {
            String prefix = "# " + (first ? "" : indent);
            int room = WIDTH - prefix.length();
            int cut = rest.length() <= room ? rest.length() : rest.lastIndexOf(' ', room);
            if (cut <= 0) {
                cut = Math.min(rest.length(), room);
            }
            out.append((prefix + rest.substring(0, cut)).stripTrailing()).append('\n');
            rest = rest.substring(cut).stripLeading();
            first = false;
        } while (!rest.isEmpty());
    }

    /** A YAML double-quoted scalar: the JSON string, which YAML reads back as it was. */
    static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
