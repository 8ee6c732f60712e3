package io.sluice.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/** Reads {@link SluiceConfig} from YAML. Unknown keys are errors: a typo must not silently become a default. */
public final class ConfigLoader {
    private ConfigLoader() {}

    private static ObjectMapper mapper() {
        SimpleModule units = new SimpleModule("sluice-units");
        units.addDeserializer(Duration.class, new JsonDeserializer<>() {
            @Override
            public Duration deserialize(JsonParser p, DeserializationContext ctx) throws IOException {
                return Sizes.duration(p.getValueAsString());
            }
        });
        return new ObjectMapper(new YAMLFactory())
                .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .registerModule(units);
    }

    /** The configuration file's format this sluice reads ({@code config_version}; absent means 1). */
    public static final int CONFIG_VERSION = 1;

    public static SluiceConfig load(Path file) throws IOException {
        try {
            byte[] bytes = Files.readAllBytes(file);
            JsonNode tree = mapper().readTree(bytes);
            if (empty(tree)) {
                return SluiceConfig.defaults(); // a file of comments only: every section at its defaults
            }
            versioned(tree);
            SluiceConfig c = mapper().readValue(bytes, SluiceConfig.class); // from the bytes: errors name lines
            return c == null ? SluiceConfig.defaults() : c;
        } catch (IOException | IllegalArgumentException e) {
            String msg = rootMessage(e);
            if (msg != null && msg.contains("mapping values are not allowed")) {
                msg += "\n(hint: quote Cypher that contains ': ', e.g. cypher: \"MERGE (u:User {id: row.user})\")";
            }
            throw new IOException("bad config file " + file + ": " + msg, e);
        }
    }

    /**
     * Checks the file's {@code config_version} (1, the only one there is, when absent) before anything else: a file
     * written for a newer sluice is refused by name rather than by its first setting this one does not know.
     */
    static void versioned(JsonNode tree) {
        if (tree.isObject() && tree.has("config_version")) {
            JsonNode v = tree.get("config_version");
            if (!v.canConvertToInt() || !v.isIntegralNumber() || v.intValue() < 1) {
                throw new IllegalArgumentException("config_version must be a whole number >= 1, got " + v);
            }
            if (v.intValue() > CONFIG_VERSION) {
                throw new IllegalArgumentException("config_version " + v.intValue() + " is newer than this sluice"
                        + " reads (" + CONFIG_VERSION + "): the file was written for a newer sluice; run that version,"
                        + " or the file it replaced (docs/OPERATIONS.md, \"Rollback\")");
            }
        }
    }

    private static boolean empty(JsonNode n) {
        return n == null || n.isMissingNode() || n.isNull();
    }

    public static SluiceConfig parse(String yaml) throws IOException {
        JsonNode tree = mapper().readTree(yaml);
        if (empty(tree)) {
            return SluiceConfig.defaults();
        }
        versioned(tree);
        SluiceConfig c = mapper().readValue(yaml, SluiceConfig.class);
        return c == null ? SluiceConfig.defaults() : c;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage();
    }
}
