package io.sluice.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.batch.Pending;
import io.sluice.cypher.Coalescing;
import io.sluice.metrics.Metrics;
import io.sluice.sink.Sink;
import io.sluice.support.ForwardingSink;
import io.sluice.support.TestNeo4j;
import io.sluice.time.Jitter;
import io.sluice.time.ManualTime;
import io.sluice.vocab.Counter;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.QueryKind;
import io.sluice.vocab.StatementResult;
import io.sluice.write.Outcome;
import io.sluice.write.Statement;
import io.sluice.write.WriteRequest.CypherRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Raw requests of one statement coalesced into its {@code UNWIND ... CALL} form, against the real embedded Neo4j:
 * each batch runs twice, coalesced and as sent (the runner before coalescing), on the same starting graph, and
 * must leave the same graph and give every request the same answer; the statements the database saw show
 * whether it was coalesced.
 */
@Timeout(60)
class CoalescingTest {
    static TestNeo4j neo4j;

    /** Records every statement run inside a batch's transaction, and every plan asked for. */
    static final class Recording extends ForwardingSink {
        final List<String> statements = new CopyOnWriteArrayList<>();
        final AtomicInteger plans = new AtomicInteger();

        Recording(Sink real) {
            super(real);
        }

        @Override
        public <T> T inTransaction(TxWork<T> work) throws GraphException {
            return real.inTransaction(tx -> work.run(new SinkTx() {
                @Override
                public StatementResult run(String cypher, Map<String, Object> params) throws GraphException {
                    statements.add(cypher);
                    return tx.run(cypher, params);
                }

                @Override
                public void runDiscarding(String cypher, Map<String, Object> params) throws GraphException {
                    statements.add(cypher);
                    tx.runDiscarding(cypher, params);
                }
            }));
        }

        @Override
        public QueryKind classify(String cypher) throws GraphException {
            plans.incrementAndGet();
            return real.classify(cypher);
        }
    }

    Recording sink;
    BatchRunner coalescing;
    BatchRunner asSent;

    @BeforeAll
    static void startNeo4j() throws Exception {
        neo4j = TestNeo4j.start("coalescing");
        neo4j.database().executeTransactionally("CREATE CONSTRAINT ev_key IF NOT EXISTS FOR (e:Ev) REQUIRE e.key IS UNIQUE");
    }

    @AfterAll
    static void stopNeo4j() {
        neo4j.close();
    }

