package io.sluice.config;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code neo4j}: embedded Neo4j settings. The JVM heap is set by the launcher (SLUICE_HEAP), the page cache here.
 * {@code importDir}: the only folder {@code LOAD CSV FROM 'file:///...'} may read
 * (file URLs are relative to it); null (not set) means {@code DATA/import}. {@code pluginsDir}: the folder Neo4j
 * loads procedure and function jars from (APOC, a user's own) at start; null means {@code DATA/plugins}, Neo4j's
 * own place for them under its home; procedures that need it are allowed with Neo4j's
 * {@code dbms.security.procedures.unrestricted} or {@code .allowlist} in {@code settings}. {@code settings}: more of Neo4j's own
 * settings ({@code neo4j.conf} names and values, e.g. {@code dbms.memory.tracking.enable: false}), checked
 * by Neo4j at start (an unknown name or bad value stops it with Neo4j's message); not those in {@link #OWNED}.
 */
public record Neo4j(ByteSize pagecache, ByteSize txMemoryMax, String database, String importDir,
        String pluginsDir, Map<String, String> settings) implements Section {
    /**
     * Settings sluice sets itself from its own config, flags and security: a {@code settings} entry may not
     * name them (the page cache is {@code neo4j.pagecache}, users and Bolt TLS are {@code security} and
     * {@code tls}, {@code --bolt} is the listener).
     */
    public static final List<String> OWNED = List.of("server.memory.pagecache.size",
            "db.memory.transaction.max", "initial.dbms.default_database", "server.directories.",
            "dbms.security.auth_enabled", "server.bolt.", "dbms.ssl.policy.", "server.http.", "server.https.",
            "server.default_listen_address", "server.default_advertised_address", "server.config.strict_validation");

    public static final Neo4j DEFAULT = new Neo4j(new ByteSize(512L << 20), new ByteSize(0), "neo4j", null, null,
            Map.of());

    public Neo4j {
        requireNonNull(pagecache, "neo4j.pagecache");
        requireNonNull(txMemoryMax, "neo4j.tx_memory_max");
        requireNonNull(database, "neo4j.database");
        settings = Collections.unmodifiableMap(new TreeMap<>(settings));
        for (Map.Entry<String, String> e : settings.entrySet()) {
            String key = e.getKey();
            if (key == null || !key.matches("[a-z][a-z0-9_.]*")) {
                throw new IllegalArgumentException("neo4j.settings: '" + key + "' is not a Neo4j setting name");
            }
            if (e.getValue() == null || e.getValue().indexOf('\n') >= 0 || e.getValue().indexOf('\r') >= 0) {
                throw new IllegalArgumentException("neo4j.settings." + key + ": a value on one line is needed");
            }
            for (String owned : OWNED) {
                if (owned.endsWith(".") ? key.startsWith(owned) : key.equals(owned) || key.startsWith(owned + ".")) {
                    throw new IllegalArgumentException("neo4j.settings." + key + ": sluice sets this one itself"
                            + " (neo4j.pagecache, neo4j.tx_memory_max, neo4j.database, neo4j.import_dir,"
                            + " neo4j.plugins_dir, security, tls and --bolt say what it is)");
                }
            }
        }
    }

    @JsonCreator
    static Neo4j fromYaml(@JsonProperty("pagecache") ByteSize pagecache,
            @JsonProperty("tx_memory_max") ByteSize txMemoryMax, @JsonProperty("database") String database,
            @JsonProperty("import_dir") String importDir, @JsonProperty("plugins_dir") String pluginsDir,
            @JsonProperty("settings") Map<String, String> settings) {
        return new Neo4j(
                requireNonNullElse(pagecache, DEFAULT.pagecache),
                requireNonNullElse(txMemoryMax, DEFAULT.txMemoryMax),
                requireNonNullElse(database, DEFAULT.database),
                importDir,
                pluginsDir,
                requireNonNullElse(settings, DEFAULT.settings));
    }

    /** The same with {@code more} settings on top of these (a key in both: {@code more}'s value). */
    public Neo4j withSettings(Map<String, String> more) {
        Map<String, String> all = new TreeMap<>(settings);
        all.putAll(more);
        return new Neo4j(pagecache, txMemoryMax, database, importDir, pluginsDir, all);
    }

    /** The same for another database. */
    public Neo4j withDatabase(String database) {
        return new Neo4j(pagecache, txMemoryMax, database, importDir, pluginsDir, settings);
    }

    /** The same with another import folder. */
    public Neo4j withImportDir(String importDir) {
        return new Neo4j(pagecache, txMemoryMax, database, importDir, pluginsDir, settings);
    }
}
