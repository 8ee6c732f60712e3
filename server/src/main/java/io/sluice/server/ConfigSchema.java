package io.sluice.server;

import io.sluice.config.SluiceConfig;
import io.sluice.sink.SchemaStatements;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.write.Template;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the config asks of the database before anything runs: its schema statements applied (idempotently), its
 * templates compiled and planned. For the server's start, its dry run and the rehearsal's scratch database.
 */
final class ConfigSchema {
    private static final Logger log = LoggerFactory.getLogger(ConfigSchema.class);

    private ConfigSchema() {}

    /** Compiles the config's templates; a template whose Cypher does not plan is a start-up error. */
    static Map<String, Template> templates(SluiceConfig config, Sink sink) {
        Map<String, Template> out = new LinkedHashMap<>();
        config.templates().forEach((name, tc) -> {
            Template t = Template.compile(name, tc);
            try {
                sink.classify(t.unwindCypher());
            } catch (GraphException e) {
                throw new IllegalArgumentException("template '" + name + "' does not compile: " + e.getMessage(), e);
            }
            out.put(name, t);
        });
        return out;
    }

    /**
     * Runs the config's schema statements; ones that already exist are fine (start-up is idempotent). One log
     * line says what changed.
     */
    static void apply(SluiceConfig c, Sink sink, Time time) {
        if (c.schema().isEmpty()) {
            return;
        }
        long t0 = time.nanos();
        List<String> created = new ArrayList<>();
        for (String s : c.schema()) {
            try {
                if (SchemaStatements.ensure(sink, s, time)) {
                    created.add(s);
                }
            } catch (GraphException e) {
                throw new IllegalArgumentException("schema statement failed: " + s + ": " + e.getMessage(), e);
            }
        }
        try {
            sink.runImplicit("CALL db.awaitIndexes(300)", Map.of());
        } catch (GraphException e) {
            log.warn("waiting for indexes failed: {}", e.getMessage());
        }
        log.info("schema: {} statement(s) applied in {} ms, {}", c.schema().size(), (time.nanos() - t0) / 1_000_000,
                created.isEmpty() ? "nothing new" : created.size() + " new: " + String.join("; ", created));
    }
}