    @BeforeEach
    void setUp() {
        sink = new Recording(neo4j.sink());
        RetryPolicy retry = new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(5));
        coalescing = new BatchRunner(sink, retry, new ManualTime(), Jitter.fixed(0.5), Metrics.NONE, true,
                new Coalescing(sink, 100));
        asSent = new BatchRunner(sink, retry, new ManualTime(), Jitter.fixed(0.5), Metrics.NONE, true, null);
    }

    static Pending request(String statement, Map<String, Object> params) {
        return request(statement, params, false);
    }

    static Pending request(String statement, Map<String, Object> params, boolean counters) {
        return new Pending(new CypherRequest(List.of(new Statement(statement, params)), 20, counters), 0);
    }

    /** What one run left: every request's answer, as a client sees it, the graph, and the statements run. */
    record Run(List<String> answers, String graph, List<String> statements) {}

    /**
     * Runs the batch {@code make} builds on a graph {@code setup} makes, once coalesced and once as sent, with
     * {@code hooks}; returns both runs.
     */
    List<Run> both(String setup, Function<Integer, List<Pending>> make, BatchRunner.Hooks hooks) {
        List<Run> runs = new ArrayList<>();
        for (BatchRunner runner : List.of(coalescing, asSent)) {
            neo4j.database().executeTransactionally("MATCH (n) DETACH DELETE n");
            if (!setup.isEmpty()) {
                neo4j.database().executeTransactionally(setup);
            }
            List<Pending> batch = make.apply(0);
            sink.statements.clear();
            runner.apply(batch, hooks);
            runs.add(new Run(batch.stream().map(CoalescingTest::answer).toList(), graph(),
                    List.copyOf(sink.statements)));
        }
        return runs;
    }

    /** The answer as the HTTP APIs encode it: columns, rows, counters only when asked for; or the error. */
    static String answer(Pending p) {
        assertThat(p.future()).as("completed by apply").isDone();
        boolean counters = ((CypherRequest) p.request()).counters();
        return switch (p.future().join()) {
            case Outcome.Committed c -> "committed " + c.results().stream()
                    .map(r -> r.columns() + " " + r.rows() + (counters ? " " + r.counters() : "")).toList();
            // the node a constraint names is the same one, under the id of the run's graph
            case Outcome.Failed f -> "failed " + f.error().code() + ": "
                    + f.error().message().replaceAll("Node\\(\\d+\\)", "Node(id)");
            case Outcome o -> o.toString();
        };
    }

    /** Every node: its labels and properties, sorted. */
    static String graph() {
        return neo4j.database().executeTransactionally("MATCH (n) RETURN labels(n) AS l, properties(n) AS p", Map.of(),
                r -> {
                    List<String> nodes = new ArrayList<>();
                    r.forEachRemaining(row -> nodes.add(row.get("l") + " " + new java.util.TreeMap<>(
                            (Map<?, ?>) row.get("p"))));
                    nodes.sort(null);
                    return nodes.toString();
                });
    }

    static final String DIGIT = "MATCH (c:Counter) SET c.v = c.v * 10 + $d";

    @Test
    void requestsOfOneStatementRunAsOneInOrderEachSeeingTheOnesBefore() {
        List<Run> runs = both("CREATE (:Counter {v: 0})", x -> IntStream.rangeClosed(1, 9)
                .mapToObj(d -> request(DIGIT, Map.of("d", (long) d))).toList(), BatchRunner.Hooks.NONE);
        Run coalesced = runs.get(0);
        Run sent = runs.get(1);
        assertThat(coalesced.graph()).isEqualTo(sent.graph()).contains("v=123456789");
        assertThat(coalesced.answers()).isEqualTo(sent.answers()).containsOnly("committed [[] []]");
        assertThat(sent.statements()).hasSize(9);
        assertThat(coalesced.statements()).singleElement().asString()
                .startsWith("UNWIND $rows AS sluice_row CALL (sluice_row) {\nMATCH (c:Counter) SET c.v = c.v * 10 + sluice_row.d");
    }

    @Test
    void eachRequestKeepsTheScopeOfItsOwnStatement() {
        // a plain UNWIND would aggregate over all requests at once: one Made node, and LIMIT 1 over all of them
        String count = "MATCH (x:Item) WITH count(x) AS n CREATE (:Made {n: n, k: $k})";
        String limit = "MATCH (x:Item) WITH x ORDER BY x.id LIMIT 1 SET x.hits = coalesce(x.hits, 0) + $k";
        for (String statement : List.of(count, limit)) {
            List<Run> runs = both("UNWIND range(1, 3) AS i CREATE (:Item {id: i})", x -> IntStream.rangeClosed(1, 5)
                    .mapToObj(k -> request(statement, Map.of("k", (long) k))).toList(), BatchRunner.Hooks.NONE);
            assertThat(runs.get(0).graph()).as(statement).isEqualTo(runs.get(1).graph());
            assertThat(runs.get(0).answers()).isEqualTo(runs.get(1).answers());
            assertThat(runs.get(0).statements()).as("coalesced").hasSize(1);
        }
        assertThat(graph()).contains("hits=15"); // the last run, as sent: the first item got every k
    }

    @Test
    void aBadRequestAmongGoodOnesFailsAloneWithTheErrorItsOwnStatementGives() {
        String create = "CREATE (:Ev {key: $key, v: $v})";
        Function<Integer, List<Pending>> batch = x -> List.of(
                request(create, Map.of("key", "a", "v", 1L)),
                request(create, Map.of("key", "b", "v", 2L)),
                request(create, Map.of("key", "dup", "v", 3L)), // the unique constraint refuses it
                request(create, Map.of("key", "c", "v", Map.of("not", "a property value"))), // a type error
                request(create, Map.of("key", "d", "v", 5L)),
                request(create, Map.of("key", "e", "v", 6L)));
        List<Run> runs = both("CREATE (:Ev {key: 'dup'})", batch, BatchRunner.Hooks.NONE);
        Run coalesced = runs.get(0);
        assertThat(coalesced.answers()).isEqualTo(runs.get(1).answers());
        assertThat(coalesced.answers().get(2)).startsWith("failed Neo.ClientError.Schema.ConstraintValidationFailed");
        assertThat(coalesced.answers().get(3)).startsWith("failed Neo.ClientError.");
        assertThat(coalesced.answers()).filteredOn(a -> a.startsWith("committed")).hasSize(4);
        assertThat(coalesced.graph()).isEqualTo(runs.get(1).graph()).contains("key=a", "key=b", "key=d", "key=e")
                .doesNotContain("key=c");
        assertThat(coalesced.statements().getFirst()).as("the whole batch was tried coalesced first")
                .startsWith("UNWIND $rows");
    }

    @Test
    void requestsThatNeedTheirResultOrCannotBeCoalescedRunAsSent() {
        String create = "CREATE (:Ev {key: $key})";
        String returning = "CREATE (n:Ev {key: $key}) RETURN n.key AS key";
        String clock = "CREATE (:Ev {key: $key, at: datetime()})";
        String limit = "MATCH (n:Item) WITH n ORDER BY n.id LIMIT $n SET n.hits = coalesce(n.hits, 0) + 1";
        List<Run> runs = both("UNWIND range(1, 3) AS i CREATE (:Item {id: i})", x -> List.of(
                request(create, Map.of("key", "c1"), true), // counters asked for
                request(create, Map.of("key", "c2"), true),
                request(returning, Map.of("key", "r1")),
                request(returning, Map.of("key", "r2")),
                request(clock, Map.of("key", "t1")),
                request(clock, Map.of("key", "t2")),
                request(limit, Map.of("n", 1L)),
                request(limit, Map.of("n", 2L)),
                new Pending(new CypherRequest(List.of(new Statement(create, Map.of("key", "m1")),
                        new Statement(create, Map.of("key", "m2"))), 20, false), 0), // a request of two statements
                request(create, Map.of("key", "s1"))), BatchRunner.Hooks.NONE);
        assertThat(runs.get(0).statements()).as("nothing coalesced").isEqualTo(runs.get(1).statements()).hasSize(11);
        assertThat(runs.get(0).answers()).isEqualTo(runs.get(1).answers())
                .contains("committed [[key] [[r1]]]").first().asString().contains("nodes_created=1");
        assertThat(runs.get(0).graph().replaceAll("at=[^,}]*", ""))
                .isEqualTo(runs.get(1).graph().replaceAll("at=[^,}]*", ""));
    }

    @Test
    void onlyAdjacentRequestsAreCoalescedSoOrderAcrossStatementsHolds() {
        String hundred = "MATCH (c:Counter) SET c.v = c.v * 100 + $d";
        List<Run> runs = both("CREATE (:Counter {v: 0})", x -> List.of(request(DIGIT, Map.of("d", 1L)),
                request(DIGIT, Map.of("d", 2L)), request(hundred, Map.of("d", 34L)), request(DIGIT, Map.of("d", 5L)),
                request(DIGIT, Map.of("d", 6L))), BatchRunner.Hooks.NONE);
        assertThat(runs.get(0).graph()).isEqualTo(runs.get(1).graph()).contains("v=123456");
        assertThat(runs.get(0).statements()).hasSize(3); // 1-2 coalesced, 34 alone, 5-6 coalesced
    }

    @Test
    void asyncCoalescesAlsoWhereCountersWereAskedForNobodyReadsThem() {
        BatchRunner.Hooks async = new BatchRunner.Hooks() {
            @Override
            public boolean keepsResults() {
                return false;
            }
        };
        List<Run> runs = both("CREATE (:Counter {v: 0})", x -> IntStream.rangeClosed(1, 4)
                .mapToObj(d -> request(DIGIT, Map.of("d", (long) d), true)).toList(), async);
        assertThat(runs.get(0).graph()).isEqualTo(runs.get(1).graph()).contains("v=1234");
        assertThat(runs.get(0).statements()).hasSize(1);
    }

    @Test
    void aFormIsPlannedOnceAndSoIsAStatementWithout() {
        String returning = "CREATE (n:Ev {key: $key}) RETURN n.key AS key";
        neo4j.database().executeTransactionally("MATCH (n) DETACH DELETE n");
        for (int round = 0; round < 3; round++) {
            int r = round;
            coalescing.apply(IntStream.range(0, 4).mapToObj(i -> request("CREATE (:Ev {key: $key})",
                    Map.of("key", "k" + r + "-" + i))).toList());
            coalescing.apply(IntStream.range(0, 4).mapToObj(i -> request(returning,
                    Map.of("key", "r" + r + "-" + i))).toList());
        }
        assertThat(sink.plans.get()).as("one plan per statement text, none for the rounds after").isEqualTo(2);
        assertThat(sink.statements).hasSize(3 * (1 + 4));
    }

    @Test
    void theFormUsesAVariableTheStatementDoesNot() {
        String s = "MATCH (sluice_row:Counter) SET sluice_row.v = $d // a comment to the end";
        List<Run> runs = both("CREATE (:Counter {v: 0})", x -> List.of(request(s, Map.of("d", 1L)),
                request(s, Map.of("d", 2L))), BatchRunner.Hooks.NONE);
        assertThat(runs.get(0).statements()).singleElement().asString()
                .startsWith("UNWIND $rows AS sluice_row2 CALL (sluice_row2) {");
        assertThat(runs.get(0).graph()).isEqualTo(runs.get(1).graph()).contains("v=2");
    }
}
