package io.sluice.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.apply.RetryPolicy;
import io.sluice.config.TemplateConfig;
import io.sluice.journal.Journal;
import io.sluice.journal.JournalDirectory;
import io.sluice.journal.JournalOptions;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.support.TestServer;
import io.sluice.time.Time;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A journal record that passes its CRC but cannot become a request (well-formed JSON of the wrong shape, or not
 * JSON) is dead-lettered with a clear code and the stream moves on: it neither stops the applier nor fails
 * start-up.
 */
@Timeout(120)
class UndecodableRecordTest {
    static final Template ITEM = Template.compile("item",
            new TemplateConfig("CREATE (:Item {id: row.id})", List.of("id"), null));

    /** Each is valid framing (the journal checksums it) and each is wrong in its own way. */
    static final List<String> BAD = List.of(
            "null",
            "[1, 2]",
            "\"text\"",
            "{}",
            "{\"v\": \"1\", \"t\": \"item\", \"r\": [{\"id\": 1}]}",
            "{\"v\": 2, \"t\": \"item\", \"r\": [{\"id\": 1}]}",
            "{\"v\": 1}",
            "{\"v\": 1, \"t\": 7, \"r\": [{\"id\": 1}]}",
            "{\"v\": 1, \"t\": \"gone\", \"r\": [{\"id\": 1}]}",
            "{\"v\": 1, \"t\": \"item\"}",
            "{\"v\": 1, \"t\": \"item\", \"r\": \"rows\"}",
            "{\"v\": 1, \"t\": \"item\", \"r\": []}",
            "{\"v\": 1, \"t\": \"item\", \"r\": [1, 2]}",
            "{\"v\": 1, \"s\": \"CREATE ()\"}",
            "{\"v\": 1, \"s\": [{\"p\": {}}]}",
            "{\"v\": 1, \"s\": [{\"q\": 5}]}",
            "{\"v\": 1, \"s\": [{\"q\": \"CREATE ()\", \"p\": [1]}]}",
            "not json at all");

    @Test
    void everyWrongShapeIsUndecodableAndNothingElse() {
        for (String bad : BAD) {
            assertThatThrownBy(() -> RecordCodec.decode(bad.getBytes(StandardCharsets.UTF_8), Map.of("item", ITEM)))
                    .as(bad).isInstanceOf(RecordCodec.Undecodable.class);
        }
    }

    @Test
    void goodRecordsStillRoundTrip() throws Exception {
        var t = new WriteRequest.TemplateRequest(ITEM, List.of(Map.of("id", 1L)), 10);
        assertThat(RecordCodec.decode(RecordCodec.encode(t), Map.of("item", ITEM))).isInstanceOf(
                WriteRequest.TemplateRequest.class).extracting(WriteRequest::rows).isEqualTo(1);
        var c = new WriteRequest.CypherRequest(List.of(new io.sluice.write.Statement("CREATE (:X {a: $a})",
                Map.of("a", 1L))), 10);
        assertThat(((WriteRequest.CypherRequest) RecordCodec.decode(RecordCodec.encode(c), Map.of())).statements())
                .isEqualTo(c.statements());
    }

    @Test
    void plantedRecordsAreDeadLetteredAndTheStreamMovesOn() throws Exception {
        Path dir = Files.createTempDirectory("sluice-undecodable-");
        try (EmbeddedNeo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir.resolve("db"), null, 64L << 20,
                0, "neo4j"))) {
            // the journal as a crashed sluice left it: good records with every bad shape between them
            List<Long> badOffsets = new ArrayList<>();
            long last;
            try (Journal journal = JournalDirectory.open(dir.resolve("journal"), JournalOptions.defaults())) {
                long id = 0;
                for (String bad : BAD) {
                    journal.append(RecordCodec.encode(new WriteRequest.TemplateRequest(ITEM,
                            List.of(Map.of("id", id++)), 10)));
                    badOffsets.add(journal.append(bad.getBytes(StandardCharsets.UTF_8)));
                }
                last = journal.append(RecordCodec.encode(new WriteRequest.TemplateRequest(ITEM,
                        List.of(Map.of("id", id)), 10)));
            }
            AsyncPath.Options o = new AsyncPath.Options(dir.resolve("journal"), dir.resolve("dead"), 1000, 1 << 20,
                    1 << 20, Duration.ofMillis(200));
            try (AsyncPath async = AsyncPath.start(o, neo4j.sink(), Map.of("item", ITEM), Time.SYSTEM,
                    Thread.ofPlatform().name("test-journal-applier").factory(), io.sluice.support.Appliers.parts(
                            neo4j.sink(), new RetryPolicy(Integer.MAX_VALUE, Duration.ofMillis(5),
                                    Duration.ofMillis(50)), 1000))) {
                assertThat(async.awaitApplied(last, Duration.ofSeconds(30))).as("the stream moved past them").isTrue();
                long items = neo4j.database().executeTransactionally("MATCH (i:Item) RETURN count(i) AS n", Map.of(),
                        r -> (Long) r.next().get("n"));
                assertThat(items).as("every good record applied").isEqualTo(BAD.size() + 1L);
                List<Map<String, Object>> dead = async.deadLetters(0, 100);
                assertThat(dead).extracting(d -> ((Number) d.get("offset")).longValue())
                        .containsExactlyElementsOf(badOffsets);
                assertThat(dead).allSatisfy(d -> assertThat(d.get("code"))
                        .isEqualTo("Neo.ClientError.Request.InvalidFormat"));
                assertThat(async.deadLetterCount()).isEqualTo(BAD.size());
                assertThat(async.lagRows()).isZero();
            }
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }
}
