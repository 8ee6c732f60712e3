package io.sluice.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.batch.Pending;
import io.sluice.time.Jitter;
import io.sluice.time.ManualTime;
import io.sluice.config.TemplateConfig;
import io.sluice.metrics.Metrics;
import io.sluice.vocab.Neo4jError;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.support.ForwardingSink;
import io.sluice.support.TestNeo4j;
import io.sluice.write.Outcome;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Retry and bisection against the real embedded Neo4j; transient failures injected by a sink decorator. */
class BatchRunnerTest {
    static TestNeo4j neo4j;
    static Template seq;

    /**
     * Passes everything to the real sink, but fails the next {@code failures} transactions transiently, the
     * transactions whose number (from 1) {@code failCall} accepts too, and commits the next {@code ambiguous}
     * ones but reports them as a connection lost while committing (as a Bolt sink would).
     */
    static final class FlakySink extends ForwardingSink {
        final AtomicInteger failures = new AtomicInteger();
        final AtomicInteger ambiguous = new AtomicInteger();
        final AtomicInteger calls = new AtomicInteger();
        volatile java.util.function.IntPredicate failCall = i -> false;

        FlakySink(Sink real) {
            super(real);
        }

        @Override
        public <T> T inTransaction(TxWork<T> work) throws GraphException {
            if (failures.getAndDecrement() > 0 | failCall.test(calls.incrementAndGet())) {
                throw new GraphException(new Neo4jError("Neo.TransientError.Transaction.DeadlockDetected",
                        "injected deadlock"), null);
            }
            T value = real.inTransaction(work);
            if (ambiguous.getAndDecrement() > 0) {
                throw new GraphException(new Neo4jError("Neo.TransientError.General.DatabaseUnavailable",
                        "injected: connection lost while committing"), null, true);
            }
            return value;
        }
    }

    static final class Counting implements Metrics {
        final AtomicInteger retries = new AtomicInteger();
        final AtomicInteger bisections = new AtomicInteger();
        final AtomicInteger batches = new AtomicInteger();

        @Override
        public void transientRetry(String code) {
            retries.incrementAndGet();
        }

        @Override
        public void bisection() {
            bisections.incrementAndGet();
        }

        @Override
        public void batchCommitted(int rows, int requests, long nanos) {
            batches.incrementAndGet();
        }
    }

    FlakySink sink;
    Counting metrics;
    ManualTime time;
    BatchRunner runner;

    @BeforeAll
    static void startNeo4j() throws Exception {
        neo4j = TestNeo4j.start("runner");
        neo4j.database().executeTransactionally("CREATE CONSTRAINT ev_key IF NOT EXISTS FOR (e:Ev) REQUIRE e.key IS UNIQUE");
        seq = Template.compile("ev", new TemplateConfig(
                "MERGE (k:Key {id: row.k}) CREATE (e:Ev {key: row.key, k: row.k, seq: row.seq})"
                        + " CREATE (k)-[:HAS]->(e) SET k.last = row.seq", List.of("k"), null));
    }

    @AfterAll
    static void stopNeo4j() {
        neo4j.close();
    }

    @BeforeEach
    void setUp() {
        neo4j.database().executeTransactionally("MATCH (n) DETACH DELETE n");
        sink = new FlakySink(neo4j.sink());
        metrics = new Counting();
        time = new ManualTime();
        // jitter fixed at 0.5: attempt n pauses 3/4 of min(10 ms * 2^(n-1), 25 ms)
        runner = new BatchRunner(sink, new RetryPolicy(5, Duration.ofMillis(10), Duration.ofMillis(25)), time,
                Jitter.fixed(0.5), metrics);
    }

    static Pending row(String key, long k, long seq) {
        return new Pending(new WriteRequest.TemplateRequest(BatchRunnerTest.seq,
                List.of(Map.of("key", key, "k", k, "seq", seq)), 50), 0);
    }

    /** The outcome apply gave {@code p}: it completes every future before it returns (else fail, not hang). */
    static Outcome outcome(Pending p) {
        assertThat(p.future()).as("completed by apply").isDone();
        return p.future().join();
    }

    long count(String cypher) {
        return neo4j.database().executeTransactionally(cypher, Map.of(), r -> (Long) r.next().values().iterator().next());
    }

