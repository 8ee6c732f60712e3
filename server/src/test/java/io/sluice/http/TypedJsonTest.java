package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.vocab.GraphValues.GraphDuration;
import io.sluice.vocab.GraphValues.GraphNode;
import io.sluice.vocab.GraphValues.GraphPath;
import io.sluice.vocab.GraphValues.GraphPoint;
import io.sluice.vocab.GraphValues.GraphRelationship;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZonedDateTime;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The typed and plain encodings of every Cypher type against what a real Neo4j 2026.08.1 answered
 * (/work/probes/http/out/s2.txt, "ALL TYPES out", "GRAPH", "typed params in"), and the parameter decoder.
 */
class TypedJsonTest {
    static final String E = "4:7b1f0f25-510b-4199-857e-9a91eff31901:";
    static final GraphNode ALICE = new GraphNode(0, E + "0", List.of("P"), Map.of("name", "alice"));
    static final GraphNode BOB = new GraphNode(1, E + "1", List.of("P"), Map.of("name", "bob"));
    static final GraphRelationship KNOWS = new GraphRelationship(0, "5:7b1f0f25-510b-4199-857e-9a91eff31901:0",
            "KNOWS", E + "0", E + "1", Map.of("since", 2020L), 0, 1);
    static final String ALICE_TYPED = "{\"$type\":\"Node\",\"_value\":{\"_element_id\":\"" + E + "0\",\"_labels\":[\"P\"],"
            + "\"_properties\":{\"name\":{\"$type\":\"String\",\"_value\":\"alice\"}}}}";
    static final String BOB_TYPED = ALICE_TYPED.replace(E + "0", E + "1").replace("alice", "bob");
    static final String KNOWS_TYPED = "{\"$type\":\"Relationship\",\"_value\":{\"_element_id\":\"5:7b1f0f25-510b-4199-857e-9a91eff31901:0\","
            + "\"_start_node_element_id\":\"" + E + "0\",\"_end_node_element_id\":\"" + E + "1\",\"_type\":\"KNOWS\","
            + "\"_properties\":{\"since\":{\"$type\":\"Integer\",\"_value\":\"2020\"}}}}";
    static final String ALICE_PLAIN = "{\"elementId\":\"" + E + "0\",\"labels\":[\"P\"],\"properties\":{\"name\":\"alice\"}}";
    static final String BOB_PLAIN = ALICE_PLAIN.replace(E + "0", E + "1").replace("alice", "bob");
    static final String KNOWS_PLAIN = "{\"elementId\":\"5:7b1f0f25-510b-4199-857e-9a91eff31901:0\",\"startNodeElementId\":\""
            + E + "0\",\"endNodeElementId\":\"" + E + "1\",\"type\":\"KNOWS\",\"properties\":{\"since\":2020}}";

