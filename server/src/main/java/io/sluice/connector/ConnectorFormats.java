package io.sluice.connector;

import io.sluice.config.Sources;
import io.sluice.config.Format;
import io.sluice.topic.AvroReader;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The key and value converters ({@code key.converter}, {@code value.converter} and their settings) as sluice's
 * formats, and the one schema registry they name.
 */
final class ConnectorFormats {
    private ConnectorFormats() {}

    /**
     * The key's or value's format, from {@code key.converter} or {@code value.converter} and its settings; an
     * {@code AvroConverter}'s registry URL goes into {@code registries} by its setting's name.
     */
    static Format format(ConnectorSettings s, String which, Map<String, String> registries) {
        String setting = which + ".converter";
        String cls = s.optional(setting);
        Map<String, String> settings = s.prefixed(setting + ".");
        if (cls == null) {
            s.note(setting, "not set, so the Connect worker's converter applies; sluice assumes Kafka Connect's"
                    + " JsonConverter" + (settings.containsKey("schemas.enable") ? " with the file's " + setting
                    + ".schemas.enable" : " with schemas.enable=true (json-schema), the worker's usual setting")
                    + ": set " + setting + " in the file if your worker's is another");
            cls = ConnectorNames.JSON_CONVERTER;
        }
        return switch (cls) {
            case ConnectorNames.JSON_CONVERTER -> jsonFormat(s, setting, settings);
            case ConnectorNames.STRING_CONVERTER -> stringFormat(s, setting, settings);
            case ConnectorNames.BYTES_CONVERTER -> bytesFormat(s, setting, settings);
            case ConnectorNames.AVRO_CONVERTER -> avroFormat(s, setting, settings, registries);
            default -> {
                s.refuse(setting, cls + ": " + (needsRegistry(cls)
                        ? "sluice reads a schema registry's Avro only (" + ConnectorNames.AVRO_CONVERTER
                                + "); produce Avro, or JSON (with or without schemas), strings or bytes"
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
            s.refuse(setting, ConnectorNames.AVRO_CONVERTER + " needs " + setting + ".schema.registry.url");
        }
        s.note(setting, "AvroConverter: the avro format; a union of several types (not just null and one) is the"
                + " value of its branch, where Connect gives the connector a struct with a field per branch");
        return Format.AVRO;
    }

    /** The one schema registry the converters name (null: none): key's and value's must be the same. */
    static Sources.SchemaRegistry registry(ConnectorSettings s, Map<String, String> registries) {
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
}
