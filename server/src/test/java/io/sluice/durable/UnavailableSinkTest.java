package io.sluice.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.apply.RetryPolicy;
import io.sluice.time.Time;
import io.sluice.config.TemplateConfig;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.vocab.Neo4jError;
import io.sluice.sink.Sink;
import io.sluice.vocab.GraphException;
import io.sluice.support.Await;
import io.sluice.support.ForwardingSink;
import io.sluice.support.TestServer;
import io.sluice.write.Outcome;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The database being unavailable loses nothing: the journal keeps accepting up to the lag bound, the applier
 * retries with backoff, and when the database is back every write is applied exactly once.
 */
@Timeout(120) // each test starts embedded Neo4j and waits up to 30 s twice
class UnavailableSinkTest {
    Path dir;
    EmbeddedNeo4j neo4j;

    /** The real embedded sink, whose write transactions fail as "database unavailable" while {@code down}. */
    static final class SwitchableSink extends ForwardingSink {
        final AtomicBoolean down = new AtomicBoolean();
        final AtomicInteger refused = new AtomicInteger();
        /** Commit the next this many write transactions, but report each as a connection lost while committing. */
        final AtomicInteger ambiguous = new AtomicInteger();

        SwitchableSink(Sink real) {
            super(real);
        }

        @Override
        public <T> T inTransaction(TxWork<T> work) throws GraphException {
            if (down.get()) {
                refused.incrementAndGet();
                throw new GraphException(new Neo4jError("Neo.TransientError.General.DatabaseUnavailable",
                        "injected: database unavailable"), null);
            }
            T value = real.inTransaction(work);
            if (ambiguous.getAndDecrement() > 0) {
                throw new GraphException(new Neo4jError("Neo.TransientError.General.DatabaseUnavailable",
                        "injected: connection lost while committing"), null, true);
            }
            return value;
        }

        @Override
        public boolean isAvailable() {
            return !down.get();
        }
    }

    @AfterEach
    void cleanUp() {
        if (neo4j != null) {
            neo4j.close();
        }
        TestServer.deleteRecursively(dir);
    }

    @Test
    void writesAreKeptWhileTheDatabaseIsDownAndAppliedOnceWhenItIsBack() throws Exception {
        dir = Files.createTempDirectory("sluice-unavailable-");
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir.resolve("db"), null, 64L << 20, 0, "neo4j"));
        SwitchableSink sink = new SwitchableSink(neo4j.sink());
        Template item = Template.compile("item", new TemplateConfig("CREATE (:Item {id: row.id})", List.of("id"), null));
        AsyncPath.Options o = new AsyncPath.Options(dir.resolve("journal"), dir.resolve("dead"), 20, 1 << 20, 1 << 20,
                Duration.ofMillis(200));
        try (AsyncPath async = AsyncPath.start(o, sink, Map.of("item", item), Time.SYSTEM,
                Thread.ofPlatform().name("test-journal-applier").factory(), io.sluice.support.Appliers.parts(sink,
                        new RetryPolicy(Integer.MAX_VALUE, Duration.ofMillis(5), Duration.ofMillis(50)), 1000))) {
            sink.down.set(true); // after start, which reads the offset; the journal is empty until the submits below
            long last = -1;
            for (long id = 0; id < 20; id++) {
                Outcome out = async.submit(new WriteRequest.TemplateRequest(item, List.of(Map.of("id", id)), 10));
                assertThat(out).isInstanceOf(Outcome.Accepted.class);
                last = ((Outcome.Accepted) out).offset();
            }
            Outcome full = async.submit(new WriteRequest.TemplateRequest(item, List.of(Map.of("id", 99L)), 10));
            assertThat(full).as("the lag bound holds while the database is down").isInstanceOf(Outcome.Overloaded.class);
            Await.until("the applier retries against the unavailable database", Duration.ofSeconds(30),
                    () -> sink.refused.get() >= 3);
            assertThat(count()).isZero();

            sink.down.set(false);
            assertThat(async.awaitApplied(last, Duration.ofSeconds(30))).isTrue();
            assertThat(count()).isEqualTo(20);
            long duplicated = neo4j.database().executeTransactionally(
                    "MATCH (i:Item) WITH i.id AS id, count(*) AS c WHERE c > 1 RETURN count(*) AS n", Map.of(),
                    r -> (Long) r.next().get("n"));
            assertThat(duplicated).isZero();
            assertThat(async.lagRows()).isZero();
        }
    }

    @Test
    void aBatchWhoseCommitOutcomeIsUnknownIsNotAppliedTwice() throws Exception {
        dir = Files.createTempDirectory("sluice-ambiguous-");
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir.resolve("db"), null, 64L << 20, 0, "neo4j"));
        SwitchableSink sink = new SwitchableSink(neo4j.sink());
        Template item = Template.compile("item", new TemplateConfig("CREATE (:Item {id: row.id})", List.of("id"), null));
        AsyncPath.Options o = new AsyncPath.Options(dir.resolve("journal"), dir.resolve("dead"), 1000, 1 << 20, 1 << 20,
                Duration.ofMillis(200));
        try (AsyncPath async = AsyncPath.start(o, sink, Map.of("item", item), Time.SYSTEM,
                Thread.ofPlatform().name("test-journal-applier").factory(), io.sluice.support.Appliers.parts(sink,
                        new RetryPolicy(Integer.MAX_VALUE, Duration.ofMillis(5), Duration.ofMillis(50)), 1000))) {
            sink.down.set(true); // journal everything first, so the applier takes all of it in one batch
            long last = -1;
            for (long id = 0; id < 20; id++) {
                last = ((Outcome.Accepted) async.submit(new WriteRequest.TemplateRequest(item, List.of(Map.of("id", id)), 10)))
                        .offset();
            }
            sink.ambiguous.set(1);
            sink.down.set(false);
            assertThat(async.awaitApplied(last, Duration.ofSeconds(30))).isTrue();
            assertThat(sink.ambiguous.get()).as("the ambiguous commit happened").isNegative();
            assertThat(count()).isEqualTo(20);
            assertThat(async.lagRows()).isZero();
        }
    }

    long count() {
        return neo4j.database().executeTransactionally("MATCH (i:Item) RETURN count(i) AS n", Map.of(),
                r -> (Long) r.next().get("n"));
    }
}