    static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    /** (what, detached value, Neo4j's typed JSON, Neo4j's plain JSON), verbatim from the captures. */
    static Stream<Arguments> everyType() {
        return Stream.of(
                Arguments.of("int", 1L, "{\"$type\":\"Integer\",\"_value\":\"1\"}", "1"),
                Arguments.of("big", 9007199254740993L, "{\"$type\":\"Integer\",\"_value\":\"9007199254740993\"}", "9007199254740993"),
                Arguments.of("maxlong", Long.MAX_VALUE, "{\"$type\":\"Integer\",\"_value\":\"9223372036854775807\"}", "9223372036854775807"),
                Arguments.of("neg", -42L, "{\"$type\":\"Integer\",\"_value\":\"-42\"}", "-42"),
                Arguments.of("f", 1.5, "{\"$type\":\"Float\",\"_value\":\"1.5\"}", "1.5"),
                Arguments.of("f2", 0.1, "{\"$type\":\"Float\",\"_value\":\"0.1\"}", "0.1"),
                Arguments.of("f3", 1.0e20, "{\"$type\":\"Float\",\"_value\":\"1.0E20\"}", "1.0E20"),
                Arguments.of("f4", 1.0e-7, "{\"$type\":\"Float\",\"_value\":\"1.0E-7\"}", "1.0E-7"),
                Arguments.of("f5", 3.0, "{\"$type\":\"Float\",\"_value\":\"3.0\"}", "3.0"),
                Arguments.of("nan", Double.NaN, "{\"$type\":\"Float\",\"_value\":\"NaN\"}", "\"NaN\""),
                Arguments.of("inf", Double.POSITIVE_INFINITY, "{\"$type\":\"Float\",\"_value\":\"Infinity\"}", "\"Infinity\""),
                Arguments.of("ninf", Double.NEGATIVE_INFINITY, "{\"$type\":\"Float\",\"_value\":\"-Infinity\"}", "\"-Infinity\""),
                Arguments.of("s", "héllo \"q\"", "{\"$type\":\"String\",\"_value\":\"héllo \\\"q\\\"\"}", "\"héllo \\\"q\\\"\""),
                Arguments.of("b", true, "{\"$type\":\"Boolean\",\"_value\":true}", "true"),
                Arguments.of("n", null, "{\"$type\":\"Null\",\"_value\":null}", "null"),
                Arguments.of("bytes", new byte[] {1, 2, 3, -1}, "{\"$type\":\"Base64\",\"_value\":\"AQID/w==\"}", "\"AQID/w==\""),
                Arguments.of("list", Arrays.asList(1L, "a", null),
                        "{\"$type\":\"List\",\"_value\":[{\"$type\":\"Integer\",\"_value\":\"1\"},{\"$type\":\"String\",\"_value\":\"a\"},{\"$type\":\"Null\",\"_value\":null}]}",
                        "[1,\"a\",null]"),
                Arguments.of("map", map("a", 1L, "b", List.of(true)),
                        "{\"$type\":\"Map\",\"_value\":{\"a\":{\"$type\":\"Integer\",\"_value\":\"1\"},\"b\":{\"$type\":\"List\",\"_value\":[{\"$type\":\"Boolean\",\"_value\":true}]}}}",
                        "{\"a\":1,\"b\":[true]}"),
                Arguments.of("d", LocalDate.of(2024, 2, 29), "{\"$type\":\"Date\",\"_value\":\"2024-02-29\"}", "\"2024-02-29\""),
                Arguments.of("dneg", LocalDate.of(-44, 3, 15), "{\"$type\":\"Date\",\"_value\":\"-0044-03-15\"}", "\"-0044-03-15\""),
                Arguments.of("t", OffsetTime.parse("12:34:56.123456789+01:00"),
                        "{\"$type\":\"Time\",\"_value\":\"12:34:56.123456789+01:00\"}", "\"12:34:56.123456789+01:00\""),
                Arguments.of("t0", OffsetTime.parse("12:00:00Z"), "{\"$type\":\"Time\",\"_value\":\"12:00:00Z\"}", "\"12:00:00Z\""),
                Arguments.of("lt", LocalTime.of(12, 34, 56), "{\"$type\":\"LocalTime\",\"_value\":\"12:34:56\"}", "\"12:34:56\""),
                Arguments.of("lt0", LocalTime.of(12, 0), "{\"$type\":\"LocalTime\",\"_value\":\"12:00:00\"}", "\"12:00:00\""),
                Arguments.of("dto", OffsetDateTime.parse("2024-02-29T12:34:56.5+01:00"),
                        "{\"$type\":\"OffsetDateTime\",\"_value\":\"2024-02-29T12:34:56.5+01:00\"}", "\"2024-02-29T12:34:56.5+01:00\""),
                Arguments.of("dtz0", OffsetDateTime.parse("2024-02-29T12:34:56Z"),
                        "{\"$type\":\"OffsetDateTime\",\"_value\":\"2024-02-29T12:34:56Z\"}", "\"2024-02-29T12:34:56Z\""),
                Arguments.of("dtzid", ZonedDateTime.parse("2024-02-29T12:34:56+01:00[Europe/Stockholm]"),
                        "{\"$type\":\"ZonedDateTime\",\"_value\":\"2024-02-29T12:34:56+01:00[Europe/Stockholm]\"}",
                        "\"2024-02-29T12:34:56+01:00\""),
                Arguments.of("ldt", LocalDateTime.parse("2024-02-29T12:34:56.000000001"),
                        "{\"$type\":\"LocalDateTime\",\"_value\":\"2024-02-29T12:34:56.000000001\"}", "\"2024-02-29T12:34:56.000000001\""),
                Arguments.of("dur", GraphDuration.parse("P1Y2M3DT4H5M6.7S"),
                        "{\"$type\":\"Duration\",\"_value\":\"P1Y2M3DT4H5M6.7S\"}", "\"P1Y2M3DT4H5M6.7S\""),
                Arguments.of("durneg", new GraphDuration(0, -1, 30, 0), "{\"$type\":\"Duration\",\"_value\":\"P-1DT30S\"}", "\"P-1DT30S\""),
                Arguments.of("dur0", new GraphDuration(0, 0, 0, 0), "{\"$type\":\"Duration\",\"_value\":\"PT0S\"}", "\"PT0S\""),
                Arguments.of("p2c", new GraphPoint(7203, List.of(1.5, 2.0)),
                        "{\"$type\":\"Point\",\"_value\":\"SRID=7203;POINT (1.5 2.0)\"}", "\"SRID=7203;POINT (1.5 2.0)\""),
                Arguments.of("p3c", new GraphPoint(9157, List.of(1.0, 2.0, 3.0)),
                        "{\"$type\":\"Point\",\"_value\":\"SRID=9157;POINT Z (1.0 2.0 3.0)\"}", "\"SRID=9157;POINT Z (1.0 2.0 3.0)\""),
                Arguments.of("p2w", new GraphPoint(4326, List.of(12.5, 56.1)),
                        "{\"$type\":\"Point\",\"_value\":\"SRID=4326;POINT (12.5 56.1)\"}", "\"SRID=4326;POINT (12.5 56.1)\""),
                Arguments.of("p3w", new GraphPoint(4979, List.of(12.5, 56.1, 100.0)),
                        "{\"$type\":\"Point\",\"_value\":\"SRID=4979;POINT Z (12.5 56.1 100.0)\"}", "\"SRID=4979;POINT Z (12.5 56.1 100.0)\""),
                Arguments.of("node", ALICE, ALICE_TYPED, ALICE_PLAIN),
                Arguments.of("relationship", KNOWS, KNOWS_TYPED, KNOWS_PLAIN),
                Arguments.of("path", new GraphPath(List.of(ALICE, BOB), List.of(KNOWS)),
                        "{\"$type\":\"Path\",\"_value\":[" + ALICE_TYPED + "," + KNOWS_TYPED + "," + BOB_TYPED + "]}",
                        "[" + ALICE_PLAIN + "," + KNOWS_PLAIN + "," + BOB_PLAIN + "]"),
                Arguments.of("reversed path", new GraphPath(List.of(BOB, ALICE), List.of(KNOWS)),
                        "{\"$type\":\"Path\",\"_value\":[" + BOB_TYPED + "," + KNOWS_TYPED + "," + ALICE_TYPED + "]}",
                        "[" + BOB_PLAIN + "," + KNOWS_PLAIN + "," + ALICE_PLAIN + "]"));
    }

