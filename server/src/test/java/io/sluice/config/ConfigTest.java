package io.sluice.config;

import io.sluice.config.Format;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Transactions.Grouped;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The config file as README.md documents it: every key, its default, its refusals; and changing one setting. */
@Timeout(10)
class ConfigTest {
    /** Every section, every key, none at its default. */
    static final String FULL = """
            templates:
              visited:
                cypher: "MERGE (u:User {id: row.user})"
                key: [user]
                types: {user: integer}
            schema:
              - CREATE INDEX user_id IF NOT EXISTS FOR (u:User) ON (u.id)
            batch: {max_rows: 500, max_wait: 1ms, adaptive: false, min_rows: 20, target_commit: 50ms}
            apply: {appliers: 4, lock_order: false, coalesce_cypher: false}
            admission: {max_pending_rows: 1000, max_pending_bytes: 32mb, timeout: 3s, max_body_bytes: 1mb}
            neo4j:
              pagecache: 1g
              tx_memory_max: 256m
              import_dir: /srv/csv
              database: graph
              settings: {db.transaction.timeout: 30s}
            journal:
              max_lag_rows: 10
              max_lag_bytes: 1mb
              segment_bytes: 8mb
              kafka:
                bootstrap: k1:9092
                topic: writes
                partitions: 3
                group: g
                max_lag_records: 100
                send_timeout: 5s
                dead_letter_topic: dead
                properties: {security.protocol: SSL}
                producer: {linger.ms: "5"}
                consumer: {fetch.min.bytes: "1"}
            retry: {max_attempts: 3, initial_backoff: 1ms, max_backoff: 2s}
            security:
              auth: false
              metrics_open: true
              max_failed_attempts: 0
              lock_time: 1s
              credential_cache_size: 5
              credential_cache_ttl: 2s
              protected_mode: false
              access: {default: read, users: {app: templates, admin: cypher}}
            modes: {default: async, users: {ingest: direct, dash: sync}}
            transactions: {idle_timeout: 10s, classic_idle_timeout: 20s, max_open: 4}
            http: {io_threads: 3}
            bolt: {io_threads: 2, keep_alive: 5s, max_message: 8m, max_string: 1m, max_depth: 32}
            warmup: {on_start: true, write_path: 0s}
            sources:
              kafka:
                bootstrap: k1:9092
                group: apps
                properties: {security.protocol: SSL}
                consumers: 3
                start: latest
                from_group: connect-neo4j
                eos_offset_label: EosOffset
                dead_letter: {topic: apps-dlq, max_per_minute: 10, context_headers: false}
                topics:
                  - topic: people
                    key_format: string
                    value_format: json-schema
                    cypher: ["MERGE (p:Person {id: event.id})", "MERGE (c:City {name: event.city})"]
                    bind: {timestamp: ts, header: "", key: k, value: v, event: false}
                    lock_order: [__value.city]
                  - regex: "orders-.*"
                    route:
                      by: __header.op
                      cases: {upsert: "MERGE (o:Order {id: event.id})", delete: ["MATCH (o:Order {id: event.id}) DETACH DELETE o"]}
                      otherwise: "CREATE (:Unknown)"
                  - topic: knows
                    pattern: "(:Person{!id})-[:KNOWS{since}]->(:Person{!id: friend})"
                    merge_node_properties: true
                  - topic: changes
                    value_format: string
                    cud: true
            tls:
              certificate: certs/public.crt
              private_key: certs/private.key
              https: 127.0.0.1:7473
              http: false
              bolt: required
            """;

