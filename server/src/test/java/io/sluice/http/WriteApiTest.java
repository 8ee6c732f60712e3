package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.Await;
import io.sluice.support.TestServer;
import io.sluice.write.Template;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.driver.Transaction;

/** The write endpoints over real HTTP against embedded Neo4j: group commit, isolation, formats, Bolt reads. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WriteApiTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String CONFIG = """
                templates:
                  person:
                    cypher: "CREATE (:Person {id: row.id, name: row.name})"
                    key: [id]
                    types: {id: integer}
                  visited:
                    cypher: "MERGE (u:User {id: row.user}) MERGE (s:Site {url: row.url}) MERGE (u)-[:VISITED]->(s)"
                    key: [user]
                schema:
                  - CREATE CONSTRAINT person_id IF NOT EXISTS FOR (p:Person) REQUIRE p.id IS UNIQUE
                  - CREATE CONSTRAINT user_id IF NOT EXISTS FOR (u:User) REQUIRE u.id IS UNIQUE
                  - CREATE CONSTRAINT site_url IF NOT EXISTS FOR (s:Site) REQUIRE s.url IS UNIQUE
                batch: {max_rows: 5000, max_wait: 20ms}
                # the appliers are held by writes waiting for a client's open transaction: set aside (the default,
                # after 20 ms) they would not hold anything, and the batches these tests build would never form
                apply: {set_aside_after: 0}
                """;
    /** One server for the class (instances per class); a subclass overrides {@link #startServer} for another sink. */
    TestServer s;

    @BeforeAll
    void start() throws Exception {
        s = startServer();
    }

    TestServer startServer() throws Exception {
        return TestServer.start(CONFIG, true);
    }

    @AfterAll
    void stop() throws Exception {
        try {
            if (s != null) {
                s.close();
            }
        } finally {
            afterServer();
        }
    }

    /** Runs after the server is closed, also when closing it failed. */
    void afterServer() throws Exception {}

    static JsonNode json(HttpResponse<String> r) throws Exception {
        return JSON.readTree(r.body());
    }

    /**
     * A template write reaches its handler three ways (TemplateWrites): a small body decoded on the
     * I/O thread, one over the inline bound decoded on a virtual thread, and a chunked one; each in each mode is
     * answered once, as the blocking path answered, and stored.
     */
    @Test
    void smallLargeAndChunkedTemplateBodiesAreAnsweredAndStoredInEveryMode() throws Exception {
        long id = 5_000_000L;
        for (String mode : List.of("sync", "async", "direct")) {
            var small = s.post("/db/neo4j/write/person?mode=" + mode, "{\"id\":" + id++ + ",\"name\":\"small\"}");
            assertThat(small.statusCode()).as(mode + " small").isEqualTo(mode.equals("async") ? 202 : 200);
            StringBuilder rows = new StringBuilder("[");
            long first = id;
            while (rows.length() <= TemplateWrites.INLINE_BODY) {
                rows.append(rows.length() > 1 ? "," : "").append("{\"id\":").append(id++).append(",\"name\":\"large\"}");
            }
            var large = s.post("/db/neo4j/write/person?mode=" + mode, rows.append(']').toString());
            assertThat(large.statusCode()).as(mode + " large").isEqualTo(mode.equals("async") ? 202 : 200);
            assertThat(json(large).get("rows").asLong()).isEqualTo(id - first);
            byte[] chunked = ("{\"id\":" + id++ + ",\"name\":\"chunked\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
            var viaStream = s.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(s.url(
                    "/db/neo4j/write/person?mode=" + mode))).header("Content-Type", "application/json")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofInputStream(
                            () -> new java.io.ByteArrayInputStream(chunked))).build()); // no length: chunked
            assertThat(viaStream.statusCode()).as(mode + " chunked").isEqualTo(mode.equals("async") ? 202 : 200);
            var bad = s.post("/db/neo4j/write/person?mode=" + mode, "{\"name\":\"no id\"}");
            assertThat(bad.statusCode()).as(mode + " a row without its key").isEqualTo(400);
        }
        long stored = id - 5_000_000L;
        Await.until("every acknowledged row stored, async ones applied", Duration.ofSeconds(30),
                () -> s.count("MATCH (p:Person) WHERE p.id >= 5000000 AND p.id < 6000000 RETURN count(p)") == stored);
    }

    @Test
    void sixtyFourConcurrentClientsEvery200IsInTheGraphAndNothingElse() throws Exception {
        int clients = 64;
        int perClient = 40;
        ConcurrentLinkedQueue<Long> acked = new ConcurrentLinkedQueue<>();
        AtomicInteger other = new AtomicInteger();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> fs = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int client = c;
                fs.add(pool.submit(() -> {
                    for (int i = 0; i < perClient; i++) {
                        long id = 1_000_000L + client * 1000L + i;
                        var r = s.post("/db/neo4j/write/person", "{\"id\":" + id + ",\"name\":\"c" + client + "\"}");
                        if (r.statusCode() == 200) {
                            acked.add(id);
                        } else {
                            other.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(50, TimeUnit.SECONDS);
            }
        }
        assertThat(other.get()).isZero();
        assertThat(acked).hasSize(clients * perClient);
        assertThat(s.count("MATCH (p:Person) WHERE p.id >= 1000000 AND p.id < 2000000 RETURN count(p)"))
                .isEqualTo(acked.size());
        long found = s.count("UNWIND $ids AS id MATCH (p:Person {id: id}) RETURN count(p)",
                java.util.Map.of("ids", List.copyOf(acked)));
        assertThat(found).isEqualTo(acked.size());
        String metrics = s.get("/metrics").body();
        assertThat(metrics).contains("sluice_batches_total");
        double batches = metric(metrics, "sluice_batches_total");
        assertThat(batches).as("group commit: far fewer transactions than writes").isLessThan(clients * perClient / 4.0);
    }

    static double metric(String scrape, String name) {
        return scrape.lines().filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    @Test
    void oneConstraintViolationInABatchFailsAloneAndTheOthersCommit() throws Exception {
        s.post("/db/neo4j/write/person", "{\"id\": 7, \"name\": \"first\"}");
        double bisectionsBefore = metric(s.get("/metrics").body(), "sluice_bisections_total");
        int n = 49;
        List<Future<HttpResponse<String>>> fs = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            try (HeldAppliers held = holdEveryApplier(pool)) {
                for (int i = 0; i < n; i++) {
                    long id = i == n / 2 ? 7 : 500 + i; // one duplicate of id 7 among good rows
                    fs.add(pool.submit(() -> s.post("/db/neo4j/write/person", "{\"id\":" + id + ",\"name\":\"x\"}")));
                }
                Await.until("the writes queued behind the held appliers", AWAIT,
                        () -> health().get("queued_rows").asLong() == n);
                assertThat(held.blockers).as("the appliers are still held").noneMatch(Future::isDone);
            } // released: each applier takes its partition's whole queue as one batch (49 rows < min_rows 50)
        }
        int ok = 0;
        HttpResponse<String> bad = null;
        for (var f : fs) {
            var r = f.get(AWAIT.toSeconds(), TimeUnit.SECONDS);
            if (r.statusCode() == 200) {
                ok++;
            } else {
                bad = r;
            }
        }
        assertThat(ok).isEqualTo(n - 1);
        assertThat(bad).isNotNull();
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(json(bad).at("/errors/0/code").asText()).isEqualTo("Neo.ClientError.Schema.ConstraintValidationFailed");
        assertThat(s.count("MATCH (p:Person) WHERE p.id >= 500 AND p.id < 600 RETURN count(p)")).isEqualTo(n - 1);
        assertThat(s.count("MATCH (p:Person {id: 7}) RETURN count(p)")).isEqualTo(1);
        assertThat(metric(s.get("/metrics").body(), "sluice_bisections_total"))
                .as("the bad row shared a batch with good ones and was bisected out").isGreaterThan(bisectionsBefore);
    }

    static final Duration AWAIT = Duration.ofSeconds(30);
    static final String HELD_SITE = "https://held";

    JsonNode health() {
        try {
            return JSON.readTree(s.get("/health").body());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Every applier held inside a transaction of its own, deterministically: a transaction of the test (over
     * Bolt, so against either sink) holds the write lock of one Site node, and each partition gets a
     * {@code visited} write that must lock that node to link a user to it. {@link HeldAppliers#close} rolls the
     * transaction back, and the blocked writes commit.
     */
    HeldAppliers holdEveryApplier(ExecutorService pool) throws Exception {
        assertThat(s.post("/db/neo4j/write/visited", "{\"user\": -1, \"url\": \"" + HELD_SITE + "\"}").statusCode())
                .isEqualTo(200);
        Template visited = s.server.writePath().template("visited").orElseThrow();
        int appliers = health().get("appliers").asInt();
        HeldAppliers held = new HeldAppliers(GraphDatabase.driver("bolt://" + s.bolt, AuthTokens.basic("neo4j", TestServer.PASSWORD)));
        try {
            held.tx.run("MATCH (s:Site {url: $url}) SET s.held = true", Map.of("url", HELD_SITE)).consume();
            // through sluice's Bolt listener the held transaction is an explicit one of sluice's, which holds a
            // pending row of its own; directly on a remote Neo4j it holds none
            long before = health().get("pending_rows").asLong();
            for (int partition = 0; partition < appliers; partition++) {
                long user = 800_000;
                while (visited.partition(Map.of("user", user), appliers) != partition) {
                    user++;
                }
                String body = "{\"user\": " + user + ", \"url\": \"" + HELD_SITE + "\"}";
                held.blockers.add(pool.submit(() -> s.post("/db/neo4j/write/visited", body)));
            }
            Await.until("every applier took its blocked write", AWAIT, () -> {
                JsonNode h = health();
                return h.get("queued_rows").asLong() == 0 && h.get("pending_rows").asLong() == before + appliers;
            });
            return held;
        } catch (Exception | AssertionError e) {
            held.close();
            throw e;
        }
    }

    static final class HeldAppliers implements AutoCloseable {
        final Driver driver;
        final Session session;
        final Transaction tx;
        final List<Future<HttpResponse<String>>> blockers = new ArrayList<>();

        HeldAppliers(Driver driver) {
            this.driver = driver;
            this.session = driver.session();
            this.tx = session.beginTransaction();
        }

        @Override
        public void close() {
            try (driver; session) {
                tx.rollback();
                for (var b : blockers) {
                    assertThat(b).as("a held write, released").succeedsWithin(AWAIT)
                            .satisfies(r -> assertThat(r.statusCode()).as(r.body()).isEqualTo(200));
                }
            }
        }
    }

    @Test
    void aRequestsStatementsCommitTogetherOrNotAtAll() throws Exception {
        s.post("/db/neo4j/write/person", "{\"id\": 7, \"name\": \"first\"}"); // exists now, if not before
        var r2 = s.post("/db/neo4j/tx/commit", """
                {"statements":[
                  {"statement":"CREATE (:Atomic {k: 2})"},
                  {"statement":"CREATE (:Person {id: 7, name: 'dup'})"}]}""");
        assertThat(r2.statusCode()).as("the classic API: 200 with errors, as Neo4j").isEqualTo(200);
        assertThat(r2.body()).contains("Neo.ClientError.Schema.ConstraintValidationFailed");
        assertThat(s.count("MATCH (a:Atomic {k: 2}) RETURN count(a)")).as("first statement rolled back").isZero();
    }

    @Test
    void classicAndQueryApiFormats() throws Exception {
        var r = s.post("/db/neo4j/tx/commit", """
                {"statements":[{"statement":"CREATE (n:Fmt {a: $a}) RETURN n, n.a AS a","parameters":{"a": 42},
                 "includeStats": true}]}""");
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode j = json(r);
        assertThat(j.at("/results/0/columns").toString()).isEqualTo("[\"n\",\"a\"]");
        assertThat(j.at("/results/0/data/0/row/0/a").asLong()).isEqualTo(42);
        assertThat(j.at("/results/0/data/0/meta/0/type").asText()).isEqualTo("node");
        assertThat(j.at("/results/0/stats/nodes_created").asInt()).isEqualTo(1);
        assertThat(j.at("/errors").size()).isZero();

        var q = s.post("/db/neo4j/query/v2", """
                {"statement":"MATCH (n:Fmt) RETURN n.a AS a, n","includeCounters": true}""");
        assertThat(q.statusCode()).as("the Query API answers 202, as Neo4j's").isEqualTo(202);
        JsonNode k = json(q);
        assertThat(k.at("/data/fields").toString()).isEqualTo("[\"a\",\"n\"]");
        assertThat(k.at("/data/values/0/0").asLong()).isEqualTo(42);
        assertThat(k.at("/data/values/0/1/labels/0").asText()).isEqualTo("Fmt");
        assertThat(k.at("/counters/containsUpdates").asBoolean()).isFalse();
    }

    @Test
    void directModeReadsAndRunAloneStatements() throws Exception {
        assertThat(s.post("/db/neo4j/write/person?mode=direct", "{\"id\": 900001, \"name\": \"d\"}").statusCode())
                .isEqualTo(200);
        assertThat(s.post("/db/neo4j/query/v2", """
                {"statement":"CREATE INDEX fmt_a IF NOT EXISTS FOR (f:Fmt) ON (f.a)"}""").statusCode()).isEqualTo(202);
        var cit = s.post("/db/neo4j/query/v2", """
                {"statement":"UNWIND range(1, 10) AS i CALL (i) { CREATE (:Cit {i: i}) } IN TRANSACTIONS OF 3 ROWS"}""");
        assertThat(cit.statusCode()).as(cit.body()).isEqualTo(202);
        assertThat(s.count("MATCH (c:Cit) RETURN count(c)")).isEqualTo(10);
        var read = s.post("/db/neo4j/query/v2", "{\"statement\":\"MATCH (c:Cit) RETURN count(c) AS n\"}");
        assertThat(json(read).at("/data/values/0/0").asLong()).isEqualTo(10);
    }

    @Test
    void theOfficialDriverReadsOverBoltWhatHttpWrote() {
        assertThat(s.post("/db/neo4j/write/visited", """
                [{"user": 1, "url": "https://a"}, {"user": 2, "url": "https://a"}]""").statusCode()).isEqualTo(200);
        try (Driver d = GraphDatabase.driver("bolt://" + s.bolt, AuthTokens.basic("neo4j", TestServer.PASSWORD));
                var session = d.session()) {
            long n = session.run("MATCH (:User)-[:VISITED]->(:Site {url: 'https://a'}) RETURN count(*) AS n")
                    .single().get("n").asLong();
            assertThat(n).isEqualTo(2);
        }
    }
}