    static String text(Object tree) {
        return new String(Json.write(tree), StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyType")
    void typedOutputIsNeo4jsByteForByte(String what, Object value, String typed, String plain) {
        assertThat(text(TypedJson.encode(value))).isEqualTo(typed);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyType")
    void plainOutputIsNeo4jsByteForByte(String what, Object value, String typed, String plain) {
        assertThat(text(Json.queryValue(value))).isEqualTo(plain);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everyType")
    void typedParametersDecodeToTheValuesTheSinksDetach(String what, Object value, String typed, String plain) throws Exception {
        if (value instanceof GraphNode || value instanceof GraphRelationship || value instanceof GraphPath) {
            return; // not parameters in Neo4j either
        }
        Map<String, Object> params = Json.object(Json.parse(("{\"x\":" + typed + "}").getBytes(StandardCharsets.UTF_8)), "");
        Object decoded = TypedJson.decodeParameters(params).get("x");
        if (value instanceof byte[] b) {
            assertThat(decoded).isEqualTo(b);
        } else {
            assertThat(decoded).isEqualTo(value);
        }
        assertThat(text(TypedJson.encode(decoded))).as("round trip").isEqualTo(typed);
    }

    static Map<String, Object> decode(String json) throws Exception {
        return TypedJson.decodeParameters(Json.object(Json.parse(json.getBytes(StandardCharsets.UTF_8)), ""));
    }

    @Test
    void neo4jsLeniencyIsKept() throws Exception {
        assertThat(decode("{\"x\":{\"$type\":\"Integer\",\"_value\":7}}")).containsEntry("x", 7L);
        assertThat(decode("{\"x\":{\"$type\":\"Boolean\",\"_value\":\"yes\"}}")).containsEntry("x", false);
        assertThat(decode("{\"x\":null}")).containsEntry("x", null);
        assertThat(decode("{\"x\":{\"$type\":\"Point\",\"_value\":\"SRID=7203;POINT (1.5 2)\"}}"))
                .containsEntry("x", new GraphPoint(7203, List.of(1.5, 2.0)));
        assertThat(decode("{\"x\":{\"$type\":\"Time\",\"_value\":\"12:34:56.123+01:00\"}}"))
                .containsEntry("x", OffsetTime.parse("12:34:56.123+01:00"));
    }

    @Test
    void whatNeo4jRefusesIsRefused() {
        assertThatThrownBy(() -> decode("{\"x\":{\"$type\":\"DateTime\",\"_value\":\"2024-02-29T12:34:56Z\"}}"))
                .isInstanceOf(TypedJson.Invalid.class).hasMessage("Type DateTime is not supported.");
        assertThatThrownBy(() -> decode("{\"x\":{\"$type\":\"List\",\"_value\":[{\"$type\":\"Vector\",\"_value\":{}}]}}"))
                .isInstanceOf(TypedJson.Invalid.class).hasMessage("Type Vector is not supported.");
        assertThatThrownBy(() -> decode("{\"x\":5}")).isInstanceOf(TypedJson.Invalid.class)
                .hasMessageContaining("parameter x").hasMessageContaining("a number");
        assertThatThrownBy(() -> decode("{\"x\":{\"$type\":\"Integer\",\"_value\":\"1.5\"}}"))
                .isInstanceOf(TypedJson.Invalid.class).hasMessageContaining("not a Integer: 1.5");
        assertThatThrownBy(() -> decode("{\"x\":{\"$type\":\"Integer\",\"_value\":\"9223372036854775808\"}}"))
                .isInstanceOf(TypedJson.Invalid.class);
        assertThatThrownBy(() -> decode("{\"x\":{\"$type\":\"ZonedDateTime\",\"_value\":\"2024-02-29T12:34:56+01:00\"}}"))
                .isInstanceOf(TypedJson.Invalid.class).hasMessageContaining("region id");
        assertThatThrownBy(() -> decode("{\"x\":{\"$type\":\"Point\",\"_value\":\"SRID=1234;POINT (1 2)\"}}"))
                .isInstanceOf(TypedJson.Invalid.class).hasMessageContaining("SRID 1234");
        assertThatThrownBy(() -> decode("{\"x\":{\"$type\":\"Map\",\"_value\":{\"k\":\"bare\"}}}"))
                .isInstanceOf(TypedJson.Invalid.class).hasMessageContaining("parameter x.k");
    }
}
