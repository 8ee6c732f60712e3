package io.sluice.topic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.topic.Strategy.Invalid;
import io.sluice.topic.Strategy.Op;
import io.sluice.support.TestServer;
import io.sluice.write.Template;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;

/**
 * The CUD strategy: records the connector refuses are refused with its messages; the others, run as sluice runs
 * them (each run of consecutive rows of one template as one {@code UNWIND}, a batch in one transaction) against
 * a real embedded Neo4j, leave the graph the connector's documentation and integration tests show.
 */
@Timeout(60)
class CudStrategyTest {
    static final ObjectMapper JSON = JsonMapper.builder().enable(DeserializationFeature.USE_LONG_FOR_INTS).build();

    static Object json(String text) {
        try {
            return JSON.readValue(text.replace('\'', '"'), Object.class);
        } catch (Exception e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    static Message message(Object value) {
        return new Message("people", 0, 7, 0, null, value, Map.of());
    }

    final CudStrategy strategy = new CudStrategy("people");

    List<Op> ops(String text) throws Invalid {
        return strategy.ops(message(json(text)));
    }

    String refusal(Object value) {
        try {
            strategy.ops(message(value));
        } catch (Invalid e) {
            return e.getMessage();
        }
        throw new AssertionError("accepted: " + value);
    }

    String refusal(String text) {
        return refusal(json(text));
    }

    @Nested
    class Refused {
        @Test
        void aTombstone() {
            assertThat(refusal((Object) null)).contains("tombstone");
        }

        @Test
        void aValueThatIsNeitherAnOperationNorAnArrayOfThem() {
            assertThat(refusal((Object) "{}")).startsWith("Message value must be convertible to a Map");
            assertThat(refusal((Object) 5L)).contains("got a number");
        }

        @Test
        void aMissingOrUnknownType() {
            assertThat(refusal("{'op': 'create', 'properties': {}}")).isEqualTo("CUD file type must be specified.");
            assertThat(refusal("{'type': 5, 'op': 'create', 'properties': {}}"))
                    .isEqualTo("Unsupported data type ('5') in CUD file type.");
            assertThat(refusal("{'type': 'edge', 'op': 'create', 'properties': {}}"))
                    .isEqualTo("CUD file type must be specified: node or relationship, got 'edge'.");
        }

        @Test
        void aMissingOrUnknownOperation() {
            assertThat(refusal("{'type': 'node', 'properties': {}}")).isEqualTo("CUD file operation must be specified.");
            assertThat(refusal("{'type': 'node', 'op': true, 'properties': {}}"))
                    .isEqualTo("Unsupported data type ('true') for CUD file operation");
            assertThat(refusal("{'type': 'node', 'op': 'upsert', 'properties': {}}"))
                    .contains("create, update, merge or delete, got 'upsert'");
        }

        @Test
        void whatTheSchemaRefusesForNodes() {
            assertThat(refusal("{'type': 'node', 'op': 'create', 'labels': [], 'ids': {'id': 1}, 'properties': {}}"))
                    .isEqualTo("$: property 'ids' is not defined for a node create operation (no other property is"
                            + " allowed)");
            assertThat(refusal("{'type': 'node', 'op': 'create', 'labels': []}"))
                    .isEqualTo("$: required property 'properties' not found");
            assertThat(refusal("{'type': 'node', 'op': 'merge', 'properties': {'a': 1}}"))
                    .isEqualTo("$: required property 'ids' not found");
            assertThat(refusal("{'type': 'node', 'op': 'delete', 'ids': {'id': 1}, 'properties': {'a': 1}}"))
                    .contains("property 'properties' is not defined for a node delete operation");
            assertThat(refusal("{'type': 'node', 'op': 'merge', 'labels': ['A', 1], 'ids': {'id': 1},"
                    + " 'properties': 3}"))
                    .isEqualTo("$.labels: an array of strings expected, got an array with a non-string element,"
                            + " $.properties: an object expected, got a number");
            assertThat(refusal("{'type': 'node', 'op': 'delete', 'ids': {'id': 1}, 'detach': 'yes'}"))
                    .isEqualTo("$.detach: a boolean expected, got a string");
        }

        @Test
        void whatTheSchemaRefusesForRelationships() {
            String ends = "'from': {'labels': ['A'], 'ids': {'id': 1}}, 'to': {'labels': ['B'], 'ids': {'id': 2}}";
            assertThat(refusal("{'type': 'relationship', 'op': 'create', 'rel_type': 'R', " + ends
                    + ", 'ids': {'id': 3}, 'properties': {}}"))
                    .contains("property 'ids' is not defined for a relationship create operation");
            assertThat(refusal("{'type': 'relationship', 'op': 'create', 'rel_type': 'R', " + ends + "}"))
                    .isEqualTo("$: required property 'properties' not found");
            assertThat(refusal("{'type': 'relationship', 'op': 'update', 'rel_type': 'R', 'from': {'ids': {'id': 1}},"
                    + " 'to': {'labels': ['B']}, 'properties': {}}"))
                    .isEqualTo("$.to: required property 'ids' not found");
            assertThat(refusal("{'type': 'relationship', 'op': 'delete', 'rel_type': 'R', " + ends
                    + ", 'properties': {}}"))
                    .contains("property 'properties' is not defined for a relationship delete operation");
            assertThat(refusal("{'type': 'relationship', 'op': 'merge', 'rel_type': 'R', 'from': {'ids': {'id': 1},"
                    + " 'op': 'find', 'key': 1}, 'to': {'ids': {'id': 2}}, 'properties': {}}"))
                    .isEqualTo("$.from.op: 'match' or 'merge' expected, got 'find', $.from: property 'key' is not"
                            + " defined for a node reference (no other property is allowed)");
        }

        @Test
        void nodesWithoutIds() {
            for (String op : List.of("update", "merge")) {
                assertThat(refusal("{'type': 'node', 'op': '" + op + "', 'ids': {}, 'properties': {'a': 1}}"))
                        .isEqualTo("Node must contain at least one ID property.");
            }
            assertThat(refusal("{'type': 'node', 'op': 'delete', 'ids': {}}"))
                    .isEqualTo("Node must contain at least one ID property.");
        }

        @Test
        void idsOfTheWrongType() {
            assertThat(refusal("{'type': 'node', 'op': 'update', 'ids': {'_id': 'one'}, 'properties': {}}"))
                    .startsWith("Map element '_id' is not an instance of Number");
            assertThat(refusal("{'type': 'node', 'op': 'delete', 'ids': {'_elementId': 4}}"))
                    .startsWith("Map element '_elementId' is not an instance of String");
            assertThat(refusal("{'type': 'node', 'op': 'merge', 'labels': ['A'], 'ids': {'id': null},"
                    + " 'properties': {}}"))
                    .startsWith("Values of 'ids' must not be null ($.ids.id is null)");
        }

        @Test
        void aNodeMergedByItsInternalId() {
            assertThat(refusal("{'type': 'node', 'op': 'merge', 'labels': ['A'], 'ids': {'_id': 1}, 'properties': {}}"))
                    .contains("can only use labels and properties as a matcher for merge node action.");
            assertThat(refusal("{'type': 'node', 'op': 'merge', 'ids': {'_elementId': '4:x:1'}, 'properties': {}}"))
                    .contains("can only use labels and properties as a matcher for merge node action.");
        }

        @Test
        void relationshipsWithoutTypeOrEndIds() {
            assertThat(refusal("{'type': 'relationship', 'op': 'create', 'rel_type': '', 'from': {'ids': {'id': 1}},"
                    + " 'to': {'ids': {'id': 2}}, 'properties': {}}"))
                    .isEqualTo("'rel_type' must be specified.");
            assertThat(refusal("{'type': 'relationship', 'op': 'merge', 'rel_type': 'R', 'from': {'ids': {}},"
                    + " 'to': {'ids': {'id': 2}}, 'properties': {}}"))
                    .isEqualTo("'from' and 'to' must contain at least one ID property.");
        }

        @Test
        void relationshipEndsLookedUpTheWrongWay() {
            assertThat(refusal("{'type': 'relationship', 'op': 'delete', 'rel_type': 'R', 'from': {'ids': {'id': 1}},"
                    + " 'to': {'labels': ['B'], 'ids': {'id': 2}, 'op': 'merge'}}"))
                    .isEqualTo("'from' and 'to' must have 'op' as 'MATCH' for relationship deletion operations.");
            assertThat(refusal("{'type': 'relationship', 'op': 'update', 'rel_type': 'R', 'from': {'ids': {'id': 1}},"
                    + " 'to': {'labels': ['B'], 'ids': {'id': 2}, 'op': 'MERGE'}, 'properties': {}}"))
                    .contains("end node must use MATCH lookup mode for update relationship action.");
            assertThat(refusal("{'type': 'relationship', 'op': 'create', 'rel_type': 'R', 'from': {'labels': ['A'],"
                    + " 'ids': {'_id': 1}, 'op': 'merge'}, 'to': {'ids': {'id': 2}}, 'properties': {}}"))
                    .contains("can only use labels and properties as a matcher for MERGE lookup mode");
            assertThat(refusal("{'type': 'relationship', 'op': 'create', 'rel_type': 'R', 'from': {'ids': {'id': 1}},"
                    + " 'to': {'ids': {'id': 2}, 'op': 'merge'}, 'properties': {}}"))
                    .contains("match labels must not be empty");
            assertThat(refusal("{'type': 'relationship', 'op': 'merge', 'rel_type': 'R', 'from': {'ids': {'id': 1}},"
                    + " 'to': {'ids': {'id': 2}}, 'ids': {'_elementId': '5:x:1'}, 'properties': {}}"))
                    .contains("a relationship merge cannot find its relationship by _elementId");
        }

        @Test
        void anArrayWithABadOperationSaysWhichOne() {
            assertThat(refusal("[{'type': 'node', 'op': 'create', 'properties': {}}, {'type': 'node', 'op': 'delete',"
                    + " 'ids': {}}]"))
                    .isEqualTo("operation 1 of 2: Node must contain at least one ID property.");
            assertThat(refusal(List.of(5L)))
                    .isEqualTo("operation 0 of 1: Message value must be convertible to a Map, got a number.");
        }
    }

    @Nested
    class Templates {
        @Test
        void oneInstancePerShape() throws Invalid {
            Template a = ops("{'type': 'node', 'op': 'merge', 'labels': ['B', 'A'], 'ids': {'id': 1, 'k': 'x'},"
                    + " 'properties': {'p': 1}}").getFirst().template();
            Template b = ops("{'type': 'NODE', 'op': 'Merge', 'labels': ['A', 'B', 'A'], 'ids': {'k': 'y', 'id': 2},"
                    + " 'properties': {}}").getFirst().template();
            Template c = ops("{'type': 'node', 'op': 'merge', 'labels': ['A'], 'ids': {'id': 1},"
                    + " 'properties': {}}").getFirst().template();
            assertThat(b).isSameAs(a);
            assertThat(c).isNotEqualTo(a);
            assertThat(a.cypher()).isEqualTo("CALL (row) { MERGE (n:`A`:`B` {`id`: row.ids.`id`, `k`: row.ids.`k`})"
                    + " SET n += row.props }");
            assertThat(a.unwindCypher()).isEqualTo("UNWIND $rows AS row " + a.cypher());
            assertThat(a.name()).isEqualTo("cud people: node merge (:A:B {id, k})");
            assertThat(a.key()).containsExactly("ids");
            assertThat(a.lockOrder()).as("CUD rows keep their offset order").isEmpty();
        }

        @Test
        void rowsCarryTheValues() throws Invalid {
            Op op = ops("{'type': 'relationship', 'op': 'update', 'rel_type': 'KNOWS', 'from': {'labels': ['P'],"
                    + " 'ids': {'id': 1}}, 'to': {'labels': ['P'], 'ids': {'_id': 2.0}}, 'ids': {'since': 2020},"
                    + " 'properties': {'w': 3}}").getFirst();
            assertThat(op.row()).isEqualTo(Map.of("from", Map.of("id", 1L), "to", Map.of("_id", 2L), "ids",
                    Map.of("since", 2020L), "props", Map.of("w", 3L)));
            assertThat(op.template().cypher()).isEqualTo("CALL (row) { MATCH (src:`P` {`id`: row.from.`id`})"
                    + " MATCH (dst) WHERE id(dst) = row.to.`_id` MATCH (src)-[r:`KNOWS` {`since`: row.ids.`since`}]->"
                    + "(dst) SET r += row.props }");
            assertThat(op.template().key()).containsExactly("from", "to");
            assertThat(op.template().lockOrder()).isEmpty();
            assertThat(op.template().validate(op.row(), 0)).isEmpty();
            Op create = ops("{'type': 'node', 'op': 'create', 'properties': {}}").getFirst();
            assertThat(create.template().key()).isEmpty();
            assertThat(create.template().lockOrder()).isEmpty();
        }

        @Test
        void pastTheBoundTemplatesAreMadeButNotKept() throws Invalid {
            CudStrategy small = new CudStrategy("people", 1);
            Op a = small.ops(message(json("{'type': 'node', 'op': 'create', 'labels': ['A'], 'properties': {}}")))
                    .getFirst();
            Op b = small.ops(message(json("{'type': 'node', 'op': 'create', 'labels': ['B'], 'properties': {}}")))
                    .getFirst();
            Op b2 = small.ops(message(json("{'type': 'node', 'op': 'create', 'labels': ['B'], 'properties': {}}")))
                    .getFirst();
            assertThat(small.cachedShapes()).isEqualTo(1);
            assertThat(b.template().cypher()).isEqualTo("CALL (row) { CREATE (n:`B`) SET n += row.props }");
            assertThat(b2.template()).isEqualTo(b.template()).isNotSameAs(b.template());
            assertThat(small.ops(message(json("{'type': 'node', 'op': 'create', 'labels': ['A'], 'properties': {}}")))
                    .getFirst().template()).isSameAs(a.template());
        }

        @Test
        void nothingToCheckBeforeConsuming() {
            assertThat(strategy.checks()).isEmpty();
        }
    }

    // ---- against Neo4j ----

    static Path dir;
    static EmbeddedNeo4j neo4j;

    @BeforeAll
    static void startNeo4j() throws Exception {
        dir = Files.createTempDirectory("sluice-cud-");
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir, null, 64L << 20, 0, "neo4j"));
    }

