package io.sluice.connector;

import java.util.List;

/** The names the connector's configuration is written in: classes, converters, settings' prefixes. */
final class ConnectorNames {
    private ConnectorNames() {}

    static final String CONNECTOR_CLASS = "org.neo4j.connectors.kafka.sink.Neo4jConnector";
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
    static final List<String> CDC = List.of("neo4j.cdc.schema.topics", "neo4j.cdc.source-id.topics",
            "neo4j.cdc.source-id.label-name", "neo4j.cdc.source-id.property-name");
    /** The connector's {@code neo4j.uri} schemes (Neo4jConfigurationDeclarations.kt), sluice's Bolt sink's too. */
    static final List<String> SCHEMES = List.of("neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc");
    /** Settings of a standalone worker's file that say nothing about this connector's work. */
    static final List<String> WORKER_ONLY = List.of("offset.storage.file.filename", "offset.flush.interval.ms",
            "plugin.path");
}