    @Test
    void readsEverySection() throws IOException {
        SluiceConfig c = ConfigLoader.parse(FULL);
        Sources.KafkaSource k = c.sources().kafka();
        assertThat(k.bootstrap()).isEqualTo("k1:9092");
        assertThat(k.consumers()).isEqualTo(3);
        assertThat(k.start()).isEqualTo(Sources.Start.LATEST);
        assertThat(k.onError()).as("a dead-letter topic: dead_letter by default").isEqualTo(Sources.OnError.DEAD_LETTER);
        assertThat(k.deadLetter()).isEqualTo(new Sources.DeadLetter("apps-dlq", 10, false));
        assertThat(k.topics()).hasSize(4);
        Sources.Topic people = k.topics().getFirst();
        assertThat(people.keyFormat()).isEqualTo(Format.STRING);
        assertThat(people.valueFormat()).isEqualTo(Format.JSON_SCHEMA);
        assertThat(people.cypher().statements()).hasSize(2);
        assertThat(people.cypher().bind()).isEqualTo(new Sources.Binding("ts", "", "k", "v", false));
        assertThat(people.cypher().lockOrder()).containsExactly("__value.city");
        assertThat(k.topics().get(1).cypher().route().cases()).containsOnlyKeys("upsert", "delete");
        assertThat(k.topics().get(1).cypher().route().otherwise()).containsExactly("CREATE (:Unknown)");
        assertThat(k.topics().get(2).pattern()).isEqualTo(new Sources.PatternStrategy(
                "(:Person{!id})-[:KNOWS{since}]->(:Person{!id: friend})", true, false));
        assertThat(k.topics().get(3).cud()).isTrue();
        assertThat(c.templates()).containsOnlyKeys("visited");
        assertThat(c.templates().get("visited").key()).containsExactly("user");
        assertThat(c.schema()).hasSize(1);
        assertThat(c.batch()).isEqualTo(new Batch(500, Duration.ofMillis(1), 20, false, Duration.ofMillis(50)));
        assertThat(c.apply()).isEqualTo(new Apply(4, false, false));
        assertThat(c.admission()).isEqualTo(new Admission(1000, new ByteSize(32L << 20), Duration.ofSeconds(3),
                new ByteSize(1L << 20)));
        assertThat(c.neo4j()).isEqualTo(new Neo4j(new ByteSize(1L << 30), new ByteSize(256L << 20), "graph",
                "/srv/csv", null, Map.of("db.transaction.timeout", "30s")));
        assertThat(c.journal()).isEqualTo(new Journal(10, new ByteSize(1L << 20), new ByteSize(8L << 20),
                new Kafka("k1:9092", "writes", 3, "g", 100, Duration.ofSeconds(5), "dead",
                        Map.of("security.protocol", "SSL"), Map.of("linger.ms", "5"), Map.of("fetch.min.bytes", "1"))));
        assertThat(c.retry()).isEqualTo(new Retry(3, Duration.ofMillis(1), Duration.ofSeconds(2)));
        assertThat(c.security()).isEqualTo(new Security(false, true, 0, Duration.ofSeconds(1), 5,
                Duration.ofSeconds(2), false,
                new AccessLevels(Access.READ, Map.of("app", Access.TEMPLATES, "admin", Access.CYPHER))));
        assertThat(c.modes()).isEqualTo(new Modes(Mode.ASYNC, Map.of("ingest", Mode.DIRECT, "dash", Mode.SYNC)));
        assertThat(c.transactions()).isEqualTo(new Transactions(Duration.ofSeconds(10), Duration.ofSeconds(20), 4));
        assertThat(c.http()).isEqualTo(new Http(3));
        assertThat(c.warmup()).isEqualTo(new Warmup(true, Duration.ZERO));
        assertThat(c.tls()).isEqualTo(new Tls("certs/public.crt", "certs/private.key", "127.0.0.1:7473", false,
                Tls.Bolt.REQUIRED));
    }

    @Test
    void usersGetTheirLevelAndModeParsedOnce() throws IOException {
        SluiceConfig c = ConfigLoader.parse(FULL);
        assertThat(c.security().access().of("app")).isEqualTo(Access.TEMPLATES);
        assertThat(c.security().access().of("someone")).isEqualTo(Access.READ);
        assertThat(c.security().access().of(null)).as("anonymous").isEqualTo(Access.READ);
        assertThat(c.modes().of("ingest")).isEqualTo(Mode.DIRECT);
        assertThat(c.modes().of("someone")).isEqualTo(Mode.ASYNC);
        assertThat(c.modes().of(null)).isEqualTo(Mode.ASYNC);
    }

    @Test
    void aFileForANewerSluiceIsRefusedByItsVersionNotItsFirstUnknownSetting() throws IOException {
        assertThat(ConfigLoader.parse("config_version: 1\nbatch: {max_rows: 7}\n").batch().maxRows()).isEqualTo(7);
        assertThat(ConfigLoader.parse("batch: {max_rows: 7}\n").batch().maxRows()).as("absent: 1").isEqualTo(7);
        assertThatThrownBy(() -> ConfigLoader.parse("config_version: 2\nsomething_new: {x: 1}\n"))
                .hasMessageContaining("config_version 2 is newer than this sluice reads (1)");
        assertThatThrownBy(() -> ConfigLoader.parse("config_version: one\n"))
                .hasMessageContaining("config_version must be a whole number");
    }

