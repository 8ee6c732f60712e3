package io.sluice.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.support.TestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;

/**
 * HTTP's explicit transactions grouped ({@code transactions.group: true}; by default, {@code managed}, they are not,
 * while drivers' managed transactions are) through the session layer, as Bolt's managed ones are: concurrent Query API and classic transactions share Neo4j transactions and commits, each
 * exactly once, reading its own writes; a rollback and a failing statement leave exactly the committed work. Each
 * figure is read from the server's metrics, so that a test passing without groups forming fails. A transaction a
 * group aborts is told a transient error (503, {@code Neo.TransientError.Transaction.Outdated}) and retried here as a
 * client would.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
class GroupedHttpTransactionsTest {
    static final String CONFIG = """
            schema:
              - CREATE CONSTRAINT http_item_k IF NOT EXISTS FOR (i:HttpItem) REQUIRE i.k IS UNIQUE
            transactions: {group: true, max_open: 64}
            """;
    static final int CLIENTS = 16;
    static final int EACH = 15;
    static final ObjectMapper JSON = new ObjectMapper();
    TestServer s;
    ExecutorService clients;

    @BeforeAll
    void start() {
        s = TestServer.start(CONFIG, false);
        clients = Executors.newFixedThreadPool(CLIENTS);
    }

    @AfterAll
    void stop() {
        clients.shutdownNow();
        if (s != null) {
            s.close();
        }
    }

    double groups() {
        return s.metric("sluice_group_members_count{outcome=\"committed\"}");
    }

    double members() {
        return s.metric("sluice_group_members_sum{outcome=\"committed\"}");
    }

    JsonNode json(HttpResponse<String> r) {
        try {
            return JSON.readTree(r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    HttpResponse<String> delete(String path) {
        return s.send(HttpRequest.newBuilder(URI.create(s.url(path))).DELETE().build());
    }

    /** Runs {@code clients} x {@code each} of {@code tx}, each retried while a group aborts it; the attempts made. */
    int concurrently(String prefix, TxAttempt tx) throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        List<Future<?>> done = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            int client = c;
            done.add(clients.submit(() -> {
                for (int i = 0; i < EACH; i++) {
                    String k = prefix + client + "-" + i;
                    int tries = 0;
                    while (true) {
                        attempts.incrementAndGet();
                        Boolean committed = tx.attempt(k, client * EACH + i);
                        if (committed != null) {
                            break;
                        }
                        assertThat(++tries).as("%s retried", k).isLessThan(50);
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        return attempts.get();
    }

    /** One attempt at a transaction of key {@code k} (the {@code n}th overall): true committed, false not, null retry. */
    @FunctionalInterface
    interface TxAttempt {
        Boolean attempt(String k, int n);
    }

    @Test
    void byDefaultOnlyDriversManagedTransactionsAreGroupedNotHttps() throws Exception {
        // transactions.group: managed, the default: an HTTP client has no transaction function, so nothing says it
        // retries a transaction told to: its transactions stay real ones; a driver's executeWrite is grouped
        try (TestServer d = TestServer.start("", true);
                Driver driver = GraphDatabase.driver("bolt://" + d.bolt, AuthTokens.basic("neo4j", TestServer.PASSWORD))) {
            double before = d.metric("sluice_group_members_sum{outcome=\"committed\"}");
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                int client = c;
                done.add(clients.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        HttpResponse<String> open = d.post("/db/neo4j/query/v2/tx", "{\"statement\": \"CREATE"
                                + " (:HttpDefault {k: $k})\", \"parameters\": {\"k\": \"h" + client + "-" + i + "\"}}");
                        assertThat(open.statusCode()).as(open.body()).isEqualTo(202);
                        String id = json(open).at("/transaction/id").asText();
                        HttpResponse<String> commit = d.post("/db/neo4j/query/v2/tx/" + id + "/commit", "{}");
                        assertThat(commit.statusCode()).as(commit.body()).isEqualTo(202);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            assertThat(d.count("MATCH (i:HttpDefault) RETURN count(i)")).isEqualTo(80);
            assertThat(d.metric("sluice_group_members_sum{outcome=\"committed\"}")).as("HTTP's not grouped")
                    .isEqualTo(before);
            done.clear();
            for (int c = 0; c < 8; c++) {
                int client = c;
                done.add(clients.submit(() -> {
                    try (Session session = driver.session()) {
                        for (int i = 0; i < 10; i++) {
                            String k = "b" + client + "-" + i;
                            session.executeWrite(tx -> tx.run("CREATE (:HttpDefault {k: $k})", Map.of("k", k))
                                    .consume());
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            assertThat(d.count("MATCH (i:HttpDefault) RETURN count(i)")).isEqualTo(160);
            assertThat(d.metric("sluice_group_members_sum{outcome=\"committed\"}") - before)
                    .as("the driver's managed transactions grouped").isPositive();
        }
    }

    @Test
    void queryApiTransactionsShareCommitsAndEachCommitsOnce() throws Exception {
        double groupsBefore = groups();
        double membersBefore = members();
        Map<String, Boolean> outcome = new ConcurrentHashMap<>();
        concurrently("q", (k, n) -> {
            HttpResponse<String> open = s.post("/db/neo4j/query/v2/tx", "{\"statement\": \"CREATE (i:HttpItem {k: $k})"
                    + " RETURN i.k AS k\", \"parameters\": {\"k\": \"" + k + "\"}}");
            if (open.statusCode() == 503) {
                assertThat(open.body()).contains("Neo.TransientError.");
                return null;
            }
            assertThat(open.statusCode()).as(open.body()).isEqualTo(202);
            JsonNode body = json(open);
            assertThat(body.at("/data/values/0/0").asText()).isEqualTo(k);
            String id = body.at("/transaction/id").asText();
            if (n % 10 == 3) { // some roll back
                assertThat(delete("/db/neo4j/query/v2/tx/" + id).statusCode()).isEqualTo(200);
                outcome.put(k, false);
                return false;
            }
            HttpResponse<String> commit = s.post("/db/neo4j/query/v2/tx/" + id + "/commit", "{}");
            if (commit.statusCode() == 503) {
                assertThat(commit.body()).contains("Neo.TransientError.");
                return null;
            }
            assertThat(commit.statusCode()).as(commit.body()).isEqualTo(202);
            outcome.put(k, true);
            return true;
        });
        long committed = outcome.values().stream().filter(b -> b).count();
        assertThat(s.count("MATCH (i:HttpItem) WHERE i.k STARTS WITH 'q' RETURN count(i)")).isEqualTo(committed);
        for (var e : outcome.entrySet()) {
            assertThat(s.count("MATCH (i:HttpItem {k: $k}) RETURN count(i)", Map.of("k", e.getKey())))
                    .as("%s", e.getKey()).isEqualTo(e.getValue() ? 1 : 0);
        }
        double groups = groups() - groupsBefore;
        double members = members() - membersBefore;
        assertThat(groups).as("groups committed").isPositive();
        assertThat(members).as("members committed in %s groups", groups).isGreaterThan(groups);
    }

    @Test
    void classicTransactionsShareCommitsAndFailuresStayTheirOwn() throws Exception {
        double groupsBefore = groups();
        double membersBefore = members();
        Map<String, Boolean> outcome = new ConcurrentHashMap<>();
        concurrently("c", (k, n) -> {
            // every 7th tries to create a key another transaction committed: a constraint violation
            String key = n % 7 == 5 && n > 0 ? "c-fixed" : k;
            HttpResponse<String> open = s.post("/db/neo4j/tx", "{\"statements\": [{\"statement\": \"CREATE (i:HttpItem"
                    + " {k: $k}) RETURN i.k\", \"parameters\": {\"k\": \"" + key + "\"}}]}");
            if (open.statusCode() == 503) {
                return null;
            }
            JsonNode body = json(open);
            JsonNode errors = body.get("errors");
            if (!errors.isEmpty()) {
                String code = errors.get(0).get("code").asText();
                if (code.startsWith("Neo.TransientError.")) {
                    return null;
                }
                assertThat(code).as(open.body()).isEqualTo("Neo.ClientError.Schema.ConstraintValidationFailed");
                assertThat(key).isEqualTo("c-fixed");
                return false;
            }
            assertThat(open.statusCode()).as(open.body()).isEqualTo(201);
            String commitUrl = body.get("commit").asText();
            HttpResponse<String> commit = s.send(HttpRequest.newBuilder(URI.create(commitUrl))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"statements\": []}"))
                    .header("Content-Type", "application/json").build());
            JsonNode committed = json(commit);
            if (!committed.get("errors").isEmpty()) {
                assertThat(committed.get("errors").get(0).get("code").asText()).as(commit.body())
                        .startsWith("Neo.TransientError.");
                return null;
            }
            outcome.put(key, true);
            return true;
        });
        assertThat(s.count("MATCH (i:HttpItem) WHERE i.k STARTS WITH 'c' RETURN count(i)"))
                .isEqualTo(outcome.size());
        assertThat(outcome).containsKey("c-fixed");
        assertThat(groups() - groupsBefore).as("groups committed").isPositive();
        assertThat(members() - membersBefore).isGreaterThan(groups() - groupsBefore);
    }

    /**
     * A transaction of two statements across requests: the first of its shape is aborted at its second statement
     * (its group had closed: closed groups run nothing, see TransactionGroups), told a transient error, and the shape
     * learned; its retry runs alone and reads its own write.
     */
    @Test
    void aTransactionOfSeveralStatementsIsToldToRetryOnceThenReadsItsOwnWrites() {
        for (int attempt = 1; ; attempt++) {
            HttpResponse<String> open = s.post("/db/neo4j/query/v2/tx",
                    "{\"statement\": \"CREATE (:HttpItem {k: 'own'})\"}");
            assertThat(open.statusCode()).as(open.body()).isEqualTo(202);
            String id = json(open).at("/transaction/id").asText();
            HttpResponse<String> read = s.post("/db/neo4j/query/v2/tx/" + id, "{\"statement\": \"MATCH (i:HttpItem {k:"
                    + " 'own'}) RETURN count(i) AS c\"}");
            if (attempt == 1 && read.statusCode() == 503) {
                assertThat(read.body()).contains("Neo.TransientError.Transaction.Outdated");
                assertThat(s.count("MATCH (i:HttpItem {k: 'own'}) RETURN count(i)")).as("rolled back").isZero();
                continue;
            }
            assertThat(read.statusCode()).as("attempt %s: %s", attempt, read.body()).isEqualTo(202);
            assertThat(json(read).at("/data/values/0/0").asInt()).isEqualTo(1);
            assertThat(s.count("MATCH (i:HttpItem {k: 'own'}) RETURN count(i)")).as("not committed yet").isZero();
            HttpResponse<String> commit = s.post("/db/neo4j/query/v2/tx/" + id + "/commit", "{}");
            assertThat(commit.statusCode()).as(commit.body()).isEqualTo(202);
            assertThat(s.count("MATCH (i:HttpItem {k: 'own'}) RETURN count(i)")).isEqualTo(1);
            return;
        }
    }
}