    @AfterAll
    static void stopNeo4j() {
        if (neo4j != null) {
            neo4j.close();
        }
        TestServer.deleteRecursively(dir);
    }

    @BeforeEach
    void emptyGraph() {
        neo4j.database().executeTransactionally("MATCH (n) DETACH DELETE n");
    }

    /**
     * Applies the records as one batch: their ops in order, each run of consecutive rows of one template as one
     * {@code UNWIND}, all in one transaction. Returns how many statements ran.
     */
    int apply(String... records) throws Invalid {
        List<Op> ops = new ArrayList<>();
        for (String r : records) {
            ops.addAll(ops(r));
        }
        int statements = 0;
        try (Transaction tx = neo4j.database().beginTx()) {
            for (int i = 0; i < ops.size(); ) {
                Template t = ops.get(i).template();
                List<Map<String, Object>> rows = new ArrayList<>();
                for (; i < ops.size() && ops.get(i).template().equals(t); i++) {
                    rows.add(ops.get(i).row());
                }
                try (Result r = tx.execute(t.unwindCypher(), Map.of(Template.ROWS_PARAM, rows))) {
                    r.accept(row -> true);
                }
                statements++;
            }
            tx.commit();
        }
        return statements;
    }

    void run(String cypher) {
        neo4j.database().executeTransactionally(cypher);
    }

