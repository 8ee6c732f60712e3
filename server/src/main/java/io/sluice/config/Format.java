package io.sluice.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.util.Locale;

/** How a record's key or value bytes are read. */
public enum Format {
    /** JSON without a schema (Kafka Connect's JsonConverter with {@code schemas.enable=false}). */
    JSON,
    /** JSON in Kafka Connect's {@code {"schema", "payload"}} envelope ({@code schemas.enable=true}). */
    JSON_SCHEMA,
    /** UTF-8 text; a key or value that parses as JSON is that value, as the connector reads a string. */
    STRING,
    /** The bytes as they are. */
    BYTES,
    /**
     * Avro in the Confluent wire format (a zero byte, the writer's schema id, the Avro binary), the schema read
     * by its id from {@code sources.kafka.schema_registry} (Kafka Connect's {@code AvroConverter}).
     */
    AVRO;

    public String yamlName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    @JsonCreator
    public static Format of(String name) {
        for (Format f : values()) {
            if (f.yamlName().equals(name)) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown format '" + name + "'; known: json, json-schema, string, bytes,"
                + " avro" + ("protobuf".equals(name) || "json-schema-registry".equals(name) ? " (sluice reads"
                + " Avro only from a schema registry: docs/SOURCES.md)" : ""));
    }
}
