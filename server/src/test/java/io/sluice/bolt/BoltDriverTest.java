package io.sluice.bolt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.support.BoltWire;
import io.sluice.support.TestServer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.neo4j.driver.AccessMode;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Config;
import org.neo4j.driver.Driver;
import org.neo4j.driver.EagerResult;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.NotificationClassification;
import org.neo4j.driver.NotificationSeverity;
import org.neo4j.driver.Record;
import org.neo4j.driver.Result;
import org.neo4j.driver.Session;
import org.neo4j.driver.SessionConfig;
import org.neo4j.driver.TransactionConfig;
import org.neo4j.driver.Value;
import org.neo4j.driver.Values;
import org.neo4j.driver.exceptions.AuthenticationException;
import org.neo4j.driver.exceptions.ClientException;
import org.neo4j.driver.summary.QueryType;
import org.neo4j.driver.summary.ResultSummary;
import org.neo4j.driver.types.Node;
import org.neo4j.driver.types.Path;
import org.neo4j.driver.types.Relationship;

/**
 * The official Java driver, unchanged, against sluice's own Bolt listener: {@code bolt://} and {@code neo4j://},
 * credentials, auto-commit writes (group-committed: their counters, their bookmark), managed and explicit
 * transactions, every value type there and back, errors with Neo4j's codes, RESET in a stream, paging, async
 * mode through transaction metadata, many concurrent sessions.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
class BoltDriverTest {
    static final String CONFIG = """
            schema:
              - CREATE CONSTRAINT bolt_person_id IF NOT EXISTS FOR (p:BoltPerson) REQUIRE p.id IS UNIQUE
            batch: {max_rows: 5000, max_wait: 20ms}
            transactions: {max_open: 4}
            """;
    TestServer s;
    Driver driver;

    @BeforeAll
    void start() {
        s = TestServer.start(CONFIG, true);
        driver = driver("bolt://" + s.bolt);
    }

    Driver driver(String uri) {
        return GraphDatabase.driver(uri, AuthTokens.basic("neo4j", TestServer.PASSWORD),
                Config.builder().withMaxConnectionPoolSize(64).build());
    }

    @AfterAll
    void stop() {
        if (driver != null) {
            driver.close();
        }
        if (s != null) {
            s.close();
        }
    }

    /**
     * {@code tx_metadata} reaches the Neo4j transaction: {@code CALL tx.getMetaData()} (a DBMS procedure, which a
     * read session may call, as on Neo4j) answers it in an auto-commit read, an explicit transaction and a managed
     * one (not grouped then: a group's transaction is everyone's); sluice's own key is not passed on.
     */
    @Test
    void transactionMetadataIsSetOnTheNeo4jTransaction() {
        Map<String, Object> meta = Map.of("app", "billing", "n", 7L);
        TransactionConfig config = TransactionConfig.builder().withMetadata(meta).build();
        try (Session read = driver.session(SessionConfig.builder().withDefaultAccessMode(AccessMode.READ).build())) {
            Result r = read.run("CALL tx.getMetaData()", config);
            assertThat(r.single().get(0).asMap()).isEqualTo(meta);
            assertThat(r.consume().queryType()).as("Neo4j's type of a DBMS procedure")
                    .isEqualTo(QueryType.SCHEMA_WRITE);
        }
        try (Session session = driver.session(); var tx = session.beginTransaction(config)) {
            assertThat(tx.run("CALL tx.getMetaData()").single().get(0).asMap()).isEqualTo(meta);
            tx.commit();
        }
        try (Session session = driver.session()) {
            Map<String, Object> seen = session.executeWrite(tx -> {
                tx.run("MERGE (:BoltMeta {k: 1})").consume();
                return tx.run("CALL tx.getMetaData()").single().get(0).asMap();
            }, config);
            assertThat(seen).isEqualTo(meta);
            Map<String, Object> withOurs = new HashMap<>(meta);
            withOurs.put("sluice", Map.of("counters", true));
            assertThat(session.run("CALL tx.getMetaData()", TransactionConfig.builder().withMetadata(withOurs).build())
                    .single().get(0).asMap()).as("sluice's own key is sluice's").isEqualTo(meta);
        }
    }

    /**
     * A read that fails while its rows are produced streams the rows before the failure, then the error, as Neo4j
     * does; the same read discarded unread is never run (Neo4j's lazy DISCARD): no error.
     */
    @Test
    void aRuntimeErrorComesAfterTheRowsBeforeIt() throws Exception {
        try (Session session = driver.session()) {
            Result r = session.run("UNWIND [1, 0, 2] AS x RETURN 10 / x AS y");
            assertThat(r.keys()).containsExactly("y");
            assertThat(r.next().get("y").asLong()).isEqualTo(10);
            assertThatThrownBy(r::next).isInstanceOf(ClientException.class)
                    .hasFieldOrPropertyWithValue("code", "Neo.ClientError.Statement.ArithmeticError");
            assertThat(session.run("RETURN 1 AS one").single().get("one").asInt()).as("the session goes on").isEqualTo(1);
        }
        // discarded unread (the Java driver pulls at once; neo4rs sends RUN with DISCARD): Neo4j never runs it
        try (BoltWire w = BoltWire.connect(s.bolt.host(), s.bolt.port())) {
            w.handshake(BoltWire.version(5, 4, 4));
            w.send(BoltWire.hello(Map.of()), BoltWire.logon("neo4j", TestServer.PASSWORD),
                    BoltWire.run("UNWIND [1, 0, 2] AS x RETURN 10 / x AS y"), BoltWire.discard(-1, -1));
            w.receive();
            w.receive();
            assertThat((int) w.receive().tag()).as("RUN").isEqualTo(BoltWire.SUCCESS);
            PackStream.Struct discarded = w.receive();
            assertThat((int) discarded.tag()).as("DISCARD: %s", discarded).isEqualTo(BoltWire.SUCCESS);
            assertThat(BoltWire.meta(discarded)).containsEntry("type", "r");
        }
        // in a transaction sluice has run the read at its RUN, and its failure ended the transaction: the DISCARD
        // reports it (Neo4j would not have run the read), so that no COMMIT can pretend the writes before it held
        try (Session session = driver.session(); var tx = session.beginTransaction()) {
            tx.run("CREATE (:BoltDiscarded)").consume();
            assertThatThrownBy(() -> tx.run("UNWIND [0] AS x RETURN 1 / x").consume())
                    .isInstanceOf(ClientException.class)
                    .hasFieldOrPropertyWithValue("code", "Neo.ClientError.Statement.ArithmeticError");
        }
        assertThat(s.count("MATCH (n:BoltDiscarded) RETURN count(n)")).isZero();
        // pulled in a transaction: the rows before the failure, then the failure, which ends the transaction
        try (Session session = driver.session(); var tx = session.beginTransaction()) {
            tx.run("CREATE (:BoltStreamedThenFailed)").consume();
            Result r = tx.run("UNWIND [1, 0, 2] AS x RETURN 10 / x AS y");
            assertThat(r.keys()).containsExactly("y");
            assertThat(r.next().get("y").asLong()).isEqualTo(10);
            assertThatThrownBy(r::next).isInstanceOf(ClientException.class)
                    .hasFieldOrPropertyWithValue("code", "Neo.ClientError.Statement.ArithmeticError");
            assertThatThrownBy(tx::commit).as("the failure ended the transaction").isInstanceOf(ClientException.class);
        }
        assertThat(s.count("MATCH (n:BoltStreamedThenFailed) RETURN count(n)")).isZero();
    }

    /**
     * A statement's notifications and plan are its own Neo4j result's: a cartesian product's warning and the plan
     * of an EXPLAIN, the profile of a PROFILE with its rows, operators named as Neo4j's server names them.
     */
    @Test
    @SuppressWarnings("deprecation") // plan() and profile(): what the driver still reads them with
    void notificationsAndPlansAreNeo4js() {
        try (Session session = driver.session()) {
            ResultSummary explained = session.run("EXPLAIN MATCH (a:BoltNoSuchA), (b:BoltNoSuchB) RETURN a, b")
                    .consume();
            assertThat(explained.gqlStatusObjects()).extracting(g -> g.gqlStatus())
                    .contains("01N50", "03N90", "00001");
            assertThat(explained.hasPlan()).isTrue();
            assertThat(explained.hasProfile()).isFalse();
            assertThat(explained.plan().operatorType()).endsWith("@neo4j");
            ResultSummary profiled = session.run("PROFILE UNWIND range(1, 5) AS i RETURN i").consume();
            assertThat(profiled.hasProfile()).isTrue();
            assertThat(profiled.profile().records()).isEqualTo(5);
            ResultSummary plain = session.run("RETURN 1 AS one").consume();
            assertThat(plain.hasPlan()).isFalse();
            assertThat(plain.gqlStatusObjects()).extracting(g -> g.gqlStatus()).containsExactly("00000");
        }
        // the filters a session asks for, as Neo4j applies them: a classification left out, then none at all
        try (Session session = driver.session(SessionConfig.builder().withDisabledNotificationClassifications(
                Set.of(NotificationClassification.PERFORMANCE)).build())) {
            assertThat(session.run("EXPLAIN MATCH (a:BoltNoSuchA), (b:BoltNoSuchB) RETURN a, b").consume()
                    .gqlStatusObjects()).extracting(g -> g.gqlStatus()).contains("01N50").doesNotContain("03N90");
        }
        try (Session session = driver.session(SessionConfig.builder().withMinimumNotificationSeverity(
                NotificationSeverity.OFF).build())) {
            assertThat(session.run("EXPLAIN MATCH (a:BoltNoSuchA), (b:BoltNoSuchB) RETURN a, b").consume()
                    .gqlStatusObjects()).extracting(g -> g.gqlStatus()).containsExactly("00001");
        }
    }

    @Test
    void autoCommitWriteReportsItsCountersAndIsVisible() {
        try (Session session = driver.session()) {
            ResultSummary sum = session.run("CREATE (:BoltPerson {id: $id, name: $name})",
                    Map.of("id", 1, "name", "ada")).consume();
            assertThat(sum.counters().nodesCreated()).isEqualTo(1);
            assertThat(sum.counters().propertiesSet()).isEqualTo(2);
            assertThat(sum.counters().labelsAdded()).isEqualTo(1);
            assertThat(sum.queryType().name()).isEqualTo("WRITE_ONLY");
            Record r = session.run("MATCH (p:BoltPerson {id: 1}) RETURN p.name AS name").single();
            assertThat(r.get("name").asString()).isEqualTo("ada");
        }
    }

    @Test
    void anExplainNeedsNoParametersAndWritesNothingEvenInAReadSession() {
        // what the Spark connector sends to learn a query's columns, as Neo4j plans it: nothing runs
        try (Session read = driver.session(SessionConfig.builder().withDefaultAccessMode(AccessMode.READ).build())) {
            var r = read.run("EXPLAIN WITH $scriptResult AS scriptResult MERGE (n:BoltExplained {id: scriptResult})"
                    + " RETURN n.id AS id");
            assertThat(r.keys()).containsExactly("id");
            assertThat(r.list()).isEmpty();
        }
        // and in a read transaction, explicit or managed, as Neo4j plans it there too
        try (Session read = driver.session(SessionConfig.builder().withDefaultAccessMode(AccessMode.READ).build())) {
            try (var tx = read.beginTransaction()) {
                assertThat(tx.run("EXPLAIN CREATE (n:BoltExplained) RETURN n").keys()).containsExactly("n");
                assertThat(tx.run("RETURN 1 AS one").single().get("one").asInt()).as("it goes on").isEqualTo(1);
                tx.commit();
            }
            List<String> keys = read.executeRead(tx -> tx.run("EXPLAIN MERGE (n:BoltExplained {id: 1}) RETURN n")
                    .keys());
            assertThat(keys).containsExactly("n");
        }
        try (Session session = driver.session()) {
            assertThat(session.run("MATCH (n:BoltExplained) RETURN count(n) AS c").single().get("c").asLong())
                    .isZero();
        }
    }

    @Test
    void managedTransactionsCommitAndReadTheirOwnWrites() {
        try (Session session = driver.session()) {
            long n = session.executeWrite(tx -> {
                tx.run("CREATE (:BoltPerson {id: 2})").consume();
                return tx.run("MATCH (p:BoltPerson {id: 2}) RETURN count(p) AS n").single().get("n").asLong();
            });
            assertThat(n).isEqualTo(1);
            long seen = session.executeRead(tx -> tx.run("MATCH (p:BoltPerson {id: 2}) RETURN count(p) AS n")
                    .single().get("n").asLong());
            assertThat(seen).isEqualTo(1);
        }
        EagerResult e = driver.executableQuery("CREATE (p:BoltPerson {id: $id}) RETURN p.id AS id")
                .withParameters(Map.of("id", 3)).execute();
        assertThat(e.records()).extracting(r -> r.get("id").asLong()).containsExactly(3L);
        assertThat(e.summary().counters().nodesCreated()).isEqualTo(1);
    }

    @Test
    void bookmarksAreNeo4jsAndAMalformedOneIsRefused() {
        org.neo4j.driver.Bookmark last;
        try (Session session = driver.session()) {
            session.run("CREATE (:BoltPerson {id: 5})").consume();
            last = session.lastBookmarks().iterator().next();
        }
        assertThat(last.value()).as("Neo4j's form: FB: and base64").matches("FB:[A-Za-z0-9+/=]+");
        try (Session session = driver.session(SessionConfig.builder().withBookmarks(last).build())) {
            long n = session.executeRead(tx -> tx.run("MATCH (p:BoltPerson {id: 5}) RETURN count(p) AS n")
                    .single().get("n").asLong());
            assertThat(n).isEqualTo(1);
        }
        try (Session session = driver.session(SessionConfig.builder()
                .withBookmarks(org.neo4j.driver.Bookmark.from("garbage")).build())) {
            assertThatThrownBy(() -> session.executeRead(tx -> tx.run("RETURN 1").consume()))
                    .isInstanceOf(ClientException.class)
                    .satisfies(e -> assertThat(((ClientException) e).code())
                            .isEqualTo("Neo.ClientError.Transaction.InvalidBookmark"));
        }
    }

    @Test
    void rolledBackTransactionLeavesNothing() {
        try (Session session = driver.session(); var tx = session.beginTransaction()) {
            tx.run("CREATE (:BoltPerson {id: 4})").consume();
            tx.rollback();
        }
        try (Session session = driver.session()) {
            assertThat(session.run("MATCH (p:BoltPerson {id: 4}) RETURN count(p) AS n").single().get("n").asLong())
                    .isZero();
        }
    }

    @Test
    void everyValueTypeRoundTrips() {
        Map<String, Object> values = new java.util.LinkedHashMap<>();
        values.put("i", 42L);
        values.put("f", 1.5);
        values.put("s", "héllo");
        values.put("b", true);
        values.put("n", null);
        values.put("l", List.of(1L, 2L, 3L));
        values.put("m", Map.of("k", "v"));
        values.put("bytes", new byte[] {1, 2, 3});
        values.put("date", LocalDate.of(2024, 2, 29));
        values.put("time", OffsetTime.of(12, 34, 56, 789, ZoneOffset.ofHours(2)));
        values.put("localtime", LocalTime.of(1, 2, 3, 4));
        values.put("datetime", OffsetDateTime.of(2024, 2, 29, 12, 34, 56, 7, ZoneOffset.ofHours(-5)));
        values.put("zoned", ZonedDateTime.of(2024, 7, 1, 8, 0, 0, 0, ZoneId.of("Europe/Stockholm")));
        values.put("local", LocalDateTime.of(2024, 2, 29, 1, 2, 3, 4));
        try (Session session = driver.session()) {
            Record r = session.run("RETURN $v AS v, duration('P1Y2M3DT4H5M6.7S') AS d,"
                    + " point({x: 1.0, y: 2.0}) AS p2, point({longitude: 18.0, latitude: 59.3, height: 10.0}) AS p3,"
                    + " $d AS din, $p AS pin", Map.of("v", values, "d", Values.isoDuration(1, 2, 3, 4).asIsoDuration(),
                    "p", Values.point(7203, 1.0, 2.0).asPoint())).single();
            Map<String, Object> back = r.get("v").asMap();
            values.forEach((k, v) -> {
                if (v instanceof byte[] b) {
                    assertThat((byte[]) back.get(k)).as(k).containsExactly(b);
                } else if (v instanceof OffsetDateTime o) { // the driver gives a fixed offset as a ZonedDateTime
                    assertThat(((ZonedDateTime) back.get(k)).toOffsetDateTime()).as(k).isEqualTo(o);
                } else {
                    assertThat(back.get(k)).as(k).isEqualTo(v);
                }
            });
            assertThat(r.get("d").asIsoDuration().months()).isEqualTo(14);
            assertThat(r.get("d").asIsoDuration().seconds()).isEqualTo(4 * 3600 + 5 * 60 + 6);
            assertThat(r.get("p2").asPoint().x()).isEqualTo(1.0);
            assertThat(r.get("p3").asPoint().srid()).isEqualTo(4979);
            assertThat(r.get("p3").asPoint().z()).isEqualTo(10.0);
            assertThat(r.get("din").asIsoDuration().nanoseconds()).isEqualTo(4);
            assertThat(r.get("pin").asPoint().srid()).isEqualTo(7203);
        }
    }

    @Test
    void nodesRelationshipsAndPathsComeBackWhole() {
        try (Session session = driver.session()) {
            Record r = session.run("CREATE p = (a:BoltA {name: 'a'})-[k:KNOWS {since: 2020}]->(b:BoltB {name: 'b'})"
                    + "<-[:LIKES]-(c:BoltA {name: 'c'}) RETURN a, k, p").single();
            Node a = r.get("a").asNode();
            Relationship k = r.get("k").asRelationship();
            Path p = r.get("p").asPath();
            assertThat(a.labels()).containsExactly("BoltA");
            assertThat(a.elementId()).isNotEmpty();
            assertThat(k.type()).isEqualTo("KNOWS");
            assertThat(k.startNodeElementId()).isEqualTo(a.elementId());
            assertThat(k.get("since").asLong()).isEqualTo(2020);
            assertThat(p.length()).isEqualTo(2);
            List<String> names = new ArrayList<>();
            p.nodes().forEach(n -> names.add(n.get("name").asString()));
            assertThat(names).containsExactly("a", "b", "c");
            List<String> types = new ArrayList<>();
            p.relationships().forEach(x -> types.add(x.type()));
            assertThat(types).containsExactly("KNOWS", "LIKES");
            assertThat(p.end().get("name").asString()).isEqualTo("c");
        }
    }

    @Test
    void errorsCarryNeo4jsCodesAndLeaveTheSessionUsable() {
        try (Session session = driver.session()) {
            assertThatThrownBy(() -> session.run("CREATE (:BoltPerson {id: 100)").consume())
                    .isInstanceOf(ClientException.class)
                    .satisfies(e -> assertThat(((ClientException) e).code())
                            .isEqualTo("Neo.ClientError.Statement.SyntaxError"));
            session.run("CREATE (:BoltPerson {id: 101})").consume();
            assertThatThrownBy(() -> session.run("CREATE (:BoltPerson {id: 101})").consume())
                    .isInstanceOf(ClientException.class)
                    .satisfies(e -> assertThat(((ClientException) e).code())
                            .isEqualTo("Neo.ClientError.Schema.ConstraintValidationFailed"));
            assertThat(session.run("RETURN 1 AS one").single().get("one").asInt()).isEqualTo(1);
        }
    }

    @Test
    void wrongPasswordIsRefused() {
        try (Driver bad = GraphDatabase.driver("bolt://" + s.bolt, AuthTokens.basic("neo4j", "wrong-password"))) {
            assertThatThrownBy(bad::verifyConnectivity).isInstanceOf(AuthenticationException.class);
        }
    }

    @Test
    void routingDriverStaysOnSluice() {
        try (Driver routing = driver("neo4j://" + s.bolt); Session session = routing.session()) {
            session.executeWrite(tx -> tx.run("CREATE (:BoltPerson {id: 200})").consume());
            assertThat(session.run("MATCH (p:BoltPerson {id: 200}) RETURN count(p) AS n").single().get("n").asLong())
                    .isEqualTo(1);
        }
    }

    @Test
    void largeResultIsPulledInPagesAndResetMidStreamRecovers() {
        try (Session session = driver.session(SessionConfig.builder().withFetchSize(100).build())) {
            Result r = session.run("UNWIND range(1, 5000) AS i RETURN i");
            long count = 0;
            long sum = 0;
            while (r.hasNext()) {
                sum += r.next().get("i").asLong();
                count++;
            }
            assertThat(count).isEqualTo(5000);
            assertThat(sum).isEqualTo(5000L * 5001 / 2);
        }
        try (Session session = driver.session(SessionConfig.builder().withFetchSize(10).build())) {
            try (var tx = session.beginTransaction()) {
                Result r = tx.run("UNWIND range(1, 1000) AS i RETURN i");
                assertThat(r.next().get("i").asLong()).isEqualTo(1);
                // closing the transaction with its result half read: the driver resets or discards
            }
            assertThat(session.run("RETURN 2 AS two").single().get("two").asInt()).isEqualTo(2);
        }
    }

    @Test
    void asyncModeThroughTransactionMetadata() {
        try (Session session = driver.session()) {
            ResultSummary sum = session.run("CREATE (:BoltPerson {id: 300})", TransactionConfig.builder()
                    .withMetadata(Map.of("sluice", Map.of("mode", "async"))).build()).consume();
            assertThat(sum.counters().nodesCreated()).as("applied later: no counters").isZero();
        }
        // the only async write of this server: journal offset 0
        assertThat(s.get("/db/neo4j/applied?offset=0&wait=30s").body()).contains("\"applied\":true");
        try (Session session = driver.session()) {
            assertThat(session.run("MATCH (p:BoltPerson {id: 300}) RETURN count(p) AS n").single().get("n").asLong())
                    .isEqualTo(1);
        }
    }

    @Test
    void moreManagedSessionsThanPlacesTakeTurnsWithoutRefusals() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<Long>> done = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                int base = 30_000 + t * 100;
                done.add(pool.submit(() -> {
                    long created = 0;
                    try (Session session = driver.session()) {
                        for (int i = 0; i < 10; i++) {
                            int id = base + i;
                            created += session.executeWrite(tx -> tx.run("CREATE (:BoltPerson {id: $id})",
                                    Map.of("id", id)).consume().counters().nodesCreated());
                        }
                    }
                    return created;
                }));
            }
            long total = 0;
            for (Future<Long> f : done) {
                total += f.get();
            }
            assertThat(total).isEqualTo(160);
        } finally {
            pool.shutdownNow();
        }
        // 16 sessions, 4 places: each BEGIN waited for a place; none was refused (a refusal sends a driver into
        // its retry backoff)
        assertThat(s.get("/metrics").body()).contains("sluice_bolt_failures_total{code="
                + "\"Neo.TransientError.Transaction.MaximumTransactionLimitReached\"} 0.0");
    }

    @Test
    void aClientThatReadsNoCountersMaySaySo() {
        try (Session session = driver.session()) {
            // the write path may coalesce it with others (then its summary has no stats); alone, it runs as sent
            session.run("CREATE (:BoltPerson {id: $id})", Map.of("id", 400), TransactionConfig.builder()
                    .withMetadata(Map.of("sluice", Map.of("counters", false))).build()).consume();
            assertThatThrownBy(() -> session.run("RETURN 1", TransactionConfig.builder()
                    .withMetadata(Map.of("sluice", Map.of("mode", 7))).build()).consume())
                    .as("sluice's metadata is checked").isInstanceOf(ClientException.class)
                    .hasMessageContaining("tx_metadata.sluice.mode must be a string");
            assertThat(session.run("MATCH (p:BoltPerson {id: 400}) RETURN count(p) AS n").single().get("n").asLong())
                    .isEqualTo(1);
        }
    }

    @Test
    void manyConcurrentSessionsAllCommit() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(32);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < 32; t++) {
                int base = 10_000 + t * 100;
                done.add(pool.submit(() -> {
                    int created = 0;
                    try (Session session = driver.session()) {
                        for (int i = 0; i < 50; i++) {
                            created += session.run("CREATE (:BoltPerson {id: $id})", Map.of("id", base + i))
                                    .consume().counters().nodesCreated();
                        }
                    }
                    return created;
                }));
            }
            int total = 0;
            for (Future<Integer> f : done) {
                total += f.get();
            }
            assertThat(total).isEqualTo(32 * 50);
        } finally {
            pool.shutdownNow();
        }
        try (Session session = driver.session()) {
            Value n = session.run("MATCH (p:BoltPerson) WHERE p.id >= 10000 AND p.id < 20000 RETURN count(p) AS n")
                    .single().get("n");
            assertThat(n.asLong()).isEqualTo(32 * 50);
        }
    }
}