    /** The nodes, each as its labels and properties ({@code :A:B {k: v}}), sorted. */
    List<String> graph() {
        return neo4j.database().executeTransactionally("MATCH (n) RETURN n", Map.of(), r -> {
            List<String> out = new ArrayList<>();
            r.forEachRemaining(row -> out.add(node((Node) row.get("n"))));
            out.sort(null);
            return out;
        });
    }

    /** The relationships, each as {@code fromId-[TYPE {k: v}]->toId}, sorted. */
    List<String> relationships() {
        return neo4j.database().executeTransactionally("MATCH ()-[r]->() RETURN r", Map.of(), r -> {
            List<String> out = new ArrayList<>();
            r.forEachRemaining(row -> {
                Relationship rel = (Relationship) row.get("r");
                out.add(rel.getStartNode().getProperty("id", "?") + "-[" + rel.getType().name() + " "
                        + properties(rel.getAllProperties()) + "]->" + rel.getEndNode().getProperty("id", "?"));
            });
            out.sort(null);
            return out;
        });
    }

    static String node(Node n) {
        List<String> labels = new ArrayList<>();
        n.getLabels().forEach(l -> labels.add(l.name()));
        labels.sort(null);
        StringBuilder b = new StringBuilder();
        labels.forEach(l -> b.append(':').append(l));
        return b + " " + properties(n.getAllProperties());
    }

