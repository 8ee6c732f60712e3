package io.sluice.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.config.Sources;
import io.sluice.config.Sources.Binding;
import io.sluice.config.Sources.Cypher;
import io.sluice.config.Sources.DeadLetter;
import io.sluice.config.Format;
import io.sluice.config.Sources.KafkaSource;
import io.sluice.config.Sources.OnError;
import io.sluice.config.Sources.PatternStrategy;
import io.sluice.config.Sources.Start;
import io.sluice.config.Sources.Topic;
import io.sluice.sink.BoltSink;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Neo4j Kafka Connector's sink configurations as sluice reads them: the connector's quickstarts (as properties
 * and as Connect's JSON), every mapping, the defaults, each refusal by name, and the YAML round trip.
 */
@Timeout(10)
class ConnectorConfigTest {
    private static final Format ASSUMED = Format.JSON_SCHEMA; // no converter in the file: the worker's, assumed

    // ---- the quickstarts ----

    @ParameterizedTest
    @ValueSource(strings = {"properties", "json"})
    void cypherQuickstart(String kind) throws Exception {
        ConnectorConfig c = load("sink-cypher-quickstart." + kind);
        assertThat(c.name()).isEqualTo("Neo4jSinkCypher");
        assertThat(c.kafka()).isEqualTo(quickstartSource(new Topic("people", null, ASSUMED, ASSUMED,
                new Cypher(List.of("CREATE (p:Person) SET p.id = __value.id, p.name = __value.name,"
                        + " p.surname = __value.surname"), null,
                        new Binding("__timestamp", "__header", "__key", "__value", false), List.of()),
                null, false)));
        assertQuickstartSink(c);
        assertRoundTrip(c);
    }

    @ParameterizedTest
    @ValueSource(strings = {"properties", "json"})
    void nodePatternQuickstart(String kind) throws Exception {
        ConnectorConfig c = load("sink-pattern-node-quickstart." + kind);
        assertThat(c.kafka()).isEqualTo(quickstartSource(new Topic("people", null, ASSUMED, ASSUMED, null,
                new PatternStrategy("(:Person{!id,name,surname})", false, false), false)));
        assertQuickstartSink(c);
        assertRoundTrip(c);
    }

    @ParameterizedTest
    @ValueSource(strings = {"properties", "json"})
    void relationshipPatternQuickstart(String kind) throws Exception {
        ConnectorConfig c = load("sink-pattern-relationship-quickstart." + kind);
        assertThat(c.kafka()).isEqualTo(quickstartSource(new Topic("knows", null, ASSUMED, ASSUMED, null,
                new PatternStrategy("(:Person{!id})-[:KNOWS{since}]->(:Person{!otherId})", false, false), false)));
        assertQuickstartSink(c);
        assertRoundTrip(c);
    }

    @ParameterizedTest
    @ValueSource(strings = {"properties", "json"})
    void cudQuickstart(String kind) throws Exception {
        ConnectorConfig c = load("sink-cud-quickstart." + kind);
        assertThat(c.kafka()).isEqualTo(quickstartSource(new Topic("people", null, ASSUMED, ASSUMED, null, null,
                true)));
        assertQuickstartSink(c);
        assertRoundTrip(c);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sink-cdc-schema-quickstart.properties:neo4j.cdc.schema.topics",
            "sink-cdc-source-id-quickstart.properties:neo4j.cdc.source-id.topics"})
    void cdcQuickstartsAreRefusedByName(String fileAndSetting) {
        String[] f = fileAndSetting.split(":");
        assertThatThrownBy(() -> load(f[0])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(f[1] + ": the CDC strategies are not supported by sluice")
                .hasMessageContaining(f[0]);
    }

    @Test
    void propertiesAndJsonSayTheSame() throws Exception {
        for (String q : List.of("sink-cypher-quickstart", "sink-pattern-node-quickstart",
                "sink-pattern-relationship-quickstart", "sink-cud-quickstart")) {
            ConnectorConfig p = load(q + ".properties");
            ConnectorConfig j = load(q + ".json");
            assertThat(j.kafka()).as(q).isEqualTo(p.kafka());
            assertThat(j.neo4j()).as(q).isEqualTo(p.neo4j());
            assertThat(j.notes()).as(q).isEqualTo(p.notes());
        }
    }

    /** What every quickstart leaves to the defaults: Connect's group, one task, errors stop the task. */
    private static KafkaSource quickstartSource(Topic topic) {
        return new KafkaSource(null, "connect-Neo4jSinkCypher", Map.of(), 1, Start.EARLIEST,
                "connect-Neo4jSinkCypher", null, OnError.STOP, new DeadLetter(null, 100, false), List.of(topic));
    }

    private static void assertQuickstartSink(ConnectorConfig c) {
        assertThat(c.neo4j()).isEqualTo(new Neo4jSink("neo4j://neo4j:7687", "neo4j", "password",
                null));
        assertThat(c.maxRows()).isEmpty();
        assertThat(names(c.notes())).containsExactlyInAnyOrder("key.converter", "value.converter",
                "bootstrap.servers", "neo4j.database");
    }

    // ---- every mapping at once ----

    @Test
    void everyMapping() throws Exception {
        ConnectorConfig c = load("sink-full.json");
        KafkaSource k = c.kafka();
        assertThat(k.bootstrap()).isEqualTo("kafka-1:9092,kafka-2:9092");
        assertThat(k.group()).isEqualTo("connect-orders-to-neo4j");
        assertThat(k.fromGroup()).isEqualTo("connect-orders-to-neo4j");
        assertThat(k.properties()).isEqualTo(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "PLAIN",
                "max.poll.records", "500"));
        assertThat(k.consumers()).isEqualTo(3);
        assertThat(k.start()).isEqualTo(Start.EARLIEST);
        assertThat(k.eosOffsetLabel()).isEqualTo("KafkaOffset");
        assertThat(k.onError()).isEqualTo(OnError.DEAD_LETTER);
        assertThat(k.deadLetter()).isEqualTo(new DeadLetter("orders-dlq", 100, true));
        assertThat(k.topics()).containsExactly(
                new Topic("orders", null, Format.STRING, Format.JSON, new Cypher(List.of(
                        "MERGE (o:Order {id: __value.id})\nSET o.total = __value.total, o.at = __timestamp"), null,
                        new Binding("__timestamp", "__header", "", "__value", false), List.of()), null, false),
                new Topic("customers", null, Format.STRING, Format.JSON, null,
                        new PatternStrategy("(:Customer{!id, name, -password})", true, false), false),
                new Topic("links", null, Format.STRING, Format.JSON, null, null, true));
        assertThat(c.neo4j()).isEqualTo(new Neo4jSink("neo4j+s://core1:7687", "writer",
                "s3cret: \"quoted\"", "shop"));
        assertThat(c.maxRows()).hasValue(500);
        assertThat(names(c.notes())).contains("errors.tolerance", "errors.log.include.messages",
                "errors.deadletterqueue.topic.replication.factor", "errors.deadletterqueue.topic.name",
                "errors.retry.timeout", "errors.retry.delay.max.ms", "neo4j.uri", "neo4j.security.encrypted",
                "neo4j.batch-size", "neo4j.batch-timeout", "neo4j.max-batched-queries", "neo4j.max-retry-time",
                "neo4j.connection-timeout", "tasks.max");
        assertRoundTrip(c);
    }

    @Test
    void theYamlHasTheSinkForTheCommandLineButNeverThePassword() throws Exception {
        String yaml = load("sink-full.json").yaml();
        assertThat(yaml).contains("# Neo4j, for the command line", "--neo4j neo4j+s://core1:7687 --user writer",
                "SLUICE_NEO4J_PASSWORD", "database: \"shop\"", "max_rows: 500").doesNotContain("s3cret");
        assertThat(load("sink-cypher-quickstart.properties").yaml())
                .contains("sluice assumes Kafka Connect's JsonConverter", "with schemas.enable=true (json-schema)")
                .doesNotContain("password\n").doesNotContain("neo4j:\n  database");
    }

    @Test
    void applyToAddsTheSourcesTheDatabaseAndTheRowLimit() throws Exception {
        ConnectorConfig c = load("sink-full.json");
        SluiceConfig applied = c.applyTo(SluiceConfig.defaults());
        assertThat(applied.sources().kafka()).isEqualTo(c.kafka());
        assertThat(applied.neo4j().database()).isEqualTo("shop");
        assertThat(applied.batch().maxRows()).isEqualTo(500);
        assertThat(c.applyTo(SluiceConfig.defaults().with(SluiceConfig.defaults().batch().withMinRows(1000)))
                .batch().minRows()).isEqualTo(500);
        assertThatThrownBy(() -> c.applyTo(applied)).hasMessageContaining("sources.kafka");
        Neo4jSink n = c.neo4j();
        BoltSink.Options o = new BoltSink.Options(n.uri(), n.user(), n.password(), n.database()); // what serve does
        assertThat(o.uri()).isEqualTo("neo4j+s://core1:7687");
        assertThat(n.toString()).doesNotContain("s3cret");
    }

    // ---- the defaults ----

    @Test
    void defaults() {
        ConnectorConfig c = ConnectorConfig.parse(props(minimal()));
        KafkaSource k = c.kafka();
        assertThat(k.consumers()).isEqualTo(1); // tasks.max's default, not sluice's 2
        assertThat(k.start()).isEqualTo(Start.EARLIEST); // Connect's sink consumers: auto.offset.reset=earliest
        assertThat(k.onError()).isEqualTo(OnError.STOP); // errors.tolerance=none
        assertThat(k.deadLetter()).isEqualTo(new DeadLetter(null, 100, false)); // context headers: Connect's false
        assertThat(k.topics().get(0).keyFormat()).isEqualTo(Format.JSON_SCHEMA); // schemas.enable's default true
        assertThat(k.topics().get(0).cypher().bind()).isEqualTo(Binding.DEFAULT);
        assertThat(k.eosOffsetLabel()).isNull();
        assertThat(c.neo4j().database()).isNull();
        assertThat(c.neo4j().user()).isEqualTo("neo4j"); // authentication.type BASIC by default
        assertThat(c.maxRows()).isEmpty();
    }

    @Test
    void jsonConverterWithSchemasIsJsonSchemaWithoutIsJson() {
        assertThat(formats(Map.of("key.converter", ConnectorNames.JSON_CONVERTER,
                "value.converter", ConnectorNames.JSON_CONVERTER, "value.converter.schemas.enable", "FALSE")))
                .containsExactly(Format.JSON_SCHEMA, Format.JSON);
        assertThat(formats(Map.of("key.converter", ConnectorNames.STRING_CONVERTER,
                "value.converter", ConnectorNames.BYTES_CONVERTER)))
                .containsExactly(Format.STRING, Format.BYTES);
        assertThat(formats(Map.of("value.converter.schemas.enable", "false")))
                .containsExactly(Format.JSON_SCHEMA, Format.JSON);
    }

    @Test
    void avroConverterIsAvroWithItsRegistry() throws Exception {
        ConnectorConfig c = parse(Map.of("key.converter", ConnectorNames.STRING_CONVERTER,
                "value.converter", ConnectorNames.AVRO_CONVERTER,
                "value.converter.schema.registry.url", "http://registry:8081/",
                "value.converter.auto.register.schemas", "false",
                "value.converter.schemas.cache.config", "100"));
        Topic t = c.kafka().topics().get(0);
        assertThat(List.of(t.keyFormat(), t.valueFormat())).containsExactly(Format.STRING, Format.AVRO);
        assertThat(c.kafka().schemaRegistry()).isEqualTo(new Sources.SchemaRegistry("http://registry:8081"));
        assertThat(names(c.notes())).contains("value.converter", "value.converter.auto.register.schemas",
                "value.converter.schemas.cache.config");
        assertRoundTrip(c);

        ConnectorConfig both = parse(Map.of("key.converter", ConnectorNames.AVRO_CONVERTER,
                "key.converter.schema.registry.url", "http://r1:8081,http://r2:8081",
                "value.converter", ConnectorNames.AVRO_CONVERTER,
                "value.converter.schema.registry.url", "http://r1:8081"));
        assertThat(formats(Map.of("key.converter", ConnectorNames.AVRO_CONVERTER,
                "key.converter.schema.registry.url", "http://r1:8081", "value.converter",
                ConnectorNames.JSON_CONVERTER))).containsExactly(Format.AVRO, Format.JSON_SCHEMA);
        assertThat(both.kafka().schemaRegistry().url()).as("the first of a list").isEqualTo("http://r1:8081");
        assertThat(names(both.notes())).contains("key.converter.schema.registry.url");

        refused(Map.of("value.converter", ConnectorNames.AVRO_CONVERTER), "value.converter",
                "needs value.converter.schema.registry.url");
        refused(Map.of("value.converter", ConnectorNames.AVRO_CONVERTER,
                "value.converter.schema.registry.url", "http://r:8081",
                "value.converter.basic.auth.credentials.source", "USER_INFO",
                "value.converter.basic.auth.user.info", "u:p"),
                "value.converter.basic.auth.credentials.source", "value.converter.basic.auth.user.info",
                "without authentication");
        refused(Map.of("value.converter", ConnectorNames.AVRO_CONVERTER,
                "value.converter.schema.registry.url", "http://r:8081",
                "value.converter.schema.registry.ssl.truststore.location", "/t.jks"),
                "value.converter.schema.registry.ssl.truststore.location");
        refused(Map.of("value.converter", ConnectorNames.AVRO_CONVERTER,
                "value.converter.schema.registry.url", "http://r:8081",
                "value.converter.specific.avro.reader", "true"), "value.converter.specific.avro.reader",
                "not an AvroConverter setting");
        refused(Map.of("key.converter", ConnectorNames.AVRO_CONVERTER,
                "key.converter.schema.registry.url", "http://a:8081",
                "value.converter", ConnectorNames.AVRO_CONVERTER,
                "value.converter.schema.registry.url", "http://b:8081"), "key.converter.schema.registry.url",
                "value.converter.schema.registry.url", "different schema registries");
        refused(Map.of("value.converter", ConnectorNames.AVRO_CONVERTER,
                "value.converter.schema.registry.url", "mock://scope"), "value.converter.schema.registry.url",
                "not an http");
    }

    @Test
    void errorsTolerance() {
        assertThat(onError(Map.of("errors.tolerance", "none", "errors.deadletterqueue.topic.name", "dlq")))
                .isEqualTo(OnError.STOP);
        assertThat(onError(Map.of("errors.tolerance", "all", "errors.deadletterqueue.topic.name", "dlq")))
                .isEqualTo(OnError.DEAD_LETTER);
        assertThat(onError(Map.of("errors.tolerance", "all", "errors.log.enable", "true"))).isEqualTo(OnError.SKIP);
        // no errant record reporter: the connector's failures fail the task whatever the tolerance
        ConnectorConfig c = parse(Map.of("errors.tolerance", "all"));
        assertThat(c.kafka().onError()).isEqualTo(OnError.STOP);
        assertThat(c.notes()).anyMatch(n -> n.startsWith("errors.tolerance: all, but with neither"));
        ConnectorConfig none = parse(Map.of("errors.deadletterqueue.topic.name", "dlq"));
        assertThat(none.kafka().deadLetter().topic()).isEqualTo("dlq");
        assertRoundTrip(none);
    }

    @Test
    void theConsumer() {
        ConnectorConfig c = parse(Map.of("bootstrap.servers", "worker:9092", "consumer.security.protocol", "SSL",
                "consumer.client.rack", "a", "consumer.override.client.rack", "b",
                "consumer.override.group.id", "legacy-group", "consumer.override.auto.offset.reset", "latest",
                "consumer.override.enable.auto.commit", "false", "producer.override.client.rack", "b",
                "admin.override.bootstrap.servers", "worker:9092"));
        KafkaSource k = c.kafka();
        assertThat(k.bootstrap()).isEqualTo("worker:9092");
        assertThat(k.group()).isEqualTo("legacy-group");
        assertThat(k.fromGroup()).isEqualTo("legacy-group");
        assertThat(k.start()).isEqualTo(Start.LATEST);
        assertThat(k.properties()).isEqualTo(Map.of("security.protocol", "SSL", "client.rack", "b"));
        assertRoundTrip(c);
    }

    @Test
    void withoutANameSluiceHasItsOwnGroupAndSaysWhereItStarts() {
        Map<String, String> m = minimal();
        m.remove("name");
        ConnectorConfig c = ConnectorConfig.parse(props(m));
        assertThat(c.kafka().group()).isEqualTo("sluice-sources");
        assertThat(c.kafka().fromGroup()).isNull();
        assertThat(c.notes()).anyMatch(n -> n.startsWith("name: none in the file"));
    }

    @Test
    void restBodyNameAndBareMaps() {
        String body = """
                {"name": "from-body", "config": {"connector.class": "%s", "topics": "t", "tasks.max": 2,
                 "neo4j.uri": "bolt://h:7687", "neo4j.authentication.type": "NONE", "neo4j.cud.topics": "t"},
                 "tasks": [], "type": "sink"}""".formatted(ConnectorConfig.CONNECTOR_CLASS);
        ConnectorConfig c = ConnectorConfig.parse(body);
        assertThat(c.name()).isEqualTo("from-body");
        assertThat(c.kafka().group()).isEqualTo("connect-from-body");
        assertThat(c.kafka().consumers()).isEqualTo(2);
        assertThat(c.neo4j()).isEqualTo(new Neo4jSink("bolt://h:7687", null, null, null));
        assertThat(c.yaml()).contains("--neo4j bolt://h:7687\n").doesNotContain("--user");
        ConnectorConfig bare = ConnectorConfig.parse("""
                {"name": "bare", "connector.class": "%s", "topics": "t", "neo4j.uri": "bolt://h:7687",
                 "neo4j.authentication.type": "NONE", "neo4j.cud.topics": "t"}"""
                .formatted(ConnectorConfig.CONNECTOR_CLASS));
        assertThat(bare.kafka().group()).isEqualTo("connect-bare");
        assertThatThrownBy(() -> ConnectorConfig.parse("{\"name\": \"a\", \"config\": {\"name\": \"b\"}}"))
                .hasMessageContaining("differ");
        assertThatThrownBy(() -> ConnectorConfig.parse("{\"topics\": [\"a\"]}")).hasMessageContaining("[topics]");
        assertThatThrownBy(() -> ConnectorConfig.parse("{\"topics\": \"a\", \"topics\": \"b\"}"))
                .hasMessageContaining("not JSON");
    }

    @Test
    void tls() {
        assertThat(parse(Map.of("neo4j.security.encrypted", "true")).neo4j().uri()).isEqualTo("neo4j+s://neo4j:7687");
        assertThat(parse(Map.of("neo4j.security.encrypted", "true", "neo4j.security.trust-strategy",
                "TRUST_ALL_CERTIFICATES")).neo4j().uri()).isEqualTo("neo4j+ssc://neo4j:7687");
        ConnectorConfig plain = parse(Map.of("neo4j.security.trust-strategy", "TRUST_ALL_CERTIFICATES"));
        assertThat(plain.neo4j().uri()).isEqualTo("neo4j://neo4j:7687");
        assertThat(names(plain.notes())).contains("neo4j.security.*");
        ConnectorConfig scheme = parse(Map.of("neo4j.uri", "bolt+s://h:7687", "neo4j.security.encrypted", "false"));
        assertThat(scheme.neo4j().uri()).isEqualTo("bolt+s://h:7687");
        assertThat(names(scheme.notes())).contains("neo4j.security.*");
    }

    // ---- refusals, each by name ----

    @Test
    void refusals() {
        refused(Map.of("transforms", "route", "transforms.route.type",
                "org.apache.kafka.connect.transforms.RegexRouter"), "transforms", "transforms.route.type");
        refused(Map.of("predicates", "p", "predicates.p.type", "x"), "predicates", "predicates.p.type");
        refused(Map.of("key.converter", "io.confluent.connect.protobuf.ProtobufConverter"), "key.converter",
                "registry's Avro only");
        refused(Map.of("value.converter", "io.confluent.connect.json.JsonSchemaConverter",
                "value.converter.schema.registry.url", "http://r:8081"), "value.converter", "registry's Avro only",
                "nor its settings [schema.registry.url]");
        refused(Map.of("key.converter", "org.apache.kafka.connect.converters.LongConverter"), "key.converter");
        refused(Map.of("header.converter", "org.apache.kafka.connect.storage.StringConverter"), "header.converter");
        refused(Map.of("neo4j.authentication.type", "KERBEROS", "neo4j.authentication.kerberos.ticket", "t"),
                "neo4j.authentication.type", "neo4j.authentication.kerberos.ticket");
        refused(Map.of("neo4j.authentication.type", "BEARER"), "neo4j.authentication.type");
        refused(Map.of("neo4j.authentication.type", "CUSTOM"), "neo4j.authentication.type");
        refused(Map.of("neo4j.authentication.basic.realm", "r"), "neo4j.authentication.basic.realm");
        refused(Map.of("neo4j.authentication.basic.password", ""), "neo4j.authentication.basic.password");
        refused(Map.of("neo4j.security.encrypted", "true", "neo4j.security.trust-strategy",
                "TRUST_CUSTOM_CA_SIGNED_CERTIFICATES", "neo4j.security.cert-files", "/ca.pem"),
                "neo4j.security.trust-strategy");
        refused(Map.of("neo4j.security.encrypted", "true", "neo4j.security.hostname-verification-enabled", "false"),
                "neo4j.security.hostname-verification-enabled");
        refused(Map.of("neo4j.security.encrypted", "True"), "neo4j.security.encrypted");
        refused(Map.of("neo4j.uri", "http://h:7474"), "neo4j.uri");
        refused(Map.of("neo4j.uri", "neo4j://u:p@h:7687"), "neo4j.uri", "credentials belong");
        refused(Map.of("neo4j.uri", ""), "neo4j.uri: missing");
        refused(Map.of("neo4j.pattern.bind-value-as", "v"), "neo4j.pattern.bind-value-as");
        refused(Map.of("neo4j.cypher.bind-timestamp-as", "", "neo4j.cypher.bind-header-as", "",
                "neo4j.cypher.bind-key-as", "", "neo4j.cypher.bind-value-as", "",
                "neo4j.cypher.bind-value-as-event", "false"), "neo4j.cypher.bind-timestamp-as");
        refused(Map.of("neo4j.eos-offset-label", "Kafka-Offset"), "neo4j.eos-offset-label");
        refused(Map.of("neo4j.cdc.source-id.label-name", "SourceEvent"), "neo4j.cdc.source-id.label-name");
        refused(Map.of("consumer.override.auto.offset.reset", "none"), "consumer.override.auto.offset.reset");
        refused(Map.of("consumer.override.enable.auto.commit", "true"), "consumer.override.enable.auto.commit");
        refused(Map.of("consumer.override.value.deserializer", "x"), "consumer.override.value.deserializer");
        refused(Map.of("producer.override.compression.type", "lz4"), "producer.override.compression.type");
        refused(Map.of("neo4j.batch-timeout", "30"), "neo4j.batch-timeout");
        refused(Map.of("neo4j.batch-size", "0"), "neo4j.batch-size");
        refused(Map.of("tasks.max", "zero"), "tasks.max");
        refused(Map.of("errors.tolerance", "ALL"), "errors.tolerance");
    }

    @Test
    void aSettingIsRefusedOnce() {
        assertThatThrownBy(() -> parse(Map.of("tasks.max", "0"))).hasMessageContaining("this setting:")
                .hasMessageContaining("tasks.max: '0' must be an integer >= 1");
    }

    @Test
    void unknownSettingsAreRefusedNotIgnored() {
        refused(Map.of("neo4j.retry.max.attemps", "3", "neo4j.max-retry-attempts", "5", "some.other", "x",
                "key.converter.schemas.enabled", "true"), "neo4j.retry.max.attemps", "neo4j.max-retry-attempts",
                "some.other", "key.converter.schemas.enabled");
    }

    @Test
    void theConnectorsTopicChecksAreMirrored() {
        refused(Map.of("topics", "people,orders"), "topic 'orders' is not assigned a sink strategy");
        refused(Map.of("neo4j.cud.topics", "people"), "topic 'people' has multiple strategies defined");
        refused(Map.of("neo4j.pattern.topic.orders", "(:O{!id})"), "neo4j.pattern.topic.orders: topic 'orders' is"
                + " not in `topics`");
        refused(Map.of("topics", "people,dlq", "neo4j.cud.topics", "dlq", "errors.deadletterqueue.topic.name",
                "dlq"), "the DLQ topic 'dlq' is among the topics");
        refused(Map.of("topics", ""), "topics: missing");
        refused(Map.of("topics.regex", "people.*"), "topics.regex", "topics.regex: topics and topics.regex are"
                + " mutually exclusive");
        Map<String, String> regex = minimal();
        regex.remove("topics");
        regex.put("topics.regex", "people.*");
        assertThatThrownBy(() -> ConnectorConfig.parse(props(regex)))
                .hasMessageContaining("topics.regex: the connector finds each topic's strategy by the names in")
                .hasMessageNotContaining("neo4j.cypher.topic.people:");
    }

    @Test
    void theConnectorClassIsCheckedFirstAndAlone() {
        for (String cls : List.of(ConnectorNames.LEGACY_CLASS, ConnectorNames.SOURCE_CLASS, "com.example.Other")) {
            Map<String, String> m = minimal();
            m.put("connector.class", cls);
            m.put("neo4j.topic.cypher.people", "MERGE (p:P)");
            assertThatThrownBy(() -> ConnectorConfig.parse(props(m))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("connector.class: " + cls)
                    .hasMessageNotContaining("neo4j.topic.cypher.people");
        }
        Map<String, String> none = minimal();
        none.remove("connector.class");
        assertThatThrownBy(() -> ConnectorConfig.parse(props(none))).hasMessageContaining("connector.class: missing");
    }

    @Test
    void configProviderReferencesAreRefused() {
        refused(Map.of("neo4j.authentication.basic.password", "${file:/secrets.properties:neo4j}"),
                "neo4j.authentication.basic.password: a Kafka Connect config provider reference");
    }

    @Test
    void everyRefusalIsListedInOneException() {
        assertThatThrownBy(() -> parse(Map.of("transforms", "a", "neo4j.authentication.type", "BEARER",
                "neo4j.cdc.schema.topics", "x", "nonsense", "1")))
                .hasMessageContaining("these 4 settings")
                .hasMessageContaining("transforms:").hasMessageContaining("neo4j.authentication.type:")
                .hasMessageContaining("neo4j.cdc.schema.topics:").hasMessageContaining("nonsense:");
    }

    // ---- the round trip ----

    @Test
    void awkwardStringsSurviveTheYaml() {
        ConnectorConfig c = parse(Map.of("neo4j.cypher.topic.people", "MERGE (p:Person {id: __value.id})\n"
                + "  SET p.note = 'it''s \"quoted\" # not a comment', p.tab = '\t', p.u = 'ü→€'",
                "consumer.override.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule"
                + " required username=\"u\" password=\"p: #x\";"));
        assertRoundTrip(c);
    }

    /** {@link ConfigLoader} reads {@link ConnectorConfig#yaml()} back into an equal source, database, row limit. */
    private static void assertRoundTrip(ConnectorConfig c) {
        SluiceConfig read;
        try {
            read = ConfigLoader.parse(c.yaml());
        } catch (IOException e) {
            throw new AssertionError("the YAML does not parse:\n" + c.yaml(), e);
        }
        assertThat(read.sources()).as(c.yaml()).isEqualTo(new Sources(c.kafka()));
        assertThat(read.neo4j().database()).isEqualTo(c.neo4j().database() != null ? c.neo4j().database()
                : SluiceConfig.defaults().neo4j().database());
        assertThat(read.batch().maxRows()).isEqualTo(c.maxRows().orElse(SluiceConfig.defaults().batch().maxRows()));
        assertThat(read).isEqualTo(c.applyTo(SluiceConfig.defaults()));
    }

    // ---- helpers ----

    private static ConnectorConfig load(String resource) throws IOException, URISyntaxException {
        return ConnectorConfig.load(Path.of(ConnectorConfigTest.class.getResource("/connector/" + resource).toURI()));
    }

    /** A connector config that runs: one Cypher topic. */
    private static Map<String, String> minimal() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("name", "minimal");
        m.put("connector.class", ConnectorConfig.CONNECTOR_CLASS);
        m.put("topics", "people");
        m.put("neo4j.uri", "neo4j://neo4j:7687");
        m.put("neo4j.authentication.basic.username", "neo4j");
        m.put("neo4j.authentication.basic.password", "password");
        m.put("neo4j.cypher.topic.people", "MERGE (p:Person {id: __value.id})");
        return m;
    }

    /** {@link #minimal()} with {@code more} on top, as a properties file. */
    private static ConnectorConfig parse(Map<String, String> more) {
        Map<String, String> m = minimal();
        m.putAll(more);
        return ConnectorConfig.parse(props(m));
    }

    private static String props(Map<String, String> m) {
        java.util.Properties p = new java.util.Properties();
        p.putAll(m);
        java.io.StringWriter w = new java.io.StringWriter();
        try {
            p.store(w, null);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return w.toString();
    }

    private static void refused(Map<String, String> more, String... named) {
        var thrown = assertThatThrownBy(() -> parse(more)).isInstanceOf(IllegalArgumentException.class);
        for (String n : named) {
            thrown.hasMessageContaining(n);
        }
    }

    private static List<Format> formats(Map<String, String> converters) {
        Topic t = parse(converters).kafka().topics().get(0);
        return List.of(t.keyFormat(), t.valueFormat());
    }

    private static OnError onError(Map<String, String> errors) {
        return parse(errors).kafka().onError();
    }

    /** The setting each note names. */
    private static List<String> names(List<String> notes) {
        return notes.stream().map(n -> n.substring(0, n.indexOf(": "))).collect(Collectors.toList());
    }
}
