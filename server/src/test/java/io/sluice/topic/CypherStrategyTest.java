package io.sluice.topic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.HostPort;
import io.sluice.config.Sources;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class CypherStrategyTest {
    static Path dir;
    static EmbeddedNeo4j neo4j;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-cypher-strategy-");
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir, new HostPort("127.0.0.1", TestServer.freePort()),
                64L << 20, 0, "neo4j"));
    }

    @AfterAll
    static void stop() throws Exception {
        neo4j.close();
        TestServer.deleteRecursively(dir);
    }

    @BeforeEach
    void empty() {
        neo4j.database().executeTransactionally("MATCH (n) DETACH DELETE n");
    }

    static Message message(long offset, Object key, Object value, Map<String, Object> headers) {
        return new Message("people", 0, offset, 1_700_000_000_000L + offset, key, value, headers);
    }

    /** Runs the ops as sluice does: each run of one template's rows as one UNWIND. */
    static void apply(List<Strategy.Op> ops) {
        int i = 0;
        while (i < ops.size()) {
            var t = ops.get(i).template();
            List<Map<String, Object>> rows = new ArrayList<>();
            while (i < ops.size() && ops.get(i).template() == t) {
                rows.add(ops.get(i++).row());
            }
            neo4j.database().executeTransactionally(t.unwindCypher(), Map.of("rows", rows));
        }
    }

    static Object query(String cypher) {
        return neo4j.database().executeTransactionally(cypher, Map.of(), r -> r.hasNext() ? r.next().get("x") : null);
    }

    @Test
    void bindsTheRecordAsTheConnectorDoes() throws Exception {
        var s = new CypherStrategy("people", new Sources.Cypher(List.of(
                "MERGE (p:Person {id: event.id}) SET p.name = __value.name, p.key = __key, p.src = __header.src,"
                        + " p.at = __timestamp"), null, Sources.Binding.DEFAULT, List.of()));
        List<Strategy.Op> ops = new ArrayList<>();
        ops.addAll(s.ops(message(0, "k1", Map.of("id", 1L, "name", "Ann"), Map.of("src", "crm"))));
        ops.addAll(s.ops(message(1, "k2", Map.of("id", 2L, "name", "Bob"), Map.of())));
        ops.addAll(s.ops(message(2, "k1", Map.of("id", 1L, "name", "Anna"), Map.of("src", "web"))));
        apply(ops);
        assertThat(query("MATCH (p:Person {id: 1}) RETURN p.name + '/' + p.key + '/' + p.src AS x"))
                .isEqualTo("Anna/k1/web");
        assertThat(query("MATCH (p:Person {id: 2}) RETURN p.src IS NULL AND p.at.year = 2023 AS x")).isEqualTo(true);
        assertThat(query("MATCH (p:Person {id: 1}) RETURN toString(p.at) AS x")).isEqualTo("2023-11-14T22:13:20.002Z");
    }

    @Test
    void renamedBindingsAndSeveralStatementsEachRecordAlone() throws Exception {
        var bind = new Sources.Binding("ts", "", "k", "val", false);
        var s = new CypherStrategy("people", new Sources.Cypher(List.of(
                "MATCH (g:Group {name: val.group}) MERGE (p:Person {id: val.id}) MERGE (p)-[:IN]->(g)"
                        + " RETURN count(*) AS c",
                "MERGE (p:Person {id: val.id}) SET p.k = k, p.seen = ts IS NOT NULL"), null, bind, List.of()));
        neo4j.database().executeTransactionally("CREATE (:Group {name: 'a'})");
        List<Strategy.Op> ops = new ArrayList<>();
        ops.addAll(s.ops(message(0, 7L, Map.of("id", 1L, "group", "a"), Map.of())));
        ops.addAll(s.ops(message(1, 8L, Map.of("id", 2L, "group", "none"), Map.of()))); // its MATCH finds nothing
        apply(ops);
        assertThat(query("MATCH (p:Person) RETURN count(p) AS x")).as("the second statement ran for both").isEqualTo(2L);
        assertThat(query("MATCH (p:Person {id: 2}) RETURN p.k AS x")).isEqualTo(8L);
        assertThat(query("MATCH ()-[r:IN]->() RETURN count(r) AS x")).isEqualTo(1L);
        var returning = new CypherStrategy("people", new Sources.Cypher(List.of(
                "MATCH (u:Person {id: val.id}) SET u.seen = true RETURN u",
                "CREATE (:Audit {id: val.id})"), null, bind, List.of()));
        List<Strategy.Op> more = new ArrayList<>();
        more.addAll(returning.ops(message(2, 9L, Map.of("id", 1L), Map.of())));
        more.addAll(returning.ops(message(3, 9L, Map.of("id", 99L), Map.of()))); // no such person: no row returned
        apply(more);
        assertThat(query("MATCH (a:Audit) RETURN count(a) AS x")).as("the second statement once a record, whatever"
                + " the first returned").isEqualTo(2L);
        assertThatThrownBy(() -> neo4j.database().executeTransactionally(
                "UNWIND [1] AS row " + CypherStrategy.template("t", List.of("RETURN event AS e"), bind, List.of(),
                        List.of()).cypher())).as("an unbound name is not visible").hasMessageContaining("event");
    }

    @Test
    void aRouteChoosesTheStatementsByHeaderOrField() throws Exception {
        var s = new CypherStrategy("people", new Sources.Cypher(List.of(), new Sources.Route("__header.op",
                Map.of("upsert", List.of("MERGE (p:Person {id: event.id}) SET p.name = event.name"),
                        "delete", List.of("MATCH (p:Person {id: event.id}) DETACH DELETE p")), List.of()),
                Sources.Binding.DEFAULT, List.of()));
        List<Strategy.Op> ops = new ArrayList<>();
        ops.addAll(s.ops(message(0, null, Map.of("id", 1L, "name", "Ann"), Map.of("op", "upsert"))));
        ops.addAll(s.ops(message(1, null, Map.of("id", 2L, "name", "Bob"), Map.of("op", "upsert"))));
        ops.addAll(s.ops(message(2, null, Map.of("id", 1L), Map.of("op", "delete"))));
        ops.addAll(s.ops(message(3, null, Map.of("id", 1L, "name", "Ann again"), Map.of("op", "upsert"))));
        apply(ops);
        assertThat(query("MATCH (p:Person) WITH p ORDER BY p.name RETURN collect(p.name) AS x"))
                .isEqualTo(List.of("Ann again", "Bob"));
        assertThatThrownBy(() -> s.ops(message(4, null, Map.of("id", 3L), Map.of("op", "rename"))))
                .isInstanceOf(Strategy.Invalid.class).hasMessageContaining("'rename'").hasMessageContaining("upsert");
    }

    @Test
    void aTombstoneBindsANullValueAndTheStatementDecides() throws Exception {
        var s = new CypherStrategy("people", new Sources.Cypher(List.of(
                "WITH __key AS id, event WHERE event IS NULL MATCH (p:Person {id: id}) DETACH DELETE p",
                "WITH __key AS id, event WHERE event IS NOT NULL MERGE (p:Person {id: id}) SET p.name = event.name"),
                null, Sources.Binding.DEFAULT, List.of()));
        List<Strategy.Op> ops = new ArrayList<>();
        ops.addAll(s.ops(message(0, 1L, Map.of("name", "Ann"), Map.of())));
        ops.addAll(s.ops(message(1, 2L, Map.of("name", "Bob"), Map.of())));
        ops.addAll(s.ops(message(2, 1L, null, Map.of()))); // Ann's tombstone
        assertThat(message(2, 1L, null, Map.of()).tombstone()).isTrue();
        apply(ops);
        assertThat(query("MATCH (p:Person) RETURN collect(p.name) AS x")).isEqualTo(List.of("Bob"));
    }

    @Test
    void lockOrderValuesComeFromTheirPaths() throws Exception {
        var s = new CypherStrategy("visits", new Sources.Cypher(List.of("MERGE (s:Site {id: event.site})"), null,
                Sources.Binding.DEFAULT, List.of("__value.site", "__header.h")));
        var op = s.ops(message(0, "u1", Map.of("site", 42L), Map.of("h", "x"))).getFirst();
        assertThat(op.row().get("lock")).isEqualTo(List.of(42L, "x"));
        assertThat(op.template().lockOrder()).containsExactly("lock");
        assertThat(op.template().key()).containsExactly("key");
        assertThatThrownBy(() -> new CypherStrategy("v", new Sources.Cypher(List.of("RETURN 1"), null,
                Sources.Binding.DEFAULT, List.of("value.site")))).hasMessageContaining("must start with __key");
    }
}