    static String properties(Map<String, Object> properties) {
        List<String> pairs = new ArrayList<>();
        new java.util.TreeMap<>(properties).forEach((k, v) -> pairs.add(k + ": "
                + (v instanceof String s ? "\"" + s + "\"" : v)));
        return "{" + String.join(", ", pairs) + "}";
    }

    long single(String cypher) {
        return neo4j.database().executeTransactionally(cypher, Map.of(),
                r -> ((Number) r.next().values().iterator().next()).longValue());
    }

    String text(String cypher) {
        return neo4j.database().executeTransactionally(cypher, Map.of(), r -> String.valueOf(r.next().values()
                .iterator().next()));
    }

    @Nested
    class Nodes {
        @Test
        void create() throws Invalid {
            apply("{'type': 'node', 'op': 'create', 'labels': ['Foo', 'Bar'], 'properties': {'id': 1, 'foo': 'foo-value'}}",
                    "{'type': 'node', 'op': 'CREATE', 'properties': {'id': 2}}");
            assertThat(graph()).containsExactlyInAnyOrder(" {id: 2}", ":Bar:Foo {foo: \"foo-value\", id: 1}");
        }

        @Test
        void updateSetsTheGivenPropertiesAndKeepsTheOthers() throws Invalid {
            run("CREATE (:Foo {id: 0, foo: 'foo-value', keep: 'kept'})");
            apply("{'type': 'node', 'op': 'UPDATE', 'labels': ['Foo'], 'ids': {'id': 0},"
                    + " 'properties': {'id': 1, 'foo': 'foo-value-updated'}}");
            assertThat(graph()).containsExactlyInAnyOrder(":Foo {foo: \"foo-value-updated\", id: 1, keep: \"kept\"}");
        }

