package io.sluice.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.ConfigLoader;
import io.sluice.config.Neo4j;
import io.sluice.config.SluiceConfig;
import io.sluice.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.configuration.Config;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

/**
 * {@code neo4j.settings}: Neo4j's own settings reach the embedded Neo4j (and may override sluice's defaults), an
 * unknown one stops the start with Neo4j's message, and those sluice sets itself are refused when the config is read.
 */
@Timeout(120)
class Neo4jSettingsTest {
    Path dir;

    @BeforeEach
    void setUp() throws Exception {
        dir = Files.createTempDirectory("sluice-neo4j-settings-");
    }

    @AfterEach
    void cleanUp() {
        TestServer.deleteRecursively(dir);
    }

    static Config config(EmbeddedNeo4j neo4j) {
        return ((GraphDatabaseAPI) neo4j.database()).getDependencyResolver().resolveDependency(Config.class);
    }

    static EmbeddedNeo4j start(Path dir, Neo4j n) {
        return EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir, null, 16L << 20, 0, n.database(), null, null,
                n.settings()));
    }

    @Test
    void theConfigsSettingsReachNeo4jAndMayOverrideSluicesDefaults() throws Exception {
        SluiceConfig c = ConfigLoader.parse("neo4j:\n  settings:\n    dbms.memory.tracking.enable: false\n"
                + "    db.tx_log.buffer.size: 1048576\n    db.tx_log.rotation.retention_policy: 3 files\n"
                + "    dbms.cypher.min_replan_interval: 10s\n");
        try (EmbeddedNeo4j neo4j = start(dir, c.neo4j())) {
            Config config = config(neo4j);
            assertThat(config.get(GraphDatabaseSettings.memory_tracking)).isFalse();
            assertThat(config.get(GraphDatabaseSettings.logical_log_rotation_threshold)).isEqualTo(256L << 20);
            assertThat(config.get(GraphDatabaseSettings.keep_logical_logs)).isEqualTo("3 files");
            assertThat(config.get(GraphDatabaseSettings.cypher_min_replan_interval)).isEqualTo(Duration.ofSeconds(10));
            assertThat(config.get(config.getSetting("db.tx_log.buffer.size"))).isEqualTo(1L << 20);
            neo4j.database().executeTransactionally("CREATE (:Probe)");
        }
    }

    @Test
    void withoutSettingsSluicesDefaultsHold() {
        try (EmbeddedNeo4j neo4j = start(dir, Neo4j.DEFAULT)) {
            Config config = config(neo4j);
            assertThat(config.get(GraphDatabaseSettings.keep_logical_logs)).isEqualTo("1 files");
            assertThat(config.get(GraphDatabaseSettings.auth_max_failed_attempts)).isEqualTo(3);
            assertThat(config.get(GraphDatabaseSettings.memory_tracking)).isTrue();
            assertThat(config.get(GraphDatabaseSettings.cypher_min_replan_interval)).isEqualTo(Duration.ofMinutes(10));
        }
    }

    @Test
    void aSettingNeo4jDoesNotKnowStopsTheStartWithNeo4jsMessage() throws Exception {
        SluiceConfig c = ConfigLoader.parse("neo4j:\n  settings:\n    db.tx_log.no_such_thing: 1\n");
        assertThatThrownBy(() -> start(dir, c.neo4j())).hasStackTraceContaining("db.tx_log.no_such_thing");
        SluiceConfig bad = ConfigLoader.parse("neo4j:\n  settings:\n    db.tx_log.buffer.size: lots\n");
        assertThatThrownBy(() -> start(dir.resolve("again"), bad.neo4j())).hasStackTraceContaining("lots");
        // nothing held: the same directory starts cleanly afterwards
        start(dir, Neo4j.DEFAULT).close();
    }

    @Test
    void settingsSluiceSetsItselfAreRefusedWhenTheConfigIsRead() {
        for (String key : new String[] {"server.memory.pagecache.size", "dbms.security.auth_enabled",
                "server.bolt.listen_address", "dbms.ssl.policy.bolt.enabled", "db.memory.transaction.max",
                "server.directories.import", "initial.dbms.default_database"}) {
            assertThatThrownBy(() -> ConfigLoader.parse("neo4j:\n  settings:\n    " + key + ": x\n"))
                    .as(key).hasMessageContaining("neo4j.settings." + key + ": sluice sets this one itself");
        }
        assertThatThrownBy(() -> ConfigLoader.parse("neo4j:\n  settings:\n    'Db.Bad Name': 1\n"))
                .hasMessageContaining("is not a Neo4j setting name");
        assertThatThrownBy(() -> ConfigLoader.parse("neo4j:\n  settings:\n    db.tx_log.buffer.size: \"1m\\nx=y\"\n"))
                .hasMessageContaining("a value on one line is needed");
        assertThat(EmbeddedNeo4j.properties(java.util.Map.of("db.transaction.timeout", "5s")))
                .endsWith("db.transaction.timeout=5s\n");
    }
}