    @Test
    void anEmptyFileHasReadmesDefaults() throws IOException {
        SluiceConfig c = ConfigLoader.parse("{}\n");
        assertThat(c).isEqualTo(SluiceConfig.defaults());
        assertThat(ConfigLoader.parse("# comments only\n")).as("a file of comments").isEqualTo(c);
        assertThat(ConfigLoader.parse("")).as("an empty file").isEqualTo(c);
        assertThat(ConfigLoader.parse("batch:\nsecurity:\n  access:\njournal: {}\n"))
                .as("sections present but empty").isEqualTo(c);
        assertThat(c.templates()).isEmpty();
        assertThat(c.schema()).isEmpty();
        assertThat(c.batch()).isEqualTo(new Batch(2000, Duration.ofNanos(200_000), 50, true, Duration.ofMillis(100)));
        assertThat(c.apply()).isEqualTo(new Apply(2, true, true));
        assertThat(c.admission()).isEqualTo(new Admission(100_000, ByteSize.parse("256mb"), Duration.ofSeconds(2),
                ByteSize.parse("16mb")));
        assertThat(c.neo4j()).isEqualTo(new Neo4j(ByteSize.parse("512m"), new ByteSize(0), "neo4j", null, null, Map.of()));
        assertThat(c.journal()).isEqualTo(new Journal(1_000_000, ByteSize.parse("1gb"), ByteSize.parse("64mb"), null));
        assertThat(c.retry()).isEqualTo(new Retry(10, Duration.ofMillis(5), Duration.ofSeconds(1)));
        assertThat(c.security()).isEqualTo(new Security(true, false, 5, Duration.ofSeconds(5), 10_000,
                Duration.ofSeconds(60), true, new AccessLevels(Access.CYPHER, Map.of())));
        assertThat(c.modes()).isEqualTo(new Modes(Mode.SYNC, Map.of()));
        assertThat(c.transactions()).isEqualTo(new Transactions(Duration.ofSeconds(60), Duration.ofSeconds(30), 0));
        // max_open unset: the sink's (900 embedded, half the driver's pool over --neo4j)
        assertThat(c.transactions().maxOpen(900)).isEqualTo(900);
        assertThat(c.transactions().maxOpen(16)).isEqualTo(16);
        assertThat(ConfigLoader.parse("transactions: {max_open: 4}\n").transactions().maxOpen(1000)).isEqualTo(4);
        assertThat(c.http().ioThreads()).isEqualTo(Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
        assertThat(c.warmup()).isEqualTo(new Warmup(false, Duration.ofSeconds(60)));
        assertThat(c.tls()).isEqualTo(new Tls(null, null, null, true, Tls.Bolt.OFF));
        assertThat(ConfigLoader.parse("tls: {bolt: off}\n").tls().bolt()).isEqualTo(Tls.Bolt.OFF);
    }

    @Test
    void absentKeysOfAGivenSectionTakeTheirDefaults() throws IOException {
        SluiceConfig c = ConfigLoader.parse("batch: {max_rows: 10}\njournal: {kafka: {topic: t}}\n");
        assertThat(c.batch()).as("min_rows: 50, or max_rows when lower")
                .isEqualTo(new Batch(10, Duration.ofNanos(200_000), 10, true, Duration.ofMillis(100)));
        assertThat(c.journal().kafka()).as("dead letters named after the topic")
                .isEqualTo(new Kafka(null, "t", 8, "sluice", 1_000_000, Duration.ofSeconds(10), "t-dead-letters",
                        Map.of(), Map.of(), Map.of()));
        assertThat(c.journal().maxLagRows()).isEqualTo(Journal.DEFAULT.maxLagRows());
    }

    @Test
    void refusalsNameTheKey() {
        refused("modes: {default: fast}\n", "modes: a mode is sync, async or direct, got 'fast'");
        refused("transactions: {max_open: 0}\n", "transactions.max_open must be >= 1, got 0");
        refused("modes: {users: {ingest: Async}}\n", "modes: a mode is sync, async or direct, got 'Async'");
        refused("security: {access: {default: write}}\n",
                "security.access levels are cypher, templates or read, got 'write'");
        refused("security: {access: {users: {app: all}}}\n",
                "security.access levels are cypher, templates or read, got 'all'");
        refused("batch: {max_rows: 100, min_rows: 101}\n", "batch.min_rows must be in [1, max_rows], got 101");
        refused("batch: {max_rows: 0}\n", "batch.max_rows must be >= 1, got 0");
        refused("tls: {bolt: maybe}\n", "tls.bolt must be off, optional or required, got 'maybe'");
        refused("tls: {bolt: required}\n", "tls.https and tls.bolt need tls.certificate and tls.private_key");
        refused("admission: {max_body_bytes: 1g}\n",
                "admission.max_body_bytes (1024mb) must not exceed admission.max_pending_bytes (256mb)");
        refused("batch: {max_row: 10}\n", "Unrecognized field \"max_row\"");
        refused("bacth: {max_rows: 10}\n", "Unrecognized field \"bacth\"");
        refused("modes: {default_mode: async}\n", "Unrecognized field \"default_mode\"");
        refused("journal: {kafka: {topics: t}}\n", "Unrecognized field \"topics\"");
        refused("transactions: {group_max_members: 0}\n", "transactions.group_max_members must be >= 1");
        refused("transactions: {group_member_timeout: 0s}\n", "transactions.group_member_timeout positive");
        refused("transactions: {group: maybe}\n", "transactions.group must be managed, true or false, got 'maybe'");
        refused("transactions: {group_users: {app: sometimes}}\n",
                "transactions.group_users.app must be managed, true or false, got 'sometimes'");
    }

    @Test
    void managedTransactionsAreGroupedByDefaultAndItIsOverriddenPerUser() throws IOException {
        Transactions byDefault = ConfigLoader.parse("{}\n").transactions();
        assertThat(byDefault.group()).isEqualTo(Grouped.MANAGED);
        assertThat(byDefault.anyGrouped()).as("drivers are asked for TELEMETRY").isTrue();
        assertThat(byDefault.grouped(null)).isEqualTo(Grouped.MANAGED);
        assertThat(byDefault.grouped("app")).isEqualTo(Grouped.MANAGED);
        assertThat(byDefault.groupMaxMembers()).isEqualTo(64);
        assertThat(byDefault.groupMemberTimeout()).isEqualTo(Duration.ofSeconds(1));
        Transactions off = ConfigLoader.parse("transactions: {group: false}\n").transactions();
        assertThat(off.anyGrouped()).isFalse();
        assertThat(off.grouped(null)).isEqualTo(Grouped.OFF);
        Transactions some = ConfigLoader.parse("transactions: {group: false, group_users: {ingest: true}}\n")
                .transactions();
        assertThat(some.anyGrouped()).as("someone's are: drivers are asked for TELEMETRY").isTrue();
        assertThat(some.grouped("ingest")).isEqualTo(Grouped.ALL);
        assertThat(some.grouped("app")).isEqualTo(Grouped.OFF);
        assertThat(some.grouped(null)).isEqualTo(Grouped.OFF);
        Transactions on = ConfigLoader.parse("""
                transactions: {group: true, group_users: {dash: false, app: managed}, group_max_members: 8,
                  group_member_timeout: 250ms}
                """).transactions();
        assertThat(on.grouped(null)).isEqualTo(Grouped.ALL);
        assertThat(on.grouped("ingest")).isEqualTo(Grouped.ALL);
        assertThat(on.grouped("dash")).isEqualTo(Grouped.OFF);
        assertThat(on.grouped("app")).isEqualTo(Grouped.MANAGED);
        assertThat(on.groupMaxMembers()).isEqualTo(8);
        assertThat(on.groupMemberTimeout()).isEqualTo(Duration.ofMillis(250));
    }

    @Test
    void avroReadsSchemasFromTheRegistryItNames() throws IOException {
        Sources.KafkaSource k = ConfigLoader.parse("""
                sources:
                  kafka:
                    bootstrap: k:9092
                    schema_registry: {url: "http://registry:8081/apis/ccompat/v6/"}
                    topics:
                      - topic: people
                        key_format: avro
                        value_format: avro
                        cypher: "MERGE (p:Person {id: __value.id})"
                """).sources().kafka();
        assertThat(k.schemaRegistry()).isEqualTo(new Sources.SchemaRegistry("http://registry:8081/apis/ccompat/v6"));
        assertThat(k.topics().getFirst().valueFormat()).isEqualTo(Format.AVRO);
        assertThat(k.withBootstrap("k2:9092").schemaRegistry()).isEqualTo(k.schemaRegistry());

        refused("sources: {kafka: {topics: [{topic: t, value_format: avro, cypher: \"CREATE ()\"}]}}\n",
                "topic 't' reads avro, which needs sources.kafka.schema_registry.url");
        refused("sources: {kafka: {schema_registry: {url: \"registry:8081\"}, topics: [{topic: t, cypher:"
                + " \"CREATE ()\"}]}}\n", "is not an http:// or https:// URL");
        refused("sources: {kafka: {topics: [{topic: t, value_format: protobuf, cypher: \"CREATE ()\"}]}}\n",
                "unknown format 'protobuf'");
    }

    private static void refused(String yaml, String message) {
        assertThatThrownBy(() -> ConfigLoader.parse(yaml)).as(yaml).hasMessageContaining(message);
    }

    @Test
    void changingOneSettingKeepsEveryOther() throws IOException {
        SluiceConfig c = ConfigLoader.parse(FULL);
        SluiceConfig changed = c.with(c.batch().withMaxRows(5000));
        assertThat(changed.batch()).isEqualTo(new Batch(5000, Duration.ofMillis(1), 20, false, Duration.ofMillis(50)));
        assertThat(changed.with(c.batch())).as("all else as it was").isEqualTo(c);

        assertThat(c.neo4j().withDatabase("other")).isEqualTo(new Neo4j(c.neo4j().pagecache(),
                c.neo4j().txMemoryMax(), "other", c.neo4j().importDir(), c.neo4j().pluginsDir(), c.neo4j().settings()));
        assertThat(c.warmup().withWritePath(Duration.ofSeconds(5))).isEqualTo(new Warmup(true, Duration.ofSeconds(5)));
        assertThat(c.tls().withHttps("0.0.0.0:8443").https()).isEqualTo("0.0.0.0:8443");
        Kafka k = c.journal().kafka();
        assertThat(c.journal().withKafka("k2:9092").kafka()).isEqualTo(k.withBootstrap("k2:9092"));
        assertThat(k.withTopic("other")).isEqualTo(new Kafka("k1:9092", "other", 3, "g", 100, Duration.ofSeconds(5),
                "other-dead-letters", k.properties(), k.producer(), k.consumer()));
        assertThat(Journal.DEFAULT.withKafka("k:9092").kafka()).isEqualTo(Kafka.DEFAULT.withBootstrap("k:9092"));
        assertThatThrownBy(() -> Batch.DEFAULT.withMaxRows(10)).as("min_rows is kept, and checked")
                .hasMessageContaining("batch.min_rows must be in [1, max_rows], got 50");
    }

    @Test
    void withReplacesExactlyTheSectionOfItsKind() throws Exception {
        SluiceConfig defaults = SluiceConfig.defaults();
        SluiceConfig full = ConfigLoader.parse(FULL);
        RecordComponent[] components = SluiceConfig.class.getRecordComponents();
        int sections = 0;
        for (RecordComponent rc : components) {
            if (!(rc.getAccessor().invoke(full) instanceof Section section)) {
                continue;
            }
            sections++;
            assertThat(section).as(rc.getName()).isNotEqualTo(rc.getAccessor().invoke(defaults));
            SluiceConfig one = defaults.with(section);
            for (RecordComponent other : components) {
                assertThat(other.getAccessor().invoke(one)).as("%s after with(%s)", other.getName(), rc.getName())
                        .isEqualTo(other.getAccessor().invoke(other == rc ? full : defaults));
            }
        }
        assertThat(sections).isEqualTo(Section.class.getPermittedSubclasses().length);
        assertThat(defaults.withTemplates(full.templates(), full.schema()))
                .isEqualTo(ConfigLoader.parse(FULL.substring(0, FULL.indexOf("batch:"))));
    }

    @Test
    void sectionsRefuseNullWhereADefaultExists() {
        assertThatThrownBy(() -> new Batch(1, null, 1, true, Duration.ZERO)).hasMessage("batch.max_wait");
        assertThatThrownBy(() -> SluiceConfig.defaults().with(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new Modes(Mode.SYNC, null)).isInstanceOf(NullPointerException.class);
    }
}