        @Test
        void updateCreatesNothing() throws Invalid {
            apply("{'type': 'node', 'op': 'update', 'labels': ['Foo'], 'ids': {'id': 1}, 'properties': {'foo': 'x'}}",
                    "{'type': 'node', 'op': 'create', 'labels': ['Foo'], 'properties': {'id': 2, 'foo': 'foo-value'}}");
            assertThat(graph()).containsExactlyInAnyOrder(":Foo {foo: \"foo-value\", id: 2}");
        }

        @Test
        void updateLabelsOnlyMatch() throws Invalid {
            run("CREATE (:Foo {id: 1}), (:Bar {id: 1})");
            apply("{'type': 'node', 'op': 'update', 'labels': ['Foo', 'Extra'], 'ids': {'id': 1}, 'properties': {'x': 1}}",
                    "{'type': 'node', 'op': 'update', 'labels': ['Bar'], 'ids': {'id': 1}, 'properties': {'y': 2}}");
            assertThat(graph()).containsExactlyInAnyOrder(":Bar {id: 1, y: 2}", ":Foo {id: 1}");
        }

        @Test
        void mergeCreatesOrUpdates() throws Invalid {
            run("CREATE (:User {userId: 'user1', name: 'Alice'})");
            int statements = apply(
                    "{'type': 'node', 'op': 'merge', 'labels': ['User'], 'ids': {'userId': 'user1'}, 'properties': {'age': 30}}",
                    "{'type': 'node', 'op': 'merge', 'labels': ['User'], 'ids': {'userId': 'user2'},"
                            + " 'properties': {'name': 'Bob', 'age': 25}}",
                    "{'type': 'node', 'op': 'merge', 'labels': ['User'], 'ids': {'userId': 'user2'},"
                            + " 'properties': {'age': 26}}");
            assertThat(statements).isEqualTo(1);
            assertThat(graph()).containsExactlyInAnyOrder(":User {age: 26, name: \"Bob\", userId: \"user2\"}",
                    ":User {age: 30, name: \"Alice\", userId: \"user1\"}");
        }

        @Test
        void aNullPropertyIsRemoved() throws Invalid {
            run("CREATE (:Foo {id: 1, gone: 'x', kept: 'y'})");
            apply("{'type': 'node', 'op': 'merge', 'labels': ['Foo'], 'ids': {'id': 1}, 'properties': {'gone': null}}");
            assertThat(graph()).containsExactlyInAnyOrder(":Foo {id: 1, kept: \"y\"}");
        }

        @Test
        void deleteWithoutDetachFailsWhileTheNodeHasRelationships() throws Invalid {
            run("CREATE (:User {userId: 'user1'})-[:PURCHASED]->(:Product {productId: 'prod1'}), (:User {userId: 'user2'})");
            assertThatThrownBy(() -> apply("{'type': 'node', 'op': 'delete', 'labels': ['User'],"
                    + " 'ids': {'userId': 'user1'}}")).hasMessageContaining("still has relationships");
            assertThat(single("MATCH (n) RETURN count(n)")).isEqualTo(3);
            apply("{'type': 'node', 'op': 'delete', 'labels': ['User'], 'ids': {'userId': 'user2'}, 'detach': false}");
            assertThat(single("MATCH (n:User) RETURN count(n)")).isEqualTo(1);
        }

        @Test
        void detachDelete() throws Invalid {
            run("CREATE (:User {userId: 'user1', name: 'Alice'})-[:PURCHASED]->(:Product {productId: 'prod1'})");
            apply("{'type': 'node', 'op': 'delete', 'labels': ['User'], 'ids': {'userId': 'user1'}, 'detach': true}");
            assertThat(single("MATCH (n:User) RETURN count(n)")).isZero();
            assertThat(single("MATCH (n:Product) RETURN count(n)")).isEqualTo(1);
            assertThat(single("MATCH ()-[r]->() RETURN count(r)")).isZero();
        }

        @Test
        void createUpdateAndDeleteInOneBatch() throws Invalid {
            apply("{'type': 'node', 'op': 'create', 'labels': ['User'], 'properties': {'userId': 'user1', 'name': 'Alice'}}",
                    "{'type': 'node', 'op': 'update', 'labels': ['User'], 'ids': {'userId': 'user1'},"
                            + " 'properties': {'name': 'Alice Updated'}}",
                    "{'type': 'node', 'op': 'delete', 'labels': ['User'], 'ids': {'userId': 'user1'}}");
            assertThat(graph()).isEmpty();
        }

