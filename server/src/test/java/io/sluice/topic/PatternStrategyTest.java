package io.sluice.topic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Sources;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.topic.PatternParser.Mapping;
import io.sluice.topic.PatternParser.NodePattern;
import io.sluice.topic.PatternParser.RelationshipPattern;
import io.sluice.topic.PatternParser.Selection;
import io.sluice.support.TestServer;
import io.sluice.write.Template;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.neo4j.graphdb.Transaction;

/**
 * The pattern strategy against the connector's own cases: its parser tests (PatternTest.kt), its transformer tests
 * (Node/RelationshipPatternEventTransformerTest.kt) as rows, and its integration tests and quickstarts
 * (PatternHandlerIT.kt, Neo4j*PatternIT.kt, sink-pattern-*-quickstart.properties) as graphs in a real Neo4j.
 */
@Timeout(60)
class PatternStrategyTest {
    static final long TIMESTAMP = 1_700_000_000_123L;
    static Path dir;
    static EmbeddedNeo4j neo4j;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-pattern-");
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir, null, 64L << 20, 0, "neo4j"));
    }

    @AfterAll
    static void stop() {
        if (neo4j != null) {
            neo4j.close();
        }
        TestServer.deleteRecursively(dir);
    }

    @BeforeEach
    void emptyGraph() {
        neo4j.database().executeTransactionally("MATCH (n) DETACH DELETE n");
    }

    static PatternStrategy strategy(String pattern) {
        return strategy(pattern, false, false);
    }

    static PatternStrategy strategy(String pattern, boolean mergeNodes, boolean mergeRelationships) {
        return new PatternStrategy("t", new Sources.PatternStrategy(pattern, mergeNodes, mergeRelationships));
    }

    static Message record(Object key, Object value) {
        return record(key, value, Map.of());
    }

    static Message record(Object key, Object value, Map<String, Object> headers) {
        return new Message("t", 0, 0, TIMESTAMP, key, value, headers);
    }

    /** The one row a record makes. */
    static Map<String, Object> row(Strategy s, Object key, Object value) throws Strategy.Invalid {
        List<Strategy.Op> ops = s.ops(record(key, value));
        assertThat(ops).hasSize(1);
        assertThat(ops.getFirst().template().validate(ops.getFirst().row(), 0)).isEmpty();
        return ops.getFirst().row();
    }

    /** Runs the records' ops in one transaction, consecutive rows of one template as one UNWIND, as sluice does. */
    static void apply(Strategy s, Message... records) throws Strategy.Invalid {
        List<Strategy.Op> ops = new ArrayList<>();
        for (Message m : records) {
            ops.addAll(s.ops(m));
        }
        try (Transaction tx = neo4j.database().beginTx()) {
            for (int i = 0; i < ops.size(); ) {
                Template t = ops.get(i).template();
                List<Map<String, Object>> rows = new ArrayList<>();
                while (i < ops.size() && ops.get(i).template().equals(t)) {
                    rows.add(ops.get(i++).row());
                }
                tx.execute(t.unwindCypher(), Map.of(Template.ROWS_PARAM, rows)).resultAsString();
            }
            tx.commit();
        }
    }

    static void run(String cypher) {
        neo4j.database().executeTransactionally(cypher);
    }

    static List<Map<String, Object>> query(String cypher) {
        return neo4j.database().executeTransactionally(cypher, Map.of(), r -> {
            List<Map<String, Object>> out = new ArrayList<>();
            r.forEachRemaining(out::add);
            return out;
        });
    }

    /** The properties of the nodes {@code cypher} returns as {@code n}. */
    static List<Map<String, Object>> nodes(String cypher) {
        return query(cypher).stream().map(r -> cast(r.get("n"))).toList();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> cast(Object o) {
        return (Map<String, Object>) o;
    }

    static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    static final Map<String, Object> PERSON = map("id", 1L, "name", "john", "surname", "doe", "dob", "2000-01-01",
            "address", map("city", "london", "country", "uk"));

    static Selection sel(boolean all, List<Mapping> keys, List<Mapping> includes, List<String> excludes) {
        return new Selection(all, keys, includes, excludes);
    }

    static Mapping m(String name) {
        return new Mapping(name, name);
    }

    static Mapping m(String from, String to) {
        return new Mapping(from, to);
    }

    @Nested
    class Parsing {
        @ParameterizedTest
        @ValueSource(strings = {"(:LabelA:LabelB{!id,*})", "LabelA:LabelB{!id,*}", " ( : LabelA : LabelB { ! id , * } ) "})
        void aNodeWithAllProperties(String pattern) {
            assertThat(PatternParser.parse(pattern)).isEqualTo(new NodePattern(List.of("LabelA", "LabelB"),
                    sel(true, List.of(m("id")), List.of(), List.of())));
        }

        @ParameterizedTest
        @ValueSource(strings = {"(:LabelA{!idA,!idB,foo,+bar})", "LabelA{!idA,!idB,foo,+bar}"})
        void compositeKeysAndFixedProperties(String pattern) {
            assertThat(PatternParser.parse(pattern)).isEqualTo(new NodePattern(List.of("LabelA"),
                    sel(false, List.of(m("idA"), m("idB")), List.of(m("foo"), m("bar")), List.of())));
        }

        @ParameterizedTest
        @ValueSource(strings = {"(:`LabelA`:`Label B`{!`id`,`a foo`,`c dar`: `c bar`})",
                "`LabelA`:`Label B`{!`id`,`a foo`,`c dar`: `c bar`}"})
        void quotedNames(String pattern) {
            assertThat(PatternParser.parse(pattern)).isEqualTo(new NodePattern(List.of("LabelA", "Label B"),
                    sel(false, List.of(m("id")), List.of(m("a foo"), m("c bar", "c dar")), List.of())));
        }

        @Test
        void aDoubledBacktickIsOneAndPathsAreOneName() {
            assertThat(PatternParser.parse("(:`a``b`{!id: product.id, foo.bar: __value.x.y, x$y})")).isEqualTo(
                    new NodePattern(List.of("a`b"), sel(false, List.of(m("product.id", "id")),
                            List.of(m("__value.x.y", "foo.bar"), m("x$y")), List.of())));
        }

        @ParameterizedTest
        @ValueSource(strings = {"(:LabelA{!id: product.id,-foo,-bar})", "LabelA{!id: product.id,-foo,-bar}"})
        void exclusionsImplyAllProperties(String pattern) {
            assertThat(PatternParser.parse(pattern)).isEqualTo(new NodePattern(List.of("LabelA"),
                    sel(true, List.of(m("product.id", "id")), List.of(), List.of("foo", "bar"))));
        }

        @Test
        void aNodeWithoutLabelsIsANodePattern() {
            assertThat(PatternParser.parse("({!id})")).isEqualTo(new NodePattern(List.of(),
                    sel(true, List.of(m("id")), List.of(), List.of())));
        }

        @ParameterizedTest
        @ValueSource(strings = {"(:LabelA{!idA,aa})-[:REL_TYPE]->(:LabelB{!idB,bb})",
                "LabelA{!idA,aa} REL_TYPE LabelB{!idB,bb}", "(:LabelB{!idB,bb})<-[:REL_TYPE]-(:LabelA{!idA,aa})",
                "(:LabelA{!idA,aa})\u2014[:REL_TYPE]\u2013\uFF1E(:LabelB{!idB,bb})"})
        void aRelationshipGoesWhereItsArrowPoints(String pattern) {
            assertThat(PatternParser.parse(pattern)).isEqualTo(new RelationshipPattern("REL_TYPE",
                    new NodePattern(List.of("LabelA"), sel(false, List.of(m("idA")), List.of(m("aa")), List.of())),
                    new NodePattern(List.of("LabelB"), sel(false, List.of(m("idB")), List.of(m("bb")), List.of())),
                    sel(true, List.of(), List.of(), List.of())));
        }

        @ParameterizedTest
        @ValueSource(strings = {"(:A{!id: start.id})-[:R{!id: rel.id, foo: rel.foo, -x, *}]->(:B{!id: end.id})",
                "A{!id: start.id} R{!id: rel.id, foo: rel.foo, -x, *} B{!id: end.id}"})
        void relationshipSelectors(String pattern) {
            RelationshipPattern r = (RelationshipPattern) PatternParser.parse(pattern);
            assertThat(r.selection()).isEqualTo(sel(true, List.of(m("rel.id", "id")), List.of(m("rel.foo", "foo")),
                    List.of("x")));
            assertThat(r.start().selection().keys()).containsExactly(m("start.id", "id"));
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', textBlock = """
                (:LabelA{!id,-foo,bar})                                | Property inclusions and exclusions are mutually exclusive.
                LabelA{!id,-foo,bar}                                   | Property inclusions and exclusions are mutually exclusive.
                (:LabelA{!id})-[:REL_TYPE{foo, -BAR}]->(:LabelB{!idB})  | Property inclusions and exclusions are mutually exclusive.
                (:LabelA{id,bar})                                      | At least one key selector must be specified in node patterns.
                LabelA{}                                               | At least one key selector must be specified in node patterns.
                (:LabelA{})-[:REL_TYPE{foo,BAR}]->(:LabelB{!idB})      | At least one key selector must be specified in node patterns.
                (:LabelA{!id})-[:REL_TYPE{foo}]-(:LabelB{!idB})        | Direction of relationship pattern must be explicitly set.
                (:LabelA{!id})<-[:REL_TYPE{foo}]->(:LabelB{!idB})      | Direction of relationship pattern must be explicitly set.
                (:LabelA{!id})-[:REL_TYPE{foo}]->(:LabelB{!idB,-exclude}) | Property exclusions are not allowed on start and end node patterns.
                LabelA{!id} REL_TYPE{foo} LabelB{!idB,*}               | Wildcard property inclusion is not allowed on start and end node patterns.
                (:A{!id})-->(:B{!id})                                  | A relationship pattern must name its type, as in (:A{!id})-[:TYPE]->(:B{!id}).
                ({!id})-[:R]->(:B{!id})                                | Start and end node patterns must have a label.
                (LabelA{!id,-foo,bar})                                 | Invalid pattern: line 1:1, expected '{' but found name 'LabelA'.
                (:LabelA{!id,-foo: xyz})                               | Invalid pattern: line 1:17, expected '}' but found ':'.
                (:LabelA{!id})-[REL_TYPE{foo,BAR}]->(:LabelB{!idB})    | Invalid pattern: line 1:16, expected ':' but found name 'REL_TYPE'.
                (:A{!id})-[:R]->(:B{!id})-[:S]->(:C{!id})              | Invalid pattern: line 1:25, expected the end of the pattern but found '-'.
                (:A{!id});                                             | Invalid pattern: line 1:9, unexpected ';'.
                (:A{!null})                                            | Invalid pattern: line 1:5, 'null' is a keyword; quote it to use it as a name: `null`.
                (:A{!`id})                                             | Invalid pattern: line 1:5, a quoted name is not closed with '`'.
                (:A{!id,})                                             | Invalid pattern: line 1:8, expected a name but found '}'.
                (:A)                                                   | Invalid pattern: line 1:3, expected '{' but found ')'.
                A{!id} B{!id}                                          | Invalid pattern: line 1:13, expected a name but found the end of the pattern.
                """)
        void badPatternsSayWhatIsWrong(String pattern, String message) {
            assertThatThrownBy(() -> PatternParser.parse(pattern)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(message);
        }

        @Test
        void theStrategyNamesTheTopicOfABadPattern() {
            assertThatThrownBy(() -> new PatternStrategy("people", new Sources.PatternStrategy("(:A{x})", false,
                    false))).isInstanceOf(IllegalArgumentException.class).hasMessage("topic 'people': pattern (:A{x}):"
                    + " At least one key selector must be specified in node patterns.");
        }
    }

    @Nested
    class NodeRows {
        void assertRow(String pattern, Object key, Object value, Map<String, Object> keys, Map<String, Object> props)
                throws Strategy.Invalid {
            assertThat(row(strategy(pattern), key, value)).isEqualTo(Map.of("keys", keys, "props", props));
        }

        @Test
        void allPropertiesButTheKeyNestedMapsFlattened() throws Exception {
            assertRow("(:ALabel {!id})", null, PERSON, map("id", 1L), map("name", "john", "surname", "doe",
                    "dob", "2000-01-01", "address.city", "london", "address.country", "uk"));
        }

        @Test
        void includedProperties() throws Exception {
            assertRow("(:ALabel {!id,surname,address.country})", null, PERSON, map("id", 1L),
                    map("surname", "doe", "address.country", "uk"));
            assertRow("(:ALabel {!id, address})", null, PERSON, map("id", 1L),
                    map("address.city", "london", "address.country", "uk"));
        }

        @Test
        void excludedProperties() throws Exception {
            assertRow("(:ALabel {!id, -name, -address.city})", null, PERSON, map("id", 1L),
                    map("surname", "doe", "dob", "2000-01-01", "address.country", "uk"));
            assertRow("(:ALabel {!id, -address})", null, PERSON, map("id", 1L),
                    map("name", "john", "surname", "doe", "dob", "2000-01-01"));
        }

        @Test
        void aliasedProperties() throws Exception {
            assertRow("(:ALabel {!id, first_name: name, lives_in: address.city, home: __value.address})", null, PERSON,
                    map("id", 1L), map("first_name", "john", "lives_in", "london", "home.city", "london",
                            "home.country", "uk"));
        }

        @Test
        void anIncludedPrefixMustEndAtADot() throws Exception {
            assertRow("(:ALabel {!id, nam})", null, PERSON, map("id", 1L), map());
        }

        @Test
        void keyTimestampAndHeaderPaths() throws Exception {
            var s = strategy("(:ALabel {!id: __key.id, name: __value.name, created_at: __timestamp,"
                    + " source: __header.app.name})");
            List<Strategy.Op> ops = s.ops(record(map("id", 1L), PERSON, Map.of("app", map("name", "crm"))));
            assertThat(ops.getFirst().row()).isEqualTo(Map.of("keys", map("id", 1L), "props", map("name", "john",
                    "created_at", OffsetDateTime.ofInstant(Instant.ofEpochMilli(TIMESTAMP), ZoneOffset.UTC),
                    "source", "crm")));
        }

        @Test
        void anImplicitKeyIsReadFromTheValueThenTheKey() throws Exception {
            assertRow("(:User{!id})", map("id", 1L), map("name", "john-updated"), map("id", 1L),
                    map("name", "john-updated"));
            assertRow("(:User{!id})", map("id", 2L), map("id", 1L), map("id", 1L), map());
        }

        @Test
        void mergingLeavesTheKeysToMerge() throws Exception {
            assertThat(row(strategy("(:ALabel {!id, name})", true, false), null, PERSON))
                    .isEqualTo(Map.of("keys", map("id", 1L), "props", map("name", "john")));
        }

        @Test
        void aTombstoneDeletesByItsKeyEvenAKeyNamedInTheValue() throws Exception {
            var s = strategy("(:ALabel{!id: __value.old_id, name: __value.name})");
            List<Strategy.Op> ops = s.ops(record(map("old_id", 1L), null));
            assertThat(ops).singleElement().satisfies(op -> {
                assertThat(op.row()).isEqualTo(Map.of("keys", map("id", 1L)));
                assertThat(op.template().cypher()).contains("DETACH DELETE");
            });
            assertThat(s.ops(record(map("old_id", null), null))).as("a null key matches nothing").isEmpty();
        }

        @Test
        void onePairOfTemplatesServesEveryRecord() throws Exception {
            var s = strategy("(:A{!id})");
            Template first = s.ops(record(null, map("id", 1L))).getFirst().template();
            assertThat(s.ops(record(null, map("id", 2L, "x", 3L))).getFirst().template()).isSameAs(first);
            assertThat(s.ops(record(map("id", 1L), null)).getFirst().template()).isNotEqualTo(first)
                    .isSameAs(s.ops(record(map("id", 2L), null)).getFirst().template());
            assertThat(first.key()).containsExactly("keys");
            assertThat(first.lockOrder()).containsExactly("keys");
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', textBlock = """
                (:Person{!id, !secondary_id, name}) | {}       | Key 'id' could not be located in the message.
                (:Person{!id, !second_id, name})    | {"id":1} | Key 'second_id' could not be located in the message.
                (:Person{!id: __key.old_id, name})  | {}       | Key 'old_id' could not be located in the keys.
                (:Person{!id: __value.old_id})      | {}       | Key 'old_id' could not be located in the values.
                (:Person{!id: __header.old_id})     | {}       | Key 'old_id' could not be located in the headers.
                (:Person{!id})                      | 7        | Key 'id' could not be located in the message.
                (:Person{!id: __key})               | 7        | Key '__key' could not be located in the message.
                (:Person{!name})                    | {}       | Key 'name' is null: nothing can be merged on a null key.
                """)
        void recordsThatCannotBeMapped(String pattern, String key, String message) {
            Object k = key.equals("{}") ? Map.of() : key.equals("7") ? 7L : Map.of("id", 1L);
            Map<String, Object> value = new HashMap<>(Map.of("surname", "Doe"));
            value.put("name", null);
            assertThatThrownBy(() -> strategy(pattern).ops(record(k, value))).isInstanceOf(Strategy.Invalid.class)
                    .hasMessage(message);
        }

        @Test
        void aValueThatIsNotAMapCannotBeMapped() {
            assertThatThrownBy(() -> strategy("(:A{!id})").ops(record(map("id", 1L), "text")))
                    .isInstanceOf(Strategy.Invalid.class).hasMessage("Message value must be convertible to a Map.");
        }
    }

    @Nested
    class RelationshipRows {
        static final Map<String, Object> BOUGHT = map("idStart", 1L, "idEnd", 2L, "idRelationship", 3L, "foo", "foo",
                "bar", "bar", "nested", map("baz", "baz", "bak", "bak"));

        Map<String, Object> expected(Map<String, Object> startProps, Map<String, Object> endProps,
                Map<String, Object> props) {
            return Map.of("startKeys", map("id", 1L), "startProps", startProps, "endKeys", map("id", 2L),
                    "endProps", endProps, "keys", map("id", 3L), "props", props);
        }

        @Test
        void theRelationshipTakesTheFieldsNoKeyUsed() throws Exception {
            var s = strategy("(:LabelA{!id: idStart})-[:REL_TYPE{!id: idRelationship}]->(:LabelB{!id: idEnd})");
            assertThat(row(s, null, BOUGHT)).isEqualTo(expected(map(), map(), map("foo", "foo", "bar", "bar",
                    "nested.baz", "baz", "nested.bak", "bak")));
        }

        @Test
        void exclusionsAndHierarchies() throws Exception {
            var s = strategy("(:LabelA{!id: idStart})-[:REL_TYPE{!id: idRelationship,-foo,-nested.bak}]->"
                    + "(:LabelB{!id: idEnd})");
            assertThat(row(s, null, BOUGHT)).isEqualTo(expected(map(), map(), map("bar", "bar", "nested.baz", "baz")));
            s = strategy("(:LabelA{!id: idStart})-[:REL_TYPE{!id: idRelationship, new_nested: nested}]->"
                    + "(:LabelB{!id: idEnd})");
            assertThat(row(s, null, BOUGHT)).isEqualTo(expected(map(), map(),
                    map("new_nested.baz", "baz", "new_nested.bak", "bak")));
        }

        @Test
        void nodeInclusionsAndOtherRecordFields() throws Exception {
            var s = strategy("(:LabelA{!id: __key.start, foo, propA, nested.baz})-[:REL_TYPE{!id: __key.id, bar,"
                    + " created_at: __timestamp}]->(:LabelB{!id: __key.end, foo, propB, nested.bak})");
            Map<String, Object> value = new LinkedHashMap<>(BOUGHT);
            value.putAll(map("propA", "a", "propB", "b"));
            assertThat(row(s, map("start", 1L, "end", 2L, "id", 3L), value)).isEqualTo(expected(
                    map("foo", "foo", "propA", "a", "nested.baz", "baz"),
                    map("foo", "foo", "propB", "b", "nested.bak", "bak"), map("bar", "bar", "created_at",
                            OffsetDateTime.ofInstant(Instant.ofEpochMilli(TIMESTAMP), ZoneOffset.UTC))));
        }

        @Test
        void aTombstoneDeletesTheRelationshipByTheKeys() throws Exception {
            var s = strategy("(:LabelA{!id: start})-[:REL_TYPE{!id}]->(:LabelB{!id: __value.end})");
            List<Strategy.Op> ops = s.ops(record(map("start", 1L, "end", 2L, "id", 3L), null));
            assertThat(ops).singleElement().satisfies(op -> {
                assertThat(op.row()).isEqualTo(Map.of("startKeys", map("id", 1L), "endKeys", map("id", 2L),
                        "keys", map("id", 3L)));
                assertThat(op.template().key()).containsExactly("startKeys", "endKeys");
                assertThat(op.template().lockOrder()).as("relationship rows keep their order").isEmpty();
            });
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', textBlock = """
                (:LabelA{!id: start})-[:REL_TYPE{!id: rel_id}]->(:LabelB{!id: end})         | Key 'start' could not be located in the message.
                (:LabelA{!id: __key.start})-[:REL_TYPE{!id: rel_id}]->(:LabelB{!id: end})   | Key 'start' could not be located in the keys.
                (:LabelA{!id: __key.rel_id})-[:REL_TYPE{!id: __key.x}]->(:LabelB{!id: end}) | Key 'x' could not be located in the keys.
                """)
        void aMissingKeyCannotBeMapped(String pattern, String message) {
            assertThatThrownBy(() -> strategy(pattern).ops(record(map("rel_id", 1L, "end", 1L), null)))
                    .isInstanceOf(Strategy.Invalid.class).hasMessage(message);
        }
    }

    @Nested
    class InNeo4j {
        @Test
        void theNodeQuickstart() throws Exception {
            apply(strategy("(:Person{!id,name,surname})"), record(null, PERSON));
            assertThat(nodes("MATCH (n:Person) RETURN properties(n) AS n"))
                    .containsExactly(map("id", 1L, "name", "john", "surname", "doe"));
        }

        @Test
        void theRelationshipQuickstart() throws Exception {
            apply(strategy("(:Person{!id})-[:KNOWS{since}]->(:Person{!otherId})"),
                    record(null, map("id", 1L, "otherId", 2L, "since", 2020L, "other", "x")));
            assertThat(query("MATCH (a:Person)-[r:KNOWS]->(b:Person) RETURN properties(a) AS a, properties(r) AS r,"
                    + " properties(b) AS b")).containsExactly(Map.of("a", map("id", 1L), "r", map("since", 2020L),
                    "b", map("otherId", 2L)));
        }

        @Test
        void multipleLabelsNestedMapsAndExclusions() throws Exception {
            apply(strategy("(:User:Person{!id, -name, -surname})"), record(null, PERSON));
            assertThat(nodes("MATCH (n:User:Person) RETURN properties(n) AS n")).containsExactly(
                    map("id", 1L, "dob", "2000-01-01", "address.city", "london", "address.country", "uk"));
            assertThat(query("MATCH (n) RETURN labels(n) AS l").getFirst().get("l"))
                    .asInstanceOf(InstanceOfAssertFactories.LIST).containsExactlyInAnyOrder("User", "Person");
        }

        @Test
        void theTimestamp() throws Exception {
            apply(strategy("(:User{!id, created_at: __timestamp})"), record(null, PERSON));
            assertThat(((ZonedDateTime) nodes("MATCH (n:User) RETURN properties(n) AS n").getFirst()
                    .get("created_at")).toInstant()).isEqualTo(Instant.ofEpochMilli(TIMESTAMP));
        }

        @ParameterizedTest
        @CsvSource({"true, 'Alice Updated', 25", "false, 'Alice Updated',"})
        void nodePropertiesMergeOrAreReplaced(boolean merge, String name, Long age) throws Exception {
            run("CREATE (:User {userId: 'user1', name: 'Alice', age: 25})");
            apply(strategy("(:User{!userId, name})", merge, false), record(null, map("userId", "user1",
                    "name", "Alice Updated")));
            Map<String, Object> expected = map("userId", "user1", "name", name);
            if (age != null) {
                expected.put("age", age);
            }
            assertThat(nodes("MATCH (n:User) RETURN properties(n) AS n")).containsExactly(expected);
        }

        @Test
        void aTombstoneDetachDeletesTheNode() throws Exception {
            run("CREATE (:User {userId: 'user1'})-[:FOLLOWS]->(:User {userId: 'user2'})");
            apply(strategy("(:User{!userId, name})"), record(map("userId", "user1"), null));
            assertThat(nodes("MATCH (n:User) RETURN properties(n) AS n")).containsExactly(map("userId", "user2"));
        }

        @Test
        void createDeleteAndRecreateInOneBatch() throws Exception {
            var s = strategy("(:User{!id: __value.old_id,name: __key.first_name,surname: last_name})");
            apply(s, record(map("first_name", "john"), map("old_id", 1L, "last_name", "doe")),
                    record(map("old_id", 1L), null),
                    record(map("first_name", "jim"), map("old_id", 1L, "last_name", "dim")));
            assertThat(nodes("MATCH (n:User) RETURN properties(n) AS n"))
                    .containsExactly(map("id", 1L, "name", "jim", "surname", "dim"));
        }

        @Test
        void explicitPathsOnBothNodesAndTheRelationship() throws Exception {
            apply(strategy("(:User{!id: __key.user_id, name: __value.first_name})-[:BOUGHT{!id: __key.transaction_id,"
                    + " price: __value.paid_price, currency}]->(:Product{!id: __key.product_id, name: __value.product_name})"),
                    record(map("user_id", 1L, "product_id", 2L, "transaction_id", 3L), map("first_name", "John",
                            "paid_price", 10.5, "currency", "EUR", "product_name", "computer")));
            assertThat(query("MATCH (u:User)-[r:BOUGHT]->(p:Product) RETURN properties(u) AS u, properties(r) AS r,"
                    + " properties(p) AS p")).containsExactly(Map.of("u", map("id", 1L, "name", "John"),
                    "r", map("id", 3L, "price", 10.5, "currency", "EUR"), "p", map("id", 2L, "name", "computer")));
        }

        @Test
        void relationshipExclusionsInTheSimpleForm() throws Exception {
            apply(strategy("User{!userId} BOUGHT{-currency} Product{!productId}"),
                    record(null, map("userId", 1L, "productId", 2L, "amount", 5L, "currency", "EUR")));
            assertThat(query("MATCH (u:User)-[r:BOUGHT]->(p:Product) RETURN properties(r) AS r"))
                    .containsExactly(Map.of("r", map("amount", 5L)));
        }

        @ParameterizedTest
        @CsvSource({"true, true", "false, false"})
        void relationshipAndEndpointPropertiesMergeOrAreReplaced(boolean mergeNodes, boolean mergeRelationship)
                throws Exception {
            run("CREATE (:User {userId: 'user1', age: 25})-[:FOLLOWS {since: '2020-01-01', note: 'original'}]->"
                    + "(:User {userId: 'user2', age: 30})");
            apply(strategy("(:User{!userId: start.userId, name: start.name})-[:FOLLOWS{since}]->"
                    + "(:User{!userId: end.userId, name: end.name})", mergeNodes, mergeRelationship),
                    record(null, map("start", map("userId", "user1", "name", "Alice"), "end.userId", "user2",
                            "end.name", "Bob", "since", "2023-01-01")));
            Map<String, Object> rel = map("since", "2023-01-01");
            Map<String, Object> alice = map("userId", "user1", "name", "Alice");
            Map<String, Object> bob = map("userId", "user2", "name", "Bob");
            if (mergeRelationship) {
                rel.put("note", "original");
            }
            if (mergeNodes) {
                alice.put("age", 25L);
                bob.put("age", 30L);
            }
            assertThat(query("MATCH (a:User)-[r:FOLLOWS]->(b:User) RETURN properties(a) AS a, properties(r) AS r,"
                    + " properties(b) AS b")).containsExactly(Map.of("a", alice, "r", rel, "b", bob));
        }

        @Test
        void rowsOfOneBatchActOneAfterAnother() throws Exception {
            var s = strategy("(:User{!id: a, name: aName})-[:KNOWS]->(:User{!id: b, name: bName})");
            apply(s, record(null, map("a", 1L, "aName", "one", "b", 2L, "bName", "two as an end")),
                    record(null, map("a", 2L, "aName", "two as a start", "b", 3L, "bName", "three")));
            assertThat(nodes("MATCH (n:User) RETURN properties(n) AS n ORDER BY n.id")).containsExactly(
                    map("id", 1L, "name", "one"), map("id", 2L, "name", "two as a start"), map("id", 3L, "name", "three"));
            assertThat(query("MATCH ()-[r:KNOWS]->() RETURN count(r) AS c")).containsExactly(Map.of("c", 2L));
        }

        @Test
        void aRelationshipTombstoneDeletesOnlyTheRelationship() throws Exception {
            run("CREATE (:User {userId: 'user1'})-[:FOLLOWS {since: '2023-01-01'}]->(:User {userId: 'user2'})");
            apply(strategy("(:User{!userId: start.userId})-[:FOLLOWS]->(:User{!userId: end.userId})"),
                    record(map("start.userId", "user1", "end.userId", "user2"), null));
            assertThat(query("MATCH ()-[r]->() RETURN count(r) AS c")).containsExactly(Map.of("c", 0L));
            assertThat(query("MATCH (n:User) RETURN count(n) AS c")).containsExactly(Map.of("c", 2L));
        }

        @Test
        void aKeylessRelationshipIsOneOfItsParallelRelationships() throws Exception {
            run("CREATE (u:User {id: 1}), (p:Product {id: 2}), (u)-[:BOUGHT {n: 1}]->(p), (u)-[:BOUGHT {n: 2}]->(p)");
            var s = strategy("(:User{!id: userId})-[:BOUGHT]->(:Product{!id: productId})");
            apply(s, record(null, map("userId", 1L, "productId", 2L, "date", "2024-05-27")));
            List<Map<String, Object>> bought = nodes("MATCH ()-[r:BOUGHT]->() RETURN properties(r) AS n");
            assertThat(bought).hasSize(2).contains(map("date", "2024-05-27"));
            assertThat(bought).filteredOn(r -> r.containsKey("n")).as("the other is as it was").hasSize(1);
            apply(s, record(map("userId", 1L, "productId", 2L), null));
            assertThat(query("MATCH ()-[r:BOUGHT]->() RETURN count(r) AS c")).containsExactly(Map.of("c", 1L));
        }

        @Test
        void keyedRelationshipsAreDistinct() throws Exception {
            var s = strategy("(:User{!id: userId})-[:BOUGHT {!id: transactionId}]->(:Product{!id: productId})");
            apply(s, record(null, map("userId", 1L, "productId", 2L, "transactionId", 3L)),
                    record(null, map("userId", 1L, "productId", 2L, "transactionId", 4L)),
                    record(null, map("userId", 1L, "productId", 2L, "transactionId", 3L, "x", 1L)));
            assertThat(query("MATCH ()-[r:BOUGHT]->() RETURN properties(r) AS r ORDER BY r.id")).containsExactly(
                    Map.of("r", map("id", 3L, "x", 1L)), Map.of("r", map("id", 4L)));
        }

        @Test
        void namesWithBackticksAndSpaces() throws Exception {
            var s = strategy("(:`My ``Label`` X`{!`the id`: id, `a`` b`: name})-[:`RE``L`]->(:`B B`{!`k k`: id})");
            apply(s, record(null, map("id", 1L, "name", "n")));
            assertThat(query("MATCH (a)-[r]->(b) RETURN labels(a) AS la, properties(a) AS a, type(r) AS t,"
                    + " labels(b) AS lb, properties(b) AS b")).containsExactly(Map.of("la", List.of("My `Label` X"),
                    "a", map("the id", 1L, "a` b", "n"), "t", "RE`L", "lb", List.of("B B"), "b", map("k k", 1L)));
        }

        @ParameterizedTest
        @ValueSource(strings = {"(:A{!id, *})", "(:A:B{!a, !b: x.y})-[:R{!id}]->(:B{!c})", "A{!a} R B{!b}"})
        void theChecksCompile(String pattern) {
            var s = strategy(pattern, true, false);
            for (Strategy.Check c : s.checks()) {
                neo4j.database().executeTransactionally("EXPLAIN " + c.statement());
            }
            assertThat(s.checks()).hasSize(2);
        }

        @Test
        void theChecksAskForTheNodeKeys() {
            assertThat(strategy("(:A:B{!a, !b: x.y})-[:R{!id}]->(:B{!c})").checks().getFirst().uniqueKeys())
                    .containsExactly(new Strategy.NodeKey("A", List.of("a", "b")), new Strategy.NodeKey("B", List.of("c")));
            assertThat(strategy("(:P{!id})-[:KNOWS]->(:P{!id})").checks().getFirst().uniqueKeys())
                    .containsExactly(new Strategy.NodeKey("P", List.of("id")));
        }
    }
}
