package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.TemplateConfig;
import io.sluice.support.Await;
import io.sluice.support.TestServer;
import io.sluice.write.Template;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The write path's rehearsal before UP ({@code warmup.write_path}, {@link Rehearsal}): WARMING while it runs, a
 * scratch database that takes every rehearsal row and is gone afterwards, the user's database untouched while a
 * client's write made meanwhile is taken as usual, a template whose synthetic rows fail dropped and named, and a
 * server closed in the middle of it leaving no thread or directory behind.
 */
@Timeout(180)
class RehearsalTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String CONFIG = """
            templates:
              visit:
                cypher: "MERGE (u:RUser {id: row.user}) MERGE (s:RSite {url: row.url}) MERGE (u)-[:RVISITED]->(s)"
                key: [user]
              broken:
                cypher: "CREATE (:RBroken {v: row.x.y})"
                key: [x]
            schema:
              - CREATE CONSTRAINT ruser_id IF NOT EXISTS FOR (u:RUser) REQUIRE u.id IS UNIQUE
            """;

    @Test
    void rehearsesInAScratchDatabaseThenSaysUpWithTheUsersDatabaseUntouched() throws Exception {
        var logged = new ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent>();
        var serverLog = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(SluiceServer.class);
        logged.start();
        serverLog.addAppender(logged);
        try (TestServer s = TestServer.start(CONFIG + "warmup: {write_path: 8s}\n", false)) {
            serverLog.detachAppender(logged);
            assertThat(logged.list).as("the start-up log says what WARMING means (issue 26)")
                    .anySatisfy(e -> assertThat(e.getFormattedMessage()).contains("writes are accepted now",
                            "503 WARMING", "load balancer"));
            var first = s.get("/health");
            assertThat(first.statusCode()).as("while rehearsing: %s", first.body()).isEqualTo(503);
            assertThat(JSON.readTree(first.body()).path("status").asText()).isEqualTo("WARMING");
            Await.until("the scratch database", Duration.ofSeconds(60),
                    () -> Files.isDirectory(s.dataDir.resolve("rehearsal")));

            // a client's write during the rehearsal is taken as usual, by the server's own path
            var w = s.post("/db/neo4j/write/visit", "{\"user\": 7, \"url\": \"a\"}");
            assertThat(w.statusCode()).as(w.body()).isEqualTo(200);

            Await.until("UP after the rehearsal", Duration.ofSeconds(90),
                    () -> s.get("/health").statusCode() == 200);
            JsonNode rehearsed = s.health().path("warmup").path("write_path");
            assertThat(rehearsed.path("where").asText()).isEqualTo("scratch database");
            assertThat(rehearsed.path("ended").asText()).as("%s", rehearsed).isIn("time limit", "the JIT was quiet");
            assertThat(rehearsed.path("requests").asLong()).as("%s", rehearsed).isGreaterThan(50);
            JsonNode visit = rehearsed.path("templates").path("visit");
            assertThat(visit.path("answered").asLong()).as("%s", rehearsed).isGreaterThan(20);
            assertThat(visit.path("refused").asLong()).as("%s", rehearsed).isZero();
            JsonNode broken = rehearsed.path("templates").path("broken");
            assertThat(broken.path("refused").asLong()).as("%s", rehearsed).isGreaterThanOrEqualTo(Rehearsal.GIVE_UP_AFTER);
            assertThat(broken.path("answered").asLong()).as("%s", rehearsed).isZero();
            assertThat(broken.path("first_error").asText()).as("%s", rehearsed).startsWith("4");

            assertThat(s.count("MATCH (u:RUser) RETURN count(u)")).as("only the client's user").isEqualTo(1);
            assertThat(s.count("MATCH (u:RUser {id: 7})-[:RVISITED]->(:RSite {url: 'a'}) RETURN count(u)"))
                    .isEqualTo(1);
            assertThat(s.count("MATCH (n) WHERE n:RSite OR n:RBroken RETURN count(n)")).isEqualTo(1);
            assertThat(s.count("MATCH (n) WHERE any(k IN keys(n) WHERE toString(n[k]) STARTS WITH 'sluice-rehearsal')"
                    + " RETURN count(n)")).as("no rehearsal row").isZero();
            assertThat(Files.exists(s.dataDir.resolve("rehearsal"))).as("the scratch database deleted").isFalse();
            assertThat(threads("sluice-rehearsal")).as("the rehearsal's threads").isEmpty();
        }
    }

    @Test
    void closingDuringTheRehearsalStopsItAndLeavesNothingBehind() throws Exception {
        TestServer s = TestServer.start(CONFIG + "warmup: {write_path: 120s}\n", false);
        Await.until("the rehearsal under way", Duration.ofSeconds(60),
                () -> s.health().path("status").asText().equals("WARMING")
                        && !threads("sluice-rehearsal-applier").isEmpty());
        long t0 = System.nanoTime();
        s.close();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("close's time (the warmer waits 30 s for its thread)")
                .isLessThan(Duration.ofSeconds(30));
        assertThat(threads("sluice-rehearsal")).as("the rehearsal's threads").isEmpty();
        assertThat(threads("sluice-warmup")).isEmpty();
        assertThat(Files.exists(s.dataDir.resolve("rehearsal"))).as("the scratch database deleted").isFalse();
    }

    @Test
    void syntheticRowsFollowDeclaredTypesAndKeepKeysDistinct() {
        Template t = Template.compile("t", new TemplateConfig("MERGE (a:A {id: row.id}) SET a.n = row.n, a.f = row.f,"
                + " a.b = row.b, a.u = row.u", List.of("id"), Map.of("n", "integer", "f", "float", "b", "boolean")));
        Map<String, Object> even = Rehearsal.row(t, 2);
        Map<String, Object> odd = Rehearsal.row(t, 3);
        assertThat(even.keySet()).containsExactlyInAnyOrder("id", "n", "f", "b", "u");
        assertThat(even.get("n")).isInstanceOf(Long.class);
        assertThat(odd.get("n")).isInstanceOf(Long.class);
        assertThat(even.get("f")).isInstanceOf(Double.class);
        assertThat(even.get("b")).isInstanceOf(Boolean.class);
        assertThat(even.get("u")).as("undeclared: a string, then an integer").isInstanceOf(String.class);
        assertThat(odd.get("u")).isInstanceOf(Long.class);
        assertThat(Rehearsal.row(t, 2 + Rehearsal.POOL).get("u")).as("a non-key field repeats").isEqualTo(even.get("u"));
        assertThat(Rehearsal.row(t, 2 + Rehearsal.POOL).get("id")).as("a key never").isNotEqualTo(even.get("id"));
        assertThat(t.validate(even, 0)).isEmpty();
        assertThat(t.validate(odd, 0)).isEmpty();
    }

    @Test
    void aBodyIsAnObjectForOneRowAndAnArrayForMore() throws Exception {
        Template t = Template.compile("t", new TemplateConfig("CREATE (:A {id: row.id})", List.of("id"), Map.of()));
        AtomicLong serial = new AtomicLong();
        assertThat(JSON.readTree(Rehearsal.body(t, 1, serial)).isObject()).isTrue();
        JsonNode eight = JSON.readTree(Rehearsal.body(t, 8, serial));
        assertThat(eight.isArray()).isTrue();
        assertThat(eight.size()).isEqualTo(8);
        assertThat(serial.get()).isEqualTo(9);
    }

    @Test
    void overBoltThereIsNoRehearsal(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        try (var neo4j = io.sluice.support.Neo4jProcess.start(dir.resolve("neo4j"));
                TestServer s = TestServer.startRemote(CONFIG + "warmup: {write_path: 8s}\n", neo4j.uri())) {
            JsonNode h = s.health();
            assertThat(h.path("status").asText()).as("%s", h).isEqualTo("UP");
            assertThat(h.path("warmup").path("state").asText()).isEqualTo("NONE");
            assertThat(threads("sluice-rehearsal")).isEmpty();
        }
    }

    static List<String> threads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith(prefix)).toList();
    }
}