        @Test
        void byInternalIdAndElementIdTheLabelsAndOtherIdsAreIgnored() throws Invalid {
            run("CREATE (:Foo {id: 1}), (:Foo {id: 2}), (:Foo {id: 3})");
            long id = single("MATCH (n:Foo {id: 1}) RETURN id(n)");
            String elementId = text("MATCH (n:Foo {id: 2}) RETURN elementId(n)");
            String third = text("MATCH (n:Foo {id: 3}) RETURN elementId(n)");
            apply("{'type': 'node', 'op': 'update', 'labels': ['Nope'], 'ids': {'_id': " + id + ", 'id': 9},"
                            + " 'properties': {'by': 'id'}}",
                    "{'type': 'node', 'op': 'update', 'ids': {'_elementId': '" + elementId + "'},"
                            + " 'properties': {'by': 'elementId'}}",
                    "{'type': 'node', 'op': 'delete', 'labels': ['Foo'], 'ids': {'_elementId': '" + third + "'}}");
            assertThat(graph()).containsExactlyInAnyOrder(":Foo {by: \"id\", id: 1}", ":Foo {by: \"elementId\", id: 2}");
        }
    }

    static final String FOO_BAR = "'from': {'labels': ['Foo'], 'ids': {'id': 1}}, 'to': {'labels': ['Bar'], 'ids': {'id': 1}}";

    @Nested
    class Relationships {
        @Test
        void createBetweenMatchedNodes() throws Invalid {
            run("CREATE (:Foo {id: 1}), (:Bar {id: 1})");
            apply("{'type': 'relationship', 'op': 'create', 'rel_type': 'RELATED_TO', " + FOO_BAR
                    + ", 'properties': {'by': 'incident'}}",
                    "{'type': 'relationship', 'op': 'create', 'rel_type': 'RELATED_TO', " + FOO_BAR
                            + ", 'properties': {}}",
                    "{'type': 'relationship', 'op': 'create', 'rel_type': 'RELATED_TO', 'from': {'labels': ['Foo'],"
                            + " 'ids': {'id': 1}}, 'to': {'labels': ['Bar'], 'ids': {'id': 2}}, 'properties': {}}");
            assertThat(relationships()).containsExactlyInAnyOrder("1-[RELATED_TO {by: \"incident\"}]->1", "1-[RELATED_TO {}]->1");
            assertThat(single("MATCH (n) RETURN count(n)")).isEqualTo(2);
        }

        @Test
        void createMergingOneOrBothNodes() throws Invalid {
            run("CREATE (:Foo {id: 1})");
            apply("{'type': 'relationship', 'op': 'create', 'rel_type': 'RELATED_TO', 'from': {'labels': ['Foo'],"
                    + " 'ids': {'id': 1}, 'op': 'match'}, 'to': {'labels': ['Bar'], 'ids': {'id': 1}, 'op': 'merge'},"
                    + " 'properties': {'by': 'incident'}}",
                    "{'type': 'relationship', 'op': 'create', 'rel_type': 'FOLLOWS', 'from': {'labels': ['User'],"
                            + " 'ids': {'id': 7}, 'op': 'merge'}, 'to': {'labels': ['User'], 'ids': {'id': 8},"
                            + " 'op': 'MERGE'}, 'properties': {'since': '2023-06-15'}}");
            assertThat(graph()).containsExactlyInAnyOrder(":Bar {id: 1}", ":Foo {id: 1}", ":User {id: 7}", ":User {id: 8}");
            assertThat(relationships()).containsExactlyInAnyOrder("1-[RELATED_TO {by: \"incident\"}]->1",
                    "7-[FOLLOWS {since: \"2023-06-15\"}]->8");
        }

        @Test
        void createBetweenNodesFoundByInternalIds() throws Invalid {
            run("CREATE (:Foo {id: 1}), (:Bar {id: 2})");
            long from = single("MATCH (n:Foo) RETURN id(n)");
            String to = text("MATCH (n:Bar) RETURN elementId(n)");
            apply("{'type': 'relationship', 'op': 'create', 'rel_type': 'R', 'from': {'labels': ['Foo'],"
                    + " 'ids': {'_id': " + from + "}}, 'to': {'ids': {'_elementId': '" + to + "'}}, 'properties': {}}");
            assertThat(relationships()).containsExactlyInAnyOrder("1-[R {}]->2");
        }

        @Test
        void updateWithoutIdsUpdatesOneRelationshipBetweenTheEnds() throws Invalid {
            run("CREATE (f:Foo {id: 1}), (b:Bar {id: 1}), (f)-[:RELATED_TO {by: 'incident'}]->(b),"
                    + " (f)-[:RELATED_TO {by: 'incident'}]->(b), (f)-[:OTHER {by: 'incident'}]->(b)");
            apply("{'type': 'relationship', 'op': 'update', 'rel_type': 'RELATED_TO', " + FOO_BAR
                    + ", 'properties': {'by': 'incident-updated'}}");
            assertThat(relationships()).containsExactlyInAnyOrder("1-[OTHER {by: \"incident\"}]->1",
                    "1-[RELATED_TO {by: \"incident-updated\"}]->1", "1-[RELATED_TO {by: \"incident\"}]->1");
        }