    @Test
    void transientErrorsAreRetriedWithBackoffAndTheBatchCommitsOnce() {
        sink.failures.set(3);
        List<Pending> batch = List.of(row("a", 1, 1), row("b", 1, 2), row("c", 2, 1));
        runner.apply(batch);
        assertThat(batch).allSatisfy(p -> assertThat(outcome(p)).isInstanceOf(Outcome.Committed.class));
        assertThat(metrics.retries.get()).isEqualTo(3);
        assertThat(time.sleeps()).containsExactly(Duration.ofNanos(7_500_000), Duration.ofMillis(15),
                Duration.ofNanos(18_750_000)); // the third is capped at 25 ms before the jitter
        assertThat(count("MATCH (e:Ev) RETURN count(e)")).isEqualTo(3);
    }

    @Test
    void persistentTransientErrorsFailEveryRequestWithNothingApplied() {
        sink.failures.set(100);
        List<Pending> batch = List.of(row("a", 1, 1), row("b", 1, 2));
        runner.apply(batch);
        assertThat(batch).allSatisfy(p -> assertThat(((Outcome.Failed) outcome(p)).error().code())
                .isEqualTo("Neo.TransientError.Transaction.DeadlockDetected"));
        assertThat(metrics.retries.get()).isEqualTo(4);
        assertThat(count("MATCH (e:Ev) RETURN count(e)")).isZero();
    }

    @Test
    void bisectionIsolatesEveryBadRequestAndKeepsPerKeyOrder() {
        neo4j.database().executeTransactionally("CREATE (:Ev {key: 'taken1'}), (:Ev {key: 'taken2'})");
        List<Pending> batch = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String key = i == 13 ? "taken1" : i == 31 ? "taken2" : "e" + i;
            batch.add(row(key, i % 4, i));
        }
        runner.apply(batch);
        for (int i = 0; i < 40; i++) {
            Outcome o = outcome(batch.get(i));
            if (i == 13 || i == 31) {
                assertThat(o).isInstanceOf(Outcome.Failed.class);
                assertThat(((Outcome.Failed) o).error().code()).isEqualTo("Neo.ClientError.Schema.ConstraintValidationFailed");
            } else {
                assertThat(o).as("request %d", i).isInstanceOf(Outcome.Committed.class);
            }
        }
        assertThat(count("MATCH (e:Ev) WHERE e.key STARTS WITH 'e' RETURN count(e)")).isEqualTo(38);
        assertThat(metrics.bisections.get()).isPositive();
        // per key, the last write applied is the last one sent: halves are applied left to right
        for (long k = 0; k < 4; k++) {
            long last = 36 + k == 13 || 36 + k == 31 ? 32 + k : 36 + k;
            assertThat(count("MATCH (k:Key {id: " + k + "}) RETURN k.last")).isEqualTo(last);
        }
    }

    @Test
    void aCommitWhoseOutcomeIsUnknownIsNotRetriedSoItCannotApplyTwice() {
        sink.ambiguous.set(1); // it did commit; the runner cannot know
        List<Pending> batch = List.of(row("a", 1, 1), row("b", 1, 2), row("c", 2, 1));
        runner.apply(batch);
        assertThat(batch).allSatisfy(p -> {
            Outcome.Failed f = (Outcome.Failed) outcome(p);
            assertThat(f.error().isTransient()).isTrue();
        });
        assertThat(metrics.retries.get()).isZero();
        assertThat(count("MATCH (e:Ev) RETURN count(e)")).isEqualTo(3);
    }

    @Test
    void aHalfThatFailsTransientlyStopsTheRestOfTheBatch() {
        neo4j.database().executeTransactionally("CREATE (:Ev {key: 'taken'})");
        List<Pending> batch = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            batch.add(row(i == 6 ? "taken" : "e" + i, i % 2, i));
        }
        // call 1: the whole batch fails on the bad row; calls 2..6: the left half, transiently, every attempt
        sink.failCall = i -> i >= 2 && i <= 6;
        runner.apply(batch);
        assertThat(batch).allSatisfy(p -> assertThat(((Outcome.Failed) outcome(p)).error().code())
                .isEqualTo("Neo.TransientError.Transaction.DeadlockDetected"));
        assertThat(count("MATCH (e:Ev) WHERE e.key STARTS WITH 'e' RETURN count(e)"))
                .as("nothing after the failed half was applied: what commits is a prefix").isZero();
    }

    @Test
    void aSingleBadRequestIsNotRetried() {
        neo4j.database().executeTransactionally("CREATE (:Ev {key: 'dup'})");
        Pending p = row("dup", 1, 1);
        runner.apply(List.of(p));
        assertThat(outcome(p)).isInstanceOf(Outcome.Failed.class);
        assertThat(metrics.retries.get()).isZero();
        assertThat(metrics.batches.get()).isZero();
    }
}
