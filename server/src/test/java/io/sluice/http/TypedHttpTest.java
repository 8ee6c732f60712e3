package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.sluice.support.TestServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The typed Query API over real HTTP against embedded Neo4j, checked against what a real Neo4j 2026.08.1
 * answered to the same requests (/work/probes/http/out/s2.txt): every type out, typed parameters in, stored
 * and read back, and the refusals.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TypedHttpTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String TYPED = "application/vnd.neo4j.query";
    /** s2.txt "ALL TYPES out": the statement, and Neo4j's typed answer's row. */
    static final String ALL_TYPES = "RETURN 1 AS int, 9007199254740993 AS big, 9223372036854775807 AS maxlong, -42 AS neg, 1.5 AS f, 0.1 AS f2, 1.0e20 AS f3, 1.0e-7 AS f4, 3.0 AS f5, 0.0/0.0 AS nan, 1.0/0.0 AS inf, -1.0/0.0 AS ninf, \\\"h\\u00e9llo \\\\\\\"q\\\\\\\"\\\" AS s, true AS b, null AS n, [1, \\\"a\\\", null] AS list, {a: 1, b: [true]} AS map, date(\\\"2024-02-29\\\") AS d, date(\\\"-0044-03-15\\\") AS dneg, time(\\\"12:34:56.123456789+01:00\\\") AS t, time(\\\"12:00:00Z\\\") AS t0, localtime(\\\"12:34:56\\\") AS lt, localtime(\\\"12:00\\\") AS lt0, datetime(\\\"2024-02-29T12:34:56.5+01:00\\\") AS dto, datetime(\\\"2024-02-29T12:34:56Z\\\") AS dtz0, datetime(\\\"2024-02-29T12:34:56[Europe/Stockholm]\\\") AS dtzid, localdatetime(\\\"2024-02-29T12:34:56.000000001\\\") AS ldt, duration(\\\"P1Y2M3DT4H5M6.7S\\\") AS dur, duration({days: -1, seconds: 30}) AS durneg, duration(\\\"PT0S\\\") AS dur0, point({x: 1.5, y: 2}) AS p2c, point({x: 1, y: 2, z: 3}) AS p3c, point({longitude: 12.5, latitude: 56.1}) AS p2w, point({longitude: 12.5, latitude: 56.1, height: 100}) AS p3w";
    static final String ALL_TYPES_TYPED = """
            [{"$type":"Integer","_value":"1"},{"$type":"Integer","_value":"9007199254740993"},{"$type":"Integer","_value":"9223372036854775807"},{"$type":"Integer","_value":"-42"},{"$type":"Float","_value":"1.5"},{"$type":"Float","_value":"0.1"},{"$type":"Float","_value":"1.0E20"},{"$type":"Float","_value":"1.0E-7"},{"$type":"Float","_value":"3.0"},{"$type":"Float","_value":"NaN"},{"$type":"Float","_value":"Infinity"},{"$type":"Float","_value":"-Infinity"},{"$type":"String","_value":"héllo \\"q\\""},{"$type":"Boolean","_value":true},{"$type":"Null","_value":null},{"$type":"List","_value":[{"$type":"Integer","_value":"1"},{"$type":"String","_value":"a"},{"$type":"Null","_value":null}]},{"$type":"Map","_value":{"a":{"$type":"Integer","_value":"1"},"b":{"$type":"List","_value":[{"$type":"Boolean","_value":true}]}}},{"$type":"Date","_value":"2024-02-29"},{"$type":"Date","_value":"-0044-03-15"},{"$type":"Time","_value":"12:34:56.123456789+01:00"},{"$type":"Time","_value":"12:00:00Z"},{"$type":"LocalTime","_value":"12:34:56"},{"$type":"LocalTime","_value":"12:00:00"},{"$type":"OffsetDateTime","_value":"2024-02-29T12:34:56.5+01:00"},{"$type":"OffsetDateTime","_value":"2024-02-29T12:34:56Z"},{"$type":"ZonedDateTime","_value":"2024-02-29T12:34:56+01:00[Europe/Stockholm]"},{"$type":"LocalDateTime","_value":"2024-02-29T12:34:56.000000001"},{"$type":"Duration","_value":"P1Y2M3DT4H5M6.7S"},{"$type":"Duration","_value":"P-1DT30S"},{"$type":"Duration","_value":"PT0S"},{"$type":"Point","_value":"SRID=7203;POINT (1.5 2.0)"},{"$type":"Point","_value":"SRID=9157;POINT Z (1.0 2.0 3.0)"},{"$type":"Point","_value":"SRID=4326;POINT (12.5 56.1)"},{"$type":"Point","_value":"SRID=4979;POINT Z (12.5 56.1 100.0)"}]""";
    /** s2.txt "typed params in, typed out": Neo4j echoed every one of these unchanged. */
    static final String TYPED_PARAMS = """
            {"i":{"$type":"Integer","_value":"9007199254740993"},
            "f":{"$type":"Float","_value":"1.5"},
            "fnan":{"$type":"Float","_value":"NaN"},
            "finf":{"$type":"Float","_value":"Infinity"},
            "s":{"$type":"String","_value":"x"},
            "b":{"$type":"Boolean","_value":true},
            "bytes":{"$type":"Base64","_value":"AQID/w=="},
            "l":{"$type":"List","_value":[{"$type":"Integer","_value":"1"},{"$type":"Integer","_value":"2"}]},
            "d":{"$type":"Date","_value":"2024-02-29"},
            "t":{"$type":"Time","_value":"12:34:56.123+01:00"},
            "lt":{"$type":"LocalTime","_value":"12:34:56"},
            "odt":{"$type":"OffsetDateTime","_value":"2024-02-29T12:34:56+01:00"},
            "zdt":{"$type":"ZonedDateTime","_value":"2024-02-29T12:34:56+01:00[Europe/Stockholm]"},
            "ldt":{"$type":"LocalDateTime","_value":"2024-02-29T12:34:56"},
            "dur":{"$type":"Duration","_value":"P1Y2M3DT4H5M6.7S"},
            "p2c":{"$type":"Point","_value":"SRID=7203;POINT (1.5 2.0)"},
            "p3w":{"$type":"Point","_value":"SRID=4979;POINT Z (12.5 56.1 100.0)"}}""";

    TestServer s;

    @BeforeAll
    void start() {
        s = TestServer.start("batch: {max_rows: 100, max_wait: 2ms}\n", false);
    }

    @AfterAll
    void stop() {
        if (s != null) {
            s.close();
        }
    }

    HttpResponse<String> query(String path, String contentType, String accept, String body) {
        return s.send(HttpRequest.newBuilder(URI.create(s.url(path))).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", contentType).header("Accept", accept).build());
    }

    @Test
    void aQueryReturningEveryTypeAnswersInNeo4jsTypedJson() throws Exception {
        assertThat(query("/db/neo4j/query/v2?mode=sync", "application/json", "application/json",
                "{\"statement\":\"CREATE (:P {name:'alice'})-[:KNOWS {since:2020}]->(:P {name:'bob'})\"}").statusCode())
                .isEqualTo(202);
        String statement = "MATCH pth = (na:P {name: 'alice'})-[rk:KNOWS]->(nb:P) WITH na, rk, nb, pth "
                + ALL_TYPES + ", $bytes AS bytes, na, rk, nb, pth";
        var res = query("/db/neo4j/query/v2", TYPED, TYPED, "{\"statement\":\"" + statement + "\",\"parameters\":"
                + "{\"bytes\":{\"$type\":\"Base64\",\"_value\":\"AQID/w==\"}}}");
        assertThat(res.statusCode()).as(res.body()).isEqualTo(202);
        assertThat(res.headers().firstValue("Content-Type")).as("the npm client requires exactly this").hasValue(TYPED);
        ArrayNode row = (ArrayNode) JSON.readTree(res.body()).at("/data/values/0");
        ArrayNode expected = (ArrayNode) JSON.readTree(ALL_TYPES_TYPED);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(row.get(i)).as("column %d", i).isEqualTo(expected.get(i));
        }
        assertThat(row.get(expected.size())).isEqualTo(JSON.readTree("{\"$type\":\"Base64\",\"_value\":\"AQID/w==\"}"));
        JsonNode a = row.get(expected.size() + 1);
        JsonNode r = row.get(expected.size() + 2);
        JsonNode b = row.get(expected.size() + 3);
        String aId = a.at("/_value/_element_id").asText();
        String bId = b.at("/_value/_element_id").asText();
        assertThat(a).isEqualTo(JSON.readTree("{\"$type\":\"Node\",\"_value\":{\"_element_id\":\"" + aId
                + "\",\"_labels\":[\"P\"],\"_properties\":{\"name\":{\"$type\":\"String\",\"_value\":\"alice\"}}}}"));
        assertThat(r).isEqualTo(JSON.readTree("{\"$type\":\"Relationship\",\"_value\":{\"_element_id\":\""
                + r.at("/_value/_element_id").asText() + "\",\"_start_node_element_id\":\"" + aId
                + "\",\"_end_node_element_id\":\"" + bId + "\",\"_type\":\"KNOWS\","
                + "\"_properties\":{\"since\":{\"$type\":\"Integer\",\"_value\":\"2020\"}}}}"));
        assertThat(row.get(expected.size() + 4)).isEqualTo(JSON.readTree("{\"$type\":\"Path\",\"_value\":[" + a + "," + r + "," + b + "]}"));
        // the same query in plain JSON: Neo4j's plain texts (s2.txt, "ALL TYPES out, Accept: application/json")
        var plain = query("/db/neo4j/query/v2", TYPED, "application/json", "{\"statement\":\"" + statement
                + "\",\"parameters\":{\"bytes\":{\"$type\":\"Base64\",\"_value\":\"AQID/w==\"}}}");
        assertThat(plain.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(JSON.readTree(plain.body()).at("/data/values/0/25").asText()).isEqualTo("2024-02-29T12:34:56+01:00");
        assertThat(JSON.readTree(plain.body()).at("/data/values/0/30").asText()).isEqualTo("SRID=7203;POINT (1.5 2.0)");
        assertThat(JSON.readTree(plain.body()).at("/data/values/0/34").asText()).isEqualTo("AQID/w==");
    }

    @Test
    void typedParametersAreStoredAndReadBackWithTheirTypes() throws Exception {
        Map<String, JsonNode> sent = fields(JSON.readTree(TYPED_PARAMS));
        StringBuilder set = new StringBuilder();
        StringBuilder ret = new StringBuilder();
        for (String k : sent.keySet()) {
            set.append(set.isEmpty() ? "" : ", ").append(k).append(": $").append(k);
            ret.append(ret.isEmpty() ? "" : ", ").append("n.").append(k).append(" AS ").append(k);
        }
        var write = query("/db/neo4j/query/v2?mode=sync", TYPED + ".v1.0", "application/json",
                "{\"statement\":\"CREATE (:Typed {" + set + "})\",\"parameters\":" + TYPED_PARAMS + "}");
        assertThat(write.statusCode()).as(write.body()).isEqualTo(202);
        var read = query("/db/neo4j/query/v2", "application/json", TYPED + ".v1.2, application/json",
                "{\"statement\":\"MATCH (n:Typed) RETURN " + ret + "\"}");
        assertThat(read.statusCode()).as(read.body()).isEqualTo(202);
        assertThat(read.headers().firstValue("Content-Type")).hasValue(TYPED + ".v1.2");
        JsonNode row = JSON.readTree(read.body()).at("/data/values/0");
        int i = 0;
        for (var e : sent.entrySet()) {
            assertThat(row.get(i++)).as(e.getKey()).isEqualTo(e.getValue());
        }
    }

    static Map<String, JsonNode> fields(JsonNode n) {
        Map<String, JsonNode> out = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : n.properties()) {
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    @Test
    void anUnknownTypeIsNeo4jsBadRequest() throws Exception {
        var res = query("/db/neo4j/query/v2", TYPED, TYPED, "{\"statement\":\"RETURN $x\",\"parameters\":"
                + "{\"x\":{\"$type\":\"DateTime\",\"_value\":\"2024-02-29T12:34:56Z\"}}}");
        assertThat(res.statusCode()).isEqualTo(400);
        assertThat(res.headers().firstValue("Content-Type")).hasValue(TYPED);
        JsonNode err = JSON.readTree(res.body()).at("/errors/0");
        assertThat(err.get("code").asText()).isEqualTo("Neo.ClientError.Request.Invalid");
        assertThat(err.get("message").asText()).isEqualTo("Type DateTime is not supported.");
        var bare = query("/db/neo4j/query/v2", TYPED, "application/json", "{\"statement\":\"RETURN $x\",\"parameters\":{\"x\":5}}");
        assertThat(bare.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(bare.body()).at("/errors/0/code").asText()).isEqualTo("Neo.ClientError.Request.Invalid");
    }

    @Test
    void theFormatsFollowContentTypeAndAcceptIndependently() throws Exception {
        String body = "{\"statement\":\"RETURN $x AS x\",\"parameters\":{\"x\":{\"$type\":\"Integer\",\"_value\":\"7\"}}}";
        var noAccept = s.send(HttpRequest.newBuilder(URI.create(s.url("/db/neo4j/query/v2")))
                .POST(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", TYPED).build());
        assertThat(noAccept.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(JSON.readTree(noAccept.body()).at("/data/values/0/0").asLong()).isEqualTo(7);
        var lowQ = query("/db/neo4j/query/v2", TYPED, TYPED + ";q=0.5, application/json", body);
        assertThat(lowQ.headers().firstValue("Content-Type")).hasValue("application/json");
        // typed-looking parameters under application/json are maps, as in Neo4j
        var asJson = query("/db/neo4j/query/v2", "application/json", TYPED, body);
        assertThat(JSON.readTree(asJson.body()).at("/data/values/0/0/$type").asText()).isEqualTo("Map");
    }

    @Test
    void asyncRefusesTypedValuesItsJournalWouldFlatten() throws Exception {
        var res = query("/db/neo4j/query/v2?mode=async", TYPED, TYPED, "{\"statement\":\"CREATE (:A {d: $d})\","
                + "\"parameters\":{\"d\":{\"$type\":\"Date\",\"_value\":\"2024-02-29\"}}}");
        assertThat(res.statusCode()).as(res.body()).isEqualTo(400);
        assertThat(JSON.readTree(res.body()).at("/errors/0/message").asText()).contains("parameter d", "mode=async");
        var ok = query("/db/neo4j/query/v2?mode=async", TYPED, TYPED, "{\"statement\":\"CREATE (:A {i: $i})\","
                + "\"parameters\":{\"i\":{\"$type\":\"Integer\",\"_value\":\"9007199254740993\"}}}");
        assertThat(ok.statusCode()).as(ok.body()).isEqualTo(202);
    }
}
