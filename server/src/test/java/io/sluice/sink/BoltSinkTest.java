package io.sluice.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.HostPort;
import io.sluice.support.TestServer;
import io.sluice.time.Time;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.GraphValues;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import io.sluice.vocab.Summary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.exceptions.ServiceUnavailableException;

/**
 * The Bolt sink against the embedded sink on the same real database (embedded Neo4j with its Bolt connector
 * on): the same values, counters, plan kinds and errors, so the HTTP layer cannot tell them apart.
 */
class BoltSinkTest {
    static Path dir;
    static EmbeddedNeo4j neo4j;
    static Sink embedded;
    static BoltSink bolt;
    static String uri;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-bolt-sink-");
        HostPort address = new HostPort("127.0.0.1", TestServer.freePort());
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir, address, 64L << 20, 0, "neo4j"));
        embedded = neo4j.sink();
        uri = "bolt://" + address;
        bolt = BoltSink.connect(new BoltSink.Options(uri, null, null, "neo4j"), Duration.ofSeconds(30), Time.SYSTEM);
    }

    @AfterAll
    static void stop() {
        bolt.close();
        neo4j.close();
        TestServer.deleteRecursively(dir);
    }

    @Test
    void everyKindOfValueComesBackAsTheEmbeddedSinkReturnsIt() throws Exception {
        embedded.runImplicit("""
                CREATE p = (a:A:B {i: 1, f: 1.5, s: 'x', t: true, l: [1, 2], d: date('2020-01-02')})
                           -[:R {w: 2}]->(:C)""", Map.of());
        String read = """
                MATCH p = (a:A)-[r:R]->(c:C)
                RETURN a, r, c, p, a.l AS l, {m: a.i, n: [a.s]} AS m, null AS nothing, 42 AS int, 0.25 AS float,
                       point({x: 1, y: 2}) AS cartesian, point({x: 1, y: 2, z: 3}) AS cartesian3d,
                       point({latitude: 1.5, longitude: 2.5}) AS wgs84, point({latitude: 1, longitude: 2, height: 3}) AS wgs3d,
                       date('2020-01-02') AS date, time('12:34:56.789+01:00') AS time, localtime('12:34') AS localtime,
                       datetime('2020-01-02T03:04:05.006[Europe/Berlin]') AS zoned, datetime('2020-01-02T03:04+02:00') AS offset,
                       localdatetime('2020-01-02T03:04:05') AS local, duration('P1Y2M3DT4H5M6.007S') AS duration,
                       duration({seconds: -90}) AS negative, [a, r] AS entities""";
        StatementResult viaBolt = bolt.inReadTransaction(tx -> tx.run(read, Map.of()));
        StatementResult viaEmbedded = embedded.inReadTransaction(tx -> tx.run(read, Map.of()));
        assertThat(viaBolt.columns()).isEqualTo(viaEmbedded.columns());
        assertThat(viaBolt.rows()).hasSize(1);
        for (int i = 0; i < viaBolt.columns().size(); i++) {
            assertThat(viaBolt.rows().getFirst().get(i)).as(viaBolt.columns().get(i))
                    .isEqualTo(viaEmbedded.rows().getFirst().get(i));
        }
        assertThat(viaBolt.rows().getFirst().get(7)).as("integers are Long").isInstanceOf(Long.class);
        Map<String, Object> byName = new java.util.HashMap<>();
        for (int i = 0; i < viaEmbedded.columns().size(); i++) {
            byName.put(viaEmbedded.columns().get(i), viaEmbedded.rows().getFirst().get(i));
        }
        assertThat(byName.get("cartesian3d")).isEqualTo(new GraphValues.GraphPoint(9157, List.of(1.0, 2.0, 3.0)));
        assertThat(byName.get("wgs84")).isEqualTo(new GraphValues.GraphPoint(4326, List.of(2.5, 1.5)));
        assertThat(byName.get("date")).isEqualTo(java.time.LocalDate.of(2020, 1, 2));
        assertThat(byName.get("time")).isEqualTo(java.time.OffsetTime.parse("12:34:56.789+01:00"));
        assertThat(byName.get("localtime")).isEqualTo(java.time.LocalTime.of(12, 34));
        assertThat(byName.get("zoned")).as("the zone id is kept")
                .isEqualTo(java.time.ZonedDateTime.parse("2020-01-02T03:04:05.006+01:00[Europe/Berlin]"));
        assertThat(byName.get("offset")).isEqualTo(java.time.OffsetDateTime.parse("2020-01-02T03:04+02:00"));
        assertThat(byName.get("local")).isEqualTo(java.time.LocalDateTime.parse("2020-01-02T03:04:05"));
        assertThat(byName.get("duration")).isEqualTo(new GraphValues.GraphDuration(14, 3, 14706, 7_000_000));
        assertThat(byName.get("negative")).isEqualTo(new GraphValues.GraphDuration(0, 0, -90, 0));
        assertThat(byName.get("duration")).hasToString("P1Y2M3DT4H5M6.007S");
    }

    @Test
    void typedParametersGoInThroughEitherSinkAndComeBackTheSame() throws Exception {
        Map<String, Object> params = new java.util.LinkedHashMap<>();
        params.put("bytes", new byte[] {1, 2, 3, -1});
        params.put("big", 9_007_199_254_740_993L);
        params.put("date", java.time.LocalDate.of(-44, 3, 15));
        params.put("time", java.time.OffsetTime.parse("12:34:56.123+01:00"));
        params.put("localtime", java.time.LocalTime.of(12, 0));
        params.put("offset", java.time.OffsetDateTime.parse("2024-02-29T12:34:56.5+01:00"));
        params.put("zoned", java.time.ZonedDateTime.parse("2024-02-29T12:34:56+01:00[Europe/Stockholm]"));
        params.put("local", java.time.LocalDateTime.parse("2024-02-29T12:34:56.000000001"));
        params.put("duration", new GraphValues.GraphDuration(14, -1, 30, 500));
        params.put("p2", new GraphValues.GraphPoint(7203, List.of(1.5, 2.0)));
        params.put("p3", new GraphValues.GraphPoint(4979, List.of(12.5, 56.1, 100.0)));
        params.put("nested", Map.of("l", List.of(new GraphValues.GraphPoint(4326, List.of(1.0, 2.0)),
                new GraphValues.GraphDuration(0, 0, 1, 0))));
        String read = "RETURN " + String.join(", ", params.keySet().stream().map(k -> "$" + k + " AS " + k).toList());
        StatementResult viaBolt = bolt.inReadTransaction(tx -> tx.run(read, params));
        StatementResult viaEmbedded = embedded.inReadTransaction(tx -> tx.run(read, params));
        List<Object> expected = new java.util.ArrayList<>(params.values());
        assertThat(viaEmbedded.rows().getFirst()).usingRecursiveFieldByFieldElementComparator()
                .containsExactlyElementsOf(expected);
        assertThat(viaBolt.rows().getFirst()).usingRecursiveFieldByFieldElementComparator()
                .containsExactlyElementsOf(expected);
    }

    @Test
    void countersHaveTheEmbeddedSinksNames() throws Exception {
        String write = "CREATE (n:Counted {a: $a}) SET n:Extra RETURN n.a";
        StatementResult viaBolt = bolt.inTransaction(tx -> tx.run(write, Map.of("a", 1L)));
        StatementResult viaEmbedded = embedded.inTransaction(tx -> tx.run(write, Map.of("a", 1L)));
        assertThat(viaBolt.counters()).isEqualTo(viaEmbedded.counters());
        assertThat(viaBolt.counters().get("nodes_created")).isEqualTo(1);
        assertThat(viaBolt.rows()).isEqualTo(List.of(List.of(1L)));
    }

    @Test
    void statementsAreClassifiedAsTheEmbeddedSinkClassifiesThem() throws Exception {
        for (String cypher : List.of("MATCH (n) RETURN count(n)", "CREATE (n)", "MATCH (n) SET n.x = 1",
                "CREATE INDEX k_i IF NOT EXISTS FOR (k:K) ON (k.i)")) {
            assertThat(bolt.classify(cypher)).as(cypher).isEqualTo(embedded.classify(cypher));
        }
        assertThat(bolt.classify("MERGE (n:M {id: $id})")).isEqualTo(QueryKind.WRITE);
        assertThat(bolt.classify("SHOW INDEXES")).isEqualTo(QueryKind.READ);
    }

    /**
     * Notifications, the standard status and plans reach a front end through the Bolt sink as through the embedded
     * one (so {@code --neo4j} answers as the embedded Neo4j does); a profile's figures are the server's own (it
     * measures the root's memory, the embedded API does not), so a profile compares by its operators.
     */
    @Test
    void summariesAreTheEmbeddedSinks() throws Exception {
        for (String read : List.of("MATCH (a:NoSuchLabel), (b) RETURN count(*) AS c", "RETURN 1 AS one",
                "MATCH (n:NoSuchLabel) RETURN n", "EXPLAIN MATCH (a), (b) RETURN a, b")) {
            Summary viaBolt = bolt.inReadTransaction(tx -> tx.run(read, Map.of())).summary();
            Summary viaEmbedded = embedded.inReadTransaction(tx -> tx.run(read, Map.of())).summary();
            assertThat(viaBolt.notifications()).as(read).isEqualTo(viaEmbedded.notifications());
            assertThat(viaBolt.plan()).as(read).isEqualTo(withoutText(viaEmbedded.plan()));
            assertThat(viaBolt.profiled()).as(read).isEqualTo(viaEmbedded.profiled());
        }
        assertThat(bolt.inReadTransaction(tx -> tx.run("MATCH (a:NoSuchLabel), (b) RETURN count(*)", Map.of()))
                .summary().notifications()).extracting(n -> n.get("gql_status")).containsExactly("01N50", "03N90");
        String profile = "PROFILE MATCH (a:NoSuchLabel) RETURN count(a)";
        Summary viaBolt = bolt.inReadTransaction(tx -> tx.run(profile, Map.of())).summary();
        Summary viaEmbedded = embedded.inReadTransaction(tx -> tx.run(profile, Map.of())).summary();
        assertThat(viaBolt.profiled()).isTrue();
        assertThat(operators(viaBolt.plan())).isEqualTo(operators(viaEmbedded.plan())).isNotEmpty();
        assertThat(viaBolt.plan()).containsKeys("rows", "dbHits");
        // what a coalesced write carries: its plan's notifications, the positions the client's
        assertThat(bolt.planned("MATCH (a:NoSuchLabel), (b) WHERE a.k = $k SET b.x = 1").notices())
                .isEqualTo(embedded.planned("MATCH (a:NoSuchLabel), (b) WHERE a.k = $k SET b.x = 1").notices());
    }

    /** A read failing at runtime keeps the rows before its failure through either sink (what a client is streamed). */
    @Test
    void theRowsBeforeARuntimeErrorComeWithIt() {
        String read = "UNWIND [1, 0, 2] AS x RETURN 10 / x AS y";
        for (Sink sink : List.of(embedded, bolt)) {
            assertThatThrownBy(() -> sink.inReadTransaction(tx -> tx.run(read, Map.of())))
                    .isInstanceOfSatisfying(GraphException.class, e -> {
                        assertThat(e.error().code()).isEqualTo("Neo.ClientError.Statement.ArithmeticError");
                        assertThat(e.partial()).as("%s", sink).isNotNull();
                        assertThat(e.partial().columns()).containsExactly("y");
                        assertThat(e.partial().rows()).containsExactly(List.of(10L));
                    });
        }
    }

    /** The plan without its text form, which only the embedded sink has (Neo4j's Bolt server sends none). */
    static Map<String, Object> withoutText(Map<String, Object> plan) {
        if (plan == null) {
            return null;
        }
        assertThat(plan).containsKey("text");
        Map<String, Object> out = new java.util.LinkedHashMap<>(plan);
        out.remove("text");
        return out;
    }

    /** The operator types of a plan, depth first. */
    static List<Object> operators(Map<String, Object> plan) {
        List<Object> out = new java.util.ArrayList<>();
        out.add(plan.get("operatorType"));
        if (plan.get("children") instanceof List<?> children) {
            for (Object c : children) {
                @SuppressWarnings("unchecked")
                Map<String, Object> child = (Map<String, Object>) c;
                out.addAll(operators(child));
            }
        }
        return out;
    }

    @Test
    void errorsKeepNeo4jsCodesAndTheClientsPositions() {
        String bad = "MATCH (n RETURN n";
        GraphException viaBolt = thrown(() -> bolt.classify(bad));
        GraphException viaEmbedded = thrown(() -> embedded.classify(bad));
        assertThat(viaBolt.error()).isEqualTo(viaEmbedded.error());
        assertThat(viaBolt.error().code()).isEqualTo("Neo.ClientError.Statement.SyntaxError");

        GraphException missing = thrown(() -> bolt.inTransaction(tx -> tx.run("CREATE (n {a: $a})", Map.of())));
        assertThat(missing.error().code()).isEqualTo("Neo.ClientError.Statement.ParameterMissing");

        GraphException typeError = thrown(() -> bolt.inTransaction(tx -> tx.run("RETURN 1 - 'a'", Map.of())));
        assertThat(typeError.error().isClientError()).isTrue();
        assertThat(typeError.isTransient()).isFalse();
    }

    @Test
    void schemaAndCallInTransactionsRunAsAutoCommitStatements() throws Exception {
        bolt.runImplicit("CREATE CONSTRAINT sink_u IF NOT EXISTS FOR (u:SinkU) REQUIRE u.id IS UNIQUE", Map.of());
        StatementResult cit = bolt.runImplicit(
                "UNWIND range(1, 10) AS i CALL (i) { CREATE (:SinkCit {i: i}) } IN TRANSACTIONS OF 3 ROWS", Map.of());
        assertThat(cit.counters().get("nodes_created")).isEqualTo(10);
        bolt.inTransaction(tx -> tx.run("CREATE (:SinkU {id: 1})", Map.of()));
        GraphException dup = thrown(() -> bolt.inTransaction(tx -> tx.run("CREATE (:SinkU {id: 1})", Map.of())));
        assertThat(dup.error().code()).isEqualTo("Neo.ClientError.Schema.ConstraintValidationFailed");
        assertThat(count("MATCH (u:SinkU) RETURN count(u)")).as("the failed transaction rolled back").isEqualTo(1);
    }

    @Test
    void routingUrisWorkThroughTheDriverUnchanged() throws Exception {
        String routing = uri.replace("bolt://", "neo4j://");
        try (BoltSink viaRouting = BoltSink.connect(new BoltSink.Options(routing, null, null, "neo4j"), Duration.ofSeconds(10), Time.SYSTEM)) {
            viaRouting.inTransaction(tx -> tx.run("CREATE (:Routed)", Map.of()));
            assertThat(viaRouting.inReadTransaction(tx -> tx.run("MATCH (r:Routed) RETURN count(r)", Map.of())).rows())
                    .isEqualTo(List.of(List.of(1L)));
            assertThat(viaRouting.describe()).isEqualTo("bolt " + routing + " (Neo4j "
                    + org.neo4j.kernel.internal.Version.getNeo4jVersion() + ")");
            assertThat(viaRouting.isAvailable()).isTrue();
        }
    }

    @Test
    void anUnreachableServerIsATransientErrorAndUnavailable() throws Exception {
        String nowhere = "bolt://127.0.0.1:" + TestServer.freePort();
        GraphException atStart = thrown(() -> BoltSink.connect(new BoltSink.Options(nowhere, null, null, "neo4j"), Duration.ZERO, Time.SYSTEM));
        assertThat(atStart.isTransient()).isTrue();
        assertThat(atStart.error().message()).contains(nowhere);

        try (BoltSink down = new BoltSink(GraphDatabase.driver(nowhere, AuthTokens.none()), nowhere, "neo4j", Time.SYSTEM,
                32)) {
            GraphException e = thrown(() -> down.inTransaction(tx -> tx.run("CREATE ()", Map.of())));
            assertThat(e.error().code()).isEqualTo("Neo.TransientError.General.DatabaseUnavailable");
            assertThat(e.commitOutcomeUnknown()).as("it never got to commit").isFalse();
            assertThat(down.isAvailable()).isFalse();
        }
    }

    @Test
    void aConnectionLostWhileCommittingLeavesTheOutcomeUnknown() {
        GraphException e = BoltErrors.translate(new ServiceUnavailableException("connection reset"), true);
        assertThat(e.isTransient()).isTrue();
        assertThat(e.commitOutcomeUnknown()).isTrue();
        assertThat(e.error().message()).contains("may or may not have been committed");
        assertThat(BoltErrors.translate(new ServiceUnavailableException("connection reset"), false).commitOutcomeUnknown())
                .isFalse();
        assertThat(BoltErrors.translate(new IllegalStateException("no reply"), true).commitOutcomeUnknown()).isTrue();
    }

    @Test
    void anUnknownDatabaseFailsAtStartWithoutWaiting() {
        GraphException e = thrown(() -> BoltSink.connect(new BoltSink.Options(uri, null, null, "nosuchdb"), Duration.ofSeconds(30), Time.SYSTEM));
        assertThat(e.isTransient()).isFalse();
        assertThat(e.error().code()).isEqualTo("Neo.ClientError.Database.DatabaseNotFound");
    }

    static long count(String cypher) throws GraphException {
        return ((Number) embedded.inReadTransaction(tx -> tx.run(cypher, Map.of())).rows().getFirst().getFirst()).longValue();
    }

    @FunctionalInterface
    interface Failing {
        void run() throws Exception;
    }

    static GraphException thrown(Failing f) {
        try {
            f.run();
        } catch (GraphException e) {
            return e;
        } catch (Exception e) {
            throw new AssertionError("expected a GraphException, got " + e, e);
        }
        throw new AssertionError("expected a GraphException, nothing was thrown");
    }

    @Test
    void optionsRefuseWhatTheDriverWouldMisread() {
        assertThatThrownBy(() -> new BoltSink.Options("http://localhost:7474", null, null, "neo4j"))
                .hasMessageContaining("bolt://");
        assertThatThrownBy(() -> new BoltSink.Options("bolt://neo4j:secret@localhost", null, null, "neo4j"))
                .hasMessageContaining("--password");
    }
}