        @Test
        void updateByIds() throws Invalid {
            run("CREATE (f:Foo {id: 1}), (b:Bar {id: 1}), (f)-[:RELATED_TO {id: 2, by: 'incident'}]->(b),"
                    + " (f)-[:RELATED_TO {id: 3, by: 'incident'}]->(b)");
            apply("{'type': 'relationship', 'op': 'update', 'rel_type': 'RELATED_TO', " + FOO_BAR
                    + ", 'ids': {'id': 2}, 'properties': {'by': 'incident-updated'}}",
                    "{'type': 'relationship', 'op': 'update', 'rel_type': 'RELATED_TO', " + FOO_BAR
                            + ", 'ids': {'id': 4}, 'properties': {'by': 'nobody'}}");
            assertThat(relationships()).containsExactlyInAnyOrder("1-[RELATED_TO {by: \"incident-updated\", id: 2}]->1",
                    "1-[RELATED_TO {by: \"incident\", id: 3}]->1");
        }

        @Test
        void updateAndDeleteByInternalIds() throws Invalid {
            run("CREATE (f:Foo {id: 1}), (b:Bar {id: 1}), (f)-[:RELATED_TO {n: 1}]->(b), (f)-[:RELATED_TO {n: 2}]->(b),"
                    + " (f)-[:RELATED_TO {n: 3}]->(b)");
            long first = single("MATCH ()-[r {n: 1}]->() RETURN id(r)");
            String second = text("MATCH ()-[r {n: 2}]->() RETURN elementId(r)");
            String third = text("MATCH ()-[r {n: 3}]->() RETURN elementId(r)");
            apply("{'type': 'relationship', 'op': 'update', 'rel_type': 'RELATED_TO', " + FOO_BAR
                    + ", 'ids': {'_id': " + first + "}, 'properties': {'x': 'by id'}}",
                    "{'type': 'relationship', 'op': 'update', 'rel_type': 'RELATED_TO', " + FOO_BAR
                            + ", 'ids': {'_elementId': '" + second + "'}, 'properties': {'x': 'by elementId'}}",
                    "{'type': 'relationship', 'op': 'delete', 'rel_type': 'RELATED_TO', " + FOO_BAR
                            + ", 'ids': {'_elementId': '" + third + "'}}");
            assertThat(relationships()).containsExactlyInAnyOrder("1-[RELATED_TO {n: 1, x: \"by id\"}]->1",
                    "1-[RELATED_TO {n: 2, x: \"by elementId\"}]->1");
        }

        @Test
        void mergeUpdatesAnExistingRelationship() throws Invalid {
            run("CREATE (f:Foo {id: 1}), (b:Bar {id: 1}), (f)-[:RELATED_TO {by: 'incident'}]->(b)");
            apply("{'type': 'relationship', 'op': 'merge', 'rel_type': 'RELATED_TO', " + FOO_BAR
                    + ", 'properties': {'by': 'incident-updated', 'by-new': 'incident-merged'}}");
            assertThat(relationships()).containsExactlyInAnyOrder(
                    "1-[RELATED_TO {by: \"incident-updated\", by-new: \"incident-merged\"}]->1");
        }

        @Test
        void mergeCreatesTheRelationshipAndMergedNodes() throws Invalid {
            run("CREATE (:Foo {id: 1})");
            apply("{'type': 'relationship', 'op': 'merge', 'rel_type': 'RELATED_TO', 'from': {'labels': ['Foo'],"
                    + " 'ids': {'id': 1}, 'op': 'match'}, 'to': {'labels': ['Bar'], 'ids': {'id': 1}, 'op': 'merge'},"
                    + " 'properties': {'by': 'incident'}}",
                    "{'type': 'relationship', 'op': 'merge', 'rel_type': 'RELATED_TO', 'from': {'labels': ['Foo'],"
                            + " 'ids': {'id': 1}}, 'to': {'labels': ['Bar'], 'ids': {'id': 1}}, 'ids': {'key': 5},"
                            + " 'properties': {'by': 'keyed'}}",
                    "{'type': 'relationship', 'op': 'merge', 'rel_type': 'RELATED_TO', 'from': {'labels': ['Foo'],"
                            + " 'ids': {'id': 1}}, 'to': {'labels': ['Bar'], 'ids': {'id': 1}}, 'ids': {'key': 5},"
                            + " 'properties': {'again': true}}");
            assertThat(graph()).containsExactlyInAnyOrder(":Bar {id: 1}", ":Foo {id: 1}");
            assertThat(relationships()).containsExactlyInAnyOrder("1-[RELATED_TO {again: true, by: \"keyed\", key: 5}]->1",
                    "1-[RELATED_TO {by: \"incident\"}]->1");
        }

