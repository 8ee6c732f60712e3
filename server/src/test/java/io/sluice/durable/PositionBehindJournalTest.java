package io.sluice.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.apply.RetryPolicy;
import io.sluice.config.TemplateConfig;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.support.Appliers;
import io.sluice.support.TestServer;
import io.sluice.time.Time;
import io.sluice.write.Outcome;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The graph's position behind the journal's first record (retention deleted segments the graph never saw applied:
 * a database replaced, or restored from an older backup; or the position node deleted under a running applier):
 * the journal applier moves the position to where the journal (or its own commits) stand and goes on applying,
 * where the fence would otherwise refuse every batch for ever.
 */
class PositionBehindJournalTest {
    static final Template ITEM = Template.compile("item",
            new TemplateConfig("CREATE (:Item {id: row.id})", List.of("id"), null));

    EmbeddedNeo4j neo4j;
    Path dir;

    @AfterEach
    void stop() {
        if (neo4j != null) {
            neo4j.close();
        }
        TestServer.deleteRecursively(dir);
    }

    AsyncPath start() throws Exception {
        return start("journal");
    }

    AsyncPath start(String journal) throws Exception {
        return AsyncPath.start(new AsyncPath.Options(dir.resolve(journal), dir.resolve(journal + "-dead"), 100_000, 1 << 26,
                4096, Duration.ofSeconds(1)), neo4j.sink(), Map.of("item", ITEM), Time.SYSTEM,
                Thread.ofPlatform().name("test-journal-applier").factory(),
                Appliers.parts(neo4j.sink(), new RetryPolicy(3, Duration.ofMillis(5), Duration.ofMillis(50)), 100));
    }

    long write(AsyncPath async, long from, int n) {
        long last = -1;
        for (long id = from; id < from + n; id++) {
            last = ((Outcome.Accepted) async.submit(new WriteRequest.TemplateRequest(ITEM,
                    List.of(Map.of("id", id, "pad", "x".repeat(200))), 250))).offset();
        }
        return last;
    }

    long items() {
        return neo4j.database().executeTransactionally("MATCH (i:Item) RETURN count(i) AS n", Map.of(),
                r -> (Long) r.next().get("n"));
    }

    void forgetPosition() {
        neo4j.database().executeTransactionally("MATCH (o:SluicePosition) WHERE o.source STARTS WITH 'journal:'"
                + " DETACH DELETE o");
    }

    @Test
    void aStartWithThePositionBeforeTheFirstSegmentMovesItAndApplies() throws Exception {
        dir = Files.createTempDirectory("sluice-position-behind-");
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir.resolve("db"), null, 64L << 20, 0, "neo4j"));
        try (AsyncPath async = start()) {
            long last = write(async, 0, 200); // 4 KiB segments: applied ones are deleted as the applier goes
            assertThat(async.awaitApplied(last, Duration.ofSeconds(30))).isTrue();
        }
        // as a database restored from before those writes would have it: neither the items nor the position
        neo4j.database().executeTransactionally("MATCH (i:Item) DELETE i");
        forgetPosition();
        try (AsyncPath async = start()) {
            long last = write(async, 1000, 10);
            assertThat(async.awaitApplied(last, Duration.ofSeconds(30))).as("applied after the move").isTrue();
            long news = neo4j.database().executeTransactionally("MATCH (i:Item) WHERE i.id >= 1000 RETURN count(i) AS n",
                    Map.of(), r -> (Long) r.next().get("n"));
            assertThat(news).as("the writes after the restart").isEqualTo(10);
            assertThat(items()).as("with what the journal still held of the first 200, each once").isLessThan(210)
                    .isEqualTo(10 + neo4j.database().executeTransactionally("MATCH (i:Item) WHERE i.id < 1000"
                            + " RETURN count(DISTINCT i.id) AS n", Map.of(), r -> (Long) r.next().get("n")));
        }
    }

    /**
     * Two instances with local journals on one Neo4j (sync in a fleet, with a stray async write): each journal keeps
     * its own position, so neither fences the other's batches nor skips its own records.
     */
    @Test
    void twoJournalsOnOneDatabaseEachApplyAllTheirOwnRecords() throws Exception {
        dir = Files.createTempDirectory("sluice-two-journals-");
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir.resolve("db"), null, 64L << 20, 0, "neo4j"));
        try (AsyncPath a = start("a"); AsyncPath b = start("b")) {
            long lastA = -1;
            long lastB = -1;
            for (int i = 0; i < 5; i++) { // interleaved, so each applier finds the other's commits between its own
                lastA = write(a, i * 100L, 20);
                lastB = write(b, 10_000 + i * 100L, 20);
            }
            assertThat(a.awaitApplied(lastA, Duration.ofSeconds(30))).isTrue();
            assertThat(b.awaitApplied(lastB, Duration.ofSeconds(30))).isTrue();
            assertThat(items()).as("every record of both journals, once").isEqualTo(200);
            long positions = neo4j.database().executeTransactionally("MATCH (o:SluicePosition) WHERE o.source"
                    + " STARTS WITH 'journal:' RETURN count(o) AS n", Map.of(), r -> (Long) r.next().get("n"));
            assertThat(positions).as("a position each").isEqualTo(2);
        }
    }

    @Test
    void aPositionDeletedUnderTheApplierIsPutBackAndNothingIsAppliedTwice() throws Exception {
        dir = Files.createTempDirectory("sluice-position-deleted-");
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir.resolve("db"), null, 64L << 20, 0, "neo4j"));
        try (AsyncPath async = start()) {
            long last = write(async, 0, 50);
            assertThat(async.awaitApplied(last, Duration.ofSeconds(30))).isTrue();
            forgetPosition();
            last = write(async, 100, 50);
            assertThat(async.awaitApplied(last, Duration.ofSeconds(30))).as("applied after the put-back").isTrue();
            assertThat(items()).as("each write once").isEqualTo(100);
            assertThat(async.lagRows()).isZero();
        }
    }
}