        @Test
        void deleteWithoutIdsDeletesOneRelationship() throws Invalid {
            run("CREATE (f:Foo {id: 1}), (b:Bar {id: 1}), (f)-[:RELATED_TO]->(b), (f)-[:RELATED_TO]->(b),"
                    + " (f)-[:OTHER]->(b)");
            apply("{'type': 'relationship', 'op': 'delete', 'rel_type': 'RELATED_TO', " + FOO_BAR + "}");
            assertThat(relationships()).containsExactlyInAnyOrder("1-[OTHER {}]->1", "1-[RELATED_TO {}]->1");
        }

        @Test
        void deleteByIds() throws Invalid {
            run("CREATE (f:Foo {id: 1}), (b:Bar {id: 1}), (f)-[:RELATED_TO {id: 2}]->(b), (f)-[:RELATED_TO {id: 3}]->(b)");
            apply("{'type': 'relationship', 'op': 'delete', 'rel_type': 'RELATED_TO', " + FOO_BAR
                    + ", 'ids': {'id': 3}}");
            assertThat(relationships()).containsExactlyInAnyOrder("1-[RELATED_TO {id: 2}]->1");
            assertThat(single("MATCH (n) RETURN count(n)")).isEqualTo(2);
        }
    }

    /**
     * One record: two customers merged, a product created, a purchase between them, then the first customer's id
     * changed and the customer found again by its new id (consecutive rows of one template, run in order).
     */
    static final String LIFECYCLE = """
            [{'type': 'node', 'op': 'merge', 'labels': ['Customer'], 'ids': {'id': 1}, 'properties': {'name': 'Ann'}},
             {'type': 'node', 'op': 'merge', 'labels': ['Customer'], 'ids': {'id': 2}, 'properties': {'name': 'Bo'}},
             {'type': 'node', 'op': 'create', 'labels': ['Product'], 'properties': {'id': 10}},
             {'type': 'relationship', 'op': 'create', 'rel_type': 'PURCHASED',
              'from': {'labels': ['Customer'], 'ids': {'id': 1}}, 'to': {'labels': ['Product'], 'ids': {'id': 10}},
              'properties': {'qty': 2}},
             {'type': 'node', 'op': 'update', 'labels': ['Customer'], 'ids': {'id': 1}, 'properties': {'id': 3}},
             {'type': 'node', 'op': 'update', 'labels': ['Customer'], 'ids': {'id': 3}, 'properties': {'vip': true}}]""";

    @Nested
    class Arrays {
        @Test
        void applyAllTheirOperationsInOrder() throws Invalid {
            List<Op> ops = ops(LIFECYCLE);
            assertThat(ops).hasSize(6);
            assertThat(ops.get(1).template()).isSameAs(ops.get(0).template());
            assertThat(ops.get(5).template()).isSameAs(ops.get(4).template());
            int statements = apply(LIFECYCLE);
            assertThat(statements).isEqualTo(4);
            assertThat(graph()).containsExactlyInAnyOrder(":Customer {id: 2, name: \"Bo\"}",
                    ":Customer {id: 3, name: \"Ann\", vip: true}", ":Product {id: 10}");
            assertThat(relationships()).containsExactlyInAnyOrder("3-[PURCHASED {qty: 2}]->10");
        }

        @Test
        void areAtomic() {
            run("CREATE (:User {id: 1})-[:KNOWS]->(:User {id: 2})");
            assertThatThrownBy(() -> apply("""
                    [{'type': 'node', 'op': 'create', 'labels': ['User'], 'properties': {'id': 3}},
                     {'type': 'node', 'op': 'delete', 'labels': ['User'], 'ids': {'id': 1}}]"""))
                    .hasMessageContaining("still has relationships");
            assertThat(graph()).containsExactlyInAnyOrder(":User {id: 1}", ":User {id: 2}");
        }

        @Test
        void anEmptyArrayAsksForNothing() throws Invalid {
            assertThat(ops("[]")).isEmpty();
        }
    }

    @Test
    void namesAreQuoted() throws Invalid {
        apply("{'type': 'node', 'op': 'merge', 'labels': ['Odd`Label x'], 'ids': {'we`ird key': 1},"
                + " 'properties': {'a b': 2}}",
                "{'type': 'node', 'op': 'merge', 'labels': ['Plain'], 'ids': {'id': 5}, 'properties': {}}",
                "{'type': 'relationship', 'op': 'merge', 'rel_type': 'HAS `IT`', 'from': {'labels': ['Odd`Label x'],"
                        + " 'ids': {'we`ird key': 1}}, 'to': {'labels': ['Plain'], 'ids': {'id': 5}},"
                        + " 'ids': {'k`': 1}, 'properties': {}}");
        assertThat(single("MATCH (:`Odd``Label x` {`we``ird key`: 1, `a b`: 2})-[:`HAS ``IT```]->(:Plain) RETURN count(*)"))
                .isEqualTo(1);
    }
}
