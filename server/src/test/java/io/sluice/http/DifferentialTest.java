package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.support.Differential;
import io.sluice.support.Differential.Pair;
import io.sluice.support.Differential.Side;
import io.sluice.support.Differential.Target;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.NormalJson;
import io.sluice.support.TestServer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Differential tests: the same request sequences sent to a real Neo4j 2026.08 Community server (Neo4j's own
 * {@code CommunityBootstrapper}, run by {@code sluice neo4j --http} from sluice's classpath) and to sluice (sync
 * mode, embedded Neo4j), both under user {@code neo4j} with the same password; status, {@code Content-Type},
 * {@code Location}'s path and body must match after {@link io.sluice.support.NormalJson} (ids, bookmarks, expiry
 * times and timings aside). A case that lets more differ says so: error messages in sluice's own words (codes are
 * always compared), and known gaps, each checked to be still there ({@code gap}: a field only Neo4j sends). Cases
 * sluice fails today are {@code @Disabled} with what is missing. Both databases are emptied after every case.
 */
class DifferentialTest {
    static final String QUERY = "/db/neo4j/query/v2";
    static final String TX = "/db/neo4j/query/v2/tx";
    static final String COMMIT = "/db/neo4j/tx/commit";
    static final String CLASSIC_TX = "/db/neo4j/tx";
    static final String TYPED = "application/vnd.neo4j.query";
    /**
     * Idle timeout of explicit transactions on both sides (both APIs): short, for the expiry cases, yet long enough
     * that a stall of either server between two requests of one case (at 5 s, a CI run once expired one mid-case) does not expire it.
     */
    static final String IDLE = "15s";
    /** Neo4j's Query API answers a query with {@code queryType}; sluice's write path does not know it. */

    static Path dir;
    static Neo4jProcess neo4j;
    static TestServer sluice;
    static Differential d;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-diff-");
        // one after the other: on two cores, starting both at once was no faster
        neo4j = Neo4jProcess.startHttp(dir.resolve("neo4j"), "neo4j/" + TestServer.PASSWORD, Map.of(
                "server.queryapi.transaction_idle_timeout", IDLE, "server.http.transaction_idle_timeout", IDLE));
        sluice = TestServer.start("transactions: {idle_timeout: " + IDLE + ", classic_idle_timeout: " + IDLE + "}\n", true);
        String sluiceBase = sluice.server.baseUrl();
        d = new Differential(
                new Target(neo4j.httpUrl(), Map.of(neo4j.httpUrl(), "<http>", "127.0.0.1:" + neo4j.port, "<bolt>")),
                new Target(sluiceBase, Map.of(sluiceBase, "<http>", sluice.bolt.toString(), "<bolt>")),
                TestServer.AUTH);
    }

    @AfterAll
    static void stop() {
        try {
            if (neo4j != null) {
                neo4j.close();
            }
        } finally {
            if (sluice != null) {
                sluice.close();
            }
            TestServer.deleteRecursively(dir);
        }
    }

    @AfterEach
    void empty() {
        Pair p = d.post(QUERY, "{\"statement\":\"MATCH (n) DETACH DELETE n\"}");
        assertThat(p.each(Differential.Answer::status)).as("emptied").containsValues(202, 202);
    }

    static Pair query(String body) {
        return d.post(QUERY, body);
    }

    static Pair typed(String path, String body) {
        return d.send("POST", side -> path, body, "Content-Type", TYPED, "Accept", TYPED);
    }

    // ---- discovery ----

    @Test
    void discovery() {
        for (String accept : new String[] {"application/json", "", "*/*"}) {
            d.send("GET", side -> "/", null, "Accept", accept, "Authorization", "").compare()
                    .headers("Vary", "Access-Control-Allow-Origin")
                    .extra("sluice", "sluice's own version, beside the Neo4j version it serves").matches();
        }
        d.send("GET", side -> "/", null, "Accept", "text/plain", "Authorization", "").matches();
    }

    // ---- authentication (Neo4j's filter answers before either API) ----

    @Test
    void authentication() {
        for (String authorization : new String[] {"", TestServer.basic("nobody", "wrong-password-1"), "Foo bar"}) {
            d.send("POST", side -> QUERY, "{\"statement\":\"RETURN 1\"}", "Content-Type", "application/json",
                    "Authorization", authorization).compare().headers("WWW-Authenticate").matches();
            d.send("POST", side -> COMMIT, "{\"statements\":[]}", "Content-Type", "application/json",
                    "Authorization", authorization).compare().headers("WWW-Authenticate").matches();
        }
    }

    // ---- paths and methods neither API has ----

    @Test
    void unknownPathsAndMethods() {
        // sluice says which endpoint or method after Neo4j's "Not Found" / "Method Not Allowed"
        UnaryOperator<String> reason = m -> m.replaceFirst(":.*", "");
        d.send("GET", side -> "/foo", null).compare().messages(reason).matches();
        d.send("GET", side -> QUERY, null).compare().messages(reason).matches();
        d.send("DELETE", side -> QUERY, null).compare().messages(reason).matches();
    }

    // ---- Query API, implicit transactions ----

    @Test
    void writeWithCounters() {
        query("{\"statement\":\"CREATE (a:P {name:$n})-[r:KNOWS {since:2020}]->(b:P {name:$m}) RETURN a, r, b\","
                + "\"parameters\":{\"n\":\"alice\",\"m\":\"bob\"},\"includeCounters\":true}")
                .matches();
    }

    static final String EVERY_VALUE = "RETURN 1 AS int, 9007199254740993 AS big, 9223372036854775807 AS max,"
            + " 1.5 AS float, 0.1 AS tenth, 1.0e20 AS e20, 1.0e-7 AS small, 3.0 AS three, 0.0/0.0 AS nan,"
            + " 1.0/0.0 AS inf, -1.0/0.0 AS ninf, 'h\u00e9llo \\\"q\\\"' AS str, true AS yes, null AS nothing,"
            + " [1, 'a', null] AS list, {a: 1, b: [true]} AS map, date('2024-02-29') AS date,"
            + " date('-0044-03-15') AS bc, time('12:34:56.123456789+01:00') AS time, time('12:00:00Z') AS utc,"
            + " localtime('12:34:56') AS lt, localtime('12:00') AS noon,"
            + " datetime('2024-02-29T12:34:56.5+01:00') AS odt, datetime('2024-02-29T12:34:56Z') AS z,"
            + " datetime('2024-02-29T12:34:56[Europe/Stockholm]') AS zoned,"
            + " localdatetime('2024-02-29T12:34:56.000000001') AS ldt, duration('P1Y2M3DT4H5M6.7S') AS dur,"
            + " duration({days: -1, seconds: 30}) AS negative, duration('PT0S') AS zero,"
            + " point({x: 1.5, y: 2}) AS p2, point({x: 1, y: 2, z: 3}) AS p3,"
            + " point({longitude: 12.5, latitude: 56.1}) AS geo,"
            + " point({longitude: 12.5, latitude: 56.1, height: 100}) AS geo3";

    @Test
    void everyValueTypeInPlainJson() {
        query("{\"statement\":\"" + EVERY_VALUE + "\"}").matches();
    }

    @Test
    void everyValueTypeInTypedJson() {
        typed(QUERY, "{\"statement\":\"" + EVERY_VALUE + "\"}").matches();
    }

    static final String GRAPH = "CREATE p = (a:G {name: 'alice'})-[r:KNOWS {since: 2020}]->(b:G {name: 'bob'})"
            + " WITH a, r, b, p MATCH q = (b)<-[:KNOWS]-(a) RETURN a, r, b, p, q";

    @Test
    void nodesRelationshipsAndPathsInBothFormats() {
        query("{\"statement\":\"" + GRAPH + "\"}").matches();
        empty();
        typed(QUERY, "{\"statement\":\"" + GRAPH + "\"}").matches();
    }

    @Test
    void mediaTypeNegotiation() {
        String body = "{\"statement\":\"RETURN $x AS x\",\"parameters\":{\"x\":"
                + "{\"$type\":\"Integer\",\"_value\":\"7\"}}}";
        for (String[] types : new String[][] {{TYPED + ".v1.0", TYPED + ".v1.2"}, {TYPED, TYPED + ", application/json"},
                {TYPED + ";charset=utf-8", "application/json, " + TYPED + ";q=0.5"}, {TYPED, "*/*"}}) {
            d.send("POST", side -> QUERY, body, "Content-Type", types[0], "Accept", types[1]).matches();
        }
        // typed-looking parameters sent as plain JSON are maps
        d.send("POST", side -> QUERY, "{\"statement\":\"RETURN $x AS x, valueType($x) AS t\",\"parameters\":"
                + "{\"x\":{\"$type\":\"Integer\",\"_value\":\"7\"}}}", "Content-Type", "application/json",
                "Accept", TYPED).matches();
    }

    @Test
    @Disabled("sluice reads any body as JSON and answers JSON to any Accept: Neo4j answers 415 for a Content-Type"
            + " it does not consume (none, text/plain) and 406 for an Accept it cannot produce, both"
            + " {\"errors\":[{\"code\":\"Neo.ClientError.Request.Invalid\",\"message\":\"Unsupported Media Type\"|"
            + "\"Not Acceptable\"}]}; lenient, so no client breaks (needs HttpServer.java or Api.java)")
    void unsupportedMediaTypes() {
        d.send("POST", side -> QUERY, "{\"statement\":\"RETURN 1\"}").matches();
        d.send("POST", side -> QUERY, "{\"statement\":\"RETURN 1\"}", "Content-Type", "text/plain").matches();
        d.send("POST", side -> QUERY, "{\"statement\":\"RETURN 1\"}", "Content-Type", "application/json",
                "Accept", "text/html").matches();
    }

    @Test
    @Disabled("no JSONL answers: Neo4j streams application/jsonl (and ...v1.x+jsonl, which the npm client's newer"
            + " versions ask for first) as {\"$event\":\"Header\"|\"Record\"|\"Summary\"|\"Error\",\"_body\":...}"
            + " lines; sluice answers plain or typed JSON (needs Api.java)")
    void jsonLines() {
        d.send("POST", side -> QUERY, "{\"statement\":\"UNWIND [1, 2] AS x RETURN x\"}", "Content-Type",
                "application/json", "Accept", "application/jsonl").matches();
    }

    @Test
    void notifications() {
        query("{\"statement\":\"MATCH (a:NoSuchLabel), (b:NoSuchLabel) RETURN count(*) AS c\"}").matches();
    }

    static final String TWO_NOTICES = "MATCH (a:NoSuchLabel), (b) RETURN count(*) AS c"; // a warning, an information

    @Test
    void notificationsFilter() {
        for (String filter : new String[] {"{\"minimumSeverityLevel\":\"OFF\"}", "{\"minimumSeverityLevel\":\"WARNING\"}",
                "{\"minimumSeverityLevel\":\"INFORMATION\"}", "{\"disabledCategories\":[\"PERFORMANCE\"]}",
                "{\"disabledCategories\":[\"UNRECOGNIZED\",\"PERFORMANCE\"]}", "{\"disabledCategories\":[]}",
                "{\"minimumSeverityLevel\":null,\"disabledCategories\":null}", "{}", "null"}) {
            query("{\"statement\":\"" + TWO_NOTICES + "\",\"notificationsFilter\":" + filter + "}").matches();
        }
        for (String bad : new String[] {"{\"minimumSeverityLevel\":\"warning\"}", "{\"minimumSeverityLevel\":\"NONE\"}",
                "{\"disabledCategories\":\"PERFORMANCE\"}", "{\"disabledCategories\":[\"performance\"]}",
                "{\"disabledCategories\":[\"NOPE\"]}", "{\"other\":1}", "\"OFF\"",
                "{\"minimumSeverityLevel\":\"OFF\",\"disabledCategories\":[\"NOPE\"]}"}) {
            query("{\"statement\":\"RETURN 1\",\"notificationsFilter\":" + bad + "}").compare().ownMessages().matches();
        }
    }

    @Test
    void aTransactionKeepsTheFilterItOpenedWith() {
        Pair open = d.post(TX, "{\"statement\":\"" + TWO_NOTICES + "\",\"notificationsFilter\":"
                + "{\"minimumSeverityLevel\":\"WARNING\"}}").matches();
        Function<Side, String> tx = side -> TX + "/" + open.get(side).json().path("transaction").path("id").asText();
        d.send("POST", tx, "{\"statement\":\"" + TWO_NOTICES + "\"}", "Content-Type", "application/json").matches();
        d.send("POST", tx, "{\"statement\":\"RETURN 1\",\"notificationsFilter\":{}}", "Content-Type",
                "application/json").compare().ownMessages().matches();
        d.send("POST", side -> tx.apply(side) + "/commit", "{\"statement\":\"" + TWO_NOTICES + "\"}", "Content-Type",
                "application/json").matches();
        Pair other = d.post(TX, "{\"statement\":\"" + TWO_NOTICES + "\"}").matches(); // a new one: every notification
        d.send("DELETE", side -> TX + "/" + other.get(side).json().path("transaction").path("id").asText(), null)
                .matches();
    }

    @Test
    void plansOfExplainAndProfile() {
        d.post(QUERY, "{\"statement\":\"CREATE (:P {x: 1}), (:P {x: 2})\"}").matches();
        for (String statement : new String[] {"EXPLAIN MATCH (p:P) WHERE p.x = 1 RETURN p.x",
                "PROFILE MATCH (p:P) WHERE p.x = $x RETURN p.x", "EXPLAIN MATCH (a:P), (b) RETURN count(*)",
                "PROFILE UNWIND [1, 2] AS i CREATE (:Q {i: i})"}) {
            String json = "\"statement\":\"" + statement + "\",\"parameters\":{\"x\":1}";
            List<Pair> answers = List.of(query("{" + json + ",\"includeCounters\":true}"),
                    typed(QUERY, "{" + json.replace("{\"x\":1}", "{\"x\":{\"$type\":\"Integer\",\"_value\":\"1\"}}")
                            + "}"),
                    d.post(COMMIT, "{\"statements\":[{" + json + ",\"includeStats\":true}]}"));
            for (Pair answer : answers) {
                if (statement.startsWith("EXPLAIN")) {
                    answer.matches();
                } else {
                    profileMatches(answer);
                }
            }
        }
    }

    /**
     * A profile's answer matches but for one known difference: Neo4j's server measures the memory of the root
     * operator (ProduceResults: {@code Memory}, and the text form's "Memory (Bytes)" column), the embedded API does
     * not. Checked to be still there, then both left out; the rest is compared whole.
     */
    static void profileMatches(Pair p) {
        JsonNode[] bodies = new JsonNode[2];
        int i = 0;
        for (Side side : new Side[] {Side.NEO4J, Side.SLUICE}) {
            assertThat(p.get(side).status()).as("status").isEqualTo(p.get(Side.NEO4J).status());
            JsonNode body = p.get(side).json().deepCopy();
            ObjectNode root = (ObjectNode) (body.has("profiledQueryPlan") ? body.get("profiledQueryPlan")
                    : body.path("results").path(0).path("plan").path("root"));
            ObjectNode args = root.has("arguments") ? (ObjectNode) root.get("arguments") : root;
            assertThat(args.has("Memory")).as("%s: the root operator's Memory (only Neo4j's server has it): %s", side,
                    p.get(side).body()).isEqualTo(side == Side.NEO4J);
            args.remove("Memory");
            args.remove("string-representation");
            bodies[i++] = NormalJson.normalise(body, Map.of(), m -> m);
        }
        assertThat(bodies[1]).as("profile, but the root's memory:%n neo4j:  %s%n sluice: %s", p.get(Side.NEO4J).body(),
                p.get(Side.SLUICE).body()).isEqualTo(bodies[0]);
    }

    @Test
    void classicNotificationsOfEveryStatementBeforeTheDeprecation() {
        d.post(COMMIT, "{\"statements\":[{\"statement\":\"" + TWO_NOTICES + "\"},{\"statement\":\"RETURN 1\"},"
                + "{\"statement\":\"MATCH (n:Other) RETURN n\"}]}").matches();
        Pair open = d.post(CLASSIC_TX, "{\"statements\":[{\"statement\":\"" + TWO_NOTICES + "\"}]}").matches();
        d.send("POST", side -> URI.create(open.get(side).json().path("commit").asText()).getPath(),
                "{\"statements\":[{\"statement\":\"MATCH (n:Other) RETURN n\"}]}", "Content-Type", "application/json")
                .matches();
    }

    static final String TYPED_PARAMETERS = "{\"statement\":\"RETURN $i AS i, $f AS f, $nan AS nan, $s AS s, $b AS b,"
            + " $n AS n, $bytes AS bytes, $l AS l, $m AS m, $d AS d, $t AS t, $lt AS lt, $odt AS odt, $zdt AS zdt,"
            + " $ldt AS ldt, $dur AS dur, $p2 AS p2, $p3 AS p3, [x IN [$i, $f, $s, $b, $n, $bytes, $l, $m, $d, $t,"
            + " $lt, $odt, $zdt, $ldt, $dur, $p2, $p3] | valueType(x)] AS types\",\"parameters\":{"
            + "\"i\":{\"$type\":\"Integer\",\"_value\":\"9007199254740993\"},"
            + "\"f\":{\"$type\":\"Float\",\"_value\":\"1.5\"},"
            + "\"nan\":{\"$type\":\"Float\",\"_value\":\"NaN\"},"
            + "\"s\":{\"$type\":\"String\",\"_value\":\"h\u00e9llo\"},"
            + "\"b\":{\"$type\":\"Boolean\",\"_value\":true},"
            + "\"n\":{\"$type\":\"Null\",\"_value\":null},"
            + "\"bytes\":{\"$type\":\"Base64\",\"_value\":\"AQID/w==\"},"
            + "\"l\":{\"$type\":\"List\",\"_value\":[{\"$type\":\"Integer\",\"_value\":\"1\"},"
            + "{\"$type\":\"String\",\"_value\":\"a\"}]},"
            + "\"m\":{\"$type\":\"Map\",\"_value\":{\"a\":{\"$type\":\"Integer\",\"_value\":\"1\"}}},"
            + "\"d\":{\"$type\":\"Date\",\"_value\":\"2024-02-29\"},"
            + "\"t\":{\"$type\":\"Time\",\"_value\":\"12:34:56.123+01:00\"},"
            + "\"lt\":{\"$type\":\"LocalTime\",\"_value\":\"12:34:56\"},"
            + "\"odt\":{\"$type\":\"OffsetDateTime\",\"_value\":\"2024-02-29T12:34:56+01:00\"},"
            + "\"zdt\":{\"$type\":\"ZonedDateTime\",\"_value\":\"2024-02-29T12:34:56+01:00[Europe/Stockholm]\"},"
            + "\"ldt\":{\"$type\":\"LocalDateTime\",\"_value\":\"2024-02-29T12:34:56.000000001\"},"
            + "\"dur\":{\"$type\":\"Duration\",\"_value\":\"P1Y2M3DT4H5M6.7S\"},"
            + "\"p2\":{\"$type\":\"Point\",\"_value\":\"SRID=7203;POINT (1.5 2)\"},"
            + "\"p3\":{\"$type\":\"Point\",\"_value\":\"SRID=4979;POINT Z (12.5 56.1 100.0)\"}}}";

    @Test
    void typedParametersInTypedAndPlainAnswers() {
        typed(QUERY, TYPED_PARAMETERS).matches();
        d.send("POST", side -> QUERY, TYPED_PARAMETERS, "Content-Type", TYPED, "Accept", "application/json")
                .matches();
    }

    @Test
    void plainParameters() {
        query("{\"statement\":\"RETURN $i AS i, $big AS big, $f AS f, $e AS e, $l AS l, $m AS m, $n AS n, $b AS b,"
                + " $ds AS ds, [x IN [$i, $big, $f, $e, $l, $m, $n, $b, $ds] | valueType(x)] AS types\","
                + "\"parameters\":{\"i\":9007199254740993,\"big\":9223372036854775807,\"f\":1.5,\"e\":2e3,"
                + "\"l\":[1,\"a\",null],\"m\":{\"x\":{\"y\":1}},\"n\":null,\"b\":true,\"ds\":\"2024-02-29\"}}")
                .matches();
    }

    @Test
    void typedParameterErrors() {
        // Neo4j says "Bad Request" (its Jackson mapping failed); sluice names the parameter and what is wrong
        for (String param : new String[] {"{\"$type\":\"Integer\",\"_value\":\"abc\"}", "5",
                "{\"$type\":\"ZonedDateTime\",\"_value\":\"2024-02-29T12:34:56+01:00\"}"}) {
            typed(QUERY, "{\"statement\":\"RETURN $x AS x\",\"parameters\":{\"x\":" + param + "}}")
                    .compare().ownMessages().matches();
        }
        // an unknown type: Neo4j's own message, which sluice repeats
        typed(QUERY, "{\"statement\":\"RETURN $x AS x\",\"parameters\":{\"x\":{\"$type\":\"DateTime\","
                + "\"_value\":\"2024-02-29T12:34:56Z\"}}}").matches();
    }

    @Test
    void syntaxError() {
        // the message is Neo4j's own on both sides (sluice's comes from its embedded Neo4j); typed keeps its type
        query("{\"statement\":\"RETRUN 1\"}").matches();
        typed(QUERY, "{\"statement\":\"RETRUN 1\"}").matches();
    }

    @Test
    void constraintViolation() {
        query("{\"statement\":\"CREATE CONSTRAINT diff_unique FOR (u:U) REQUIRE u.name IS UNIQUE\","
                + "\"includeCounters\":true}").matches();
        try {
            query("{\"statement\":\"CREATE (:U {name: 'alice'})\"}").matches();
            // Neo4j's message on both sides, but it names the node's internal id, which may differ
            query("{\"statement\":\"CREATE (:U {name: 'alice'})\"}").compare()
                    .messages(m -> m.replaceAll("Node\\(\\d+\\)", "Node(<id>)")).matches();
        } finally {
            query("{\"statement\":\"DROP CONSTRAINT diff_unique IF EXISTS\"}");
        }
    }

    @Test
    void missingParameter() {
        query("{\"statement\":\"RETURN $nope AS x\"}").matches();
    }

    @Test
    void unknownDatabase() {
        // sluice words it its own way (it names the database it serves); Neo4j: "Graph not found: nosuchdb"
        d.post("/db/nosuchdb/query/v2", "{\"statement\":\"RETURN 1\"}").compare().ownMessages().matches();
        d.post("/db/nosuchdb/query/v2/tx", "{}").compare().ownMessages().matches();
    }

    @Test
    void explicitTransactionOnAnotherDatabase() {
        // a transaction is looked up by id and database together: on another one it is not found, and goes on
        Map<Side, String> id = d.post(TX, "{}").matches().each(DifferentialTest::id);
        String other = "/db/nosuchdb/query/v2/tx/";
        d.send("POST", s -> other + id.get(s), "{\"statement\":\"RETURN 1\"}", "Content-Type", "application/json")
                .matches();
        d.send("POST", s -> other + id.get(s) + "/commit", "", "Content-Type", "application/json").matches();
        d.send("DELETE", s -> other + id.get(s), null).matches();
        inTx("POST", id, "", "").matches();
        inTx("DELETE", id, "", null).matches();
    }

    static final String READS_BODIES = "Api.decodeQuery does not read bodies as Neo4j does: it should use"
            + " QueryRequest.parse(body, typed, Shape.TRANSACTION) (unknown fields and bad ones 400"
            + " Request.Invalid, not InvalidFormat), and answer a null or empty statement 400 Request.Invalid"
            + " 'statement cannot be null or empty' (needs Api.java)";

    @Test
    void bodiesAsNeo4jReadsThem() {
        // Neo4j answers each "Bad Request" (Jackson's); sluice says what is wrong: codes compared
        for (String body : new String[] {"{\"statement\":", "[1]", "{\"statement\":\"RETURN 1\",\"bogus\":1}",
                "{\"statement\":\"RETURN 1\",\"parameters\":[1]}",
                "{\"statement\":\"RETURN 1\",\"accessMode\":\"X\"}"}) {
            query(body).compare().ownMessages().matches();
        }
        query("{\"statement\":\"\"}").matches();
        query("").matches();
        query("{\"statement\":\"RETURN 1\",\"impersonatedUser\":\"someone\"}").matches();
    }

    @Test
    @Disabled("sluice answers 400 with the error only: Neo4j streams the rows before the failing one (202, data, then"
            + " errors); needs the sink to keep the rows read before an error, and Api to answer them with 202")
    void runtimeErrorMidStream() {
        query("{\"statement\":\"UNWIND [1, 2, 0] AS x RETURN 10 / x AS y\"}").matches();
    }

    @Test
    void readAccessModeRefusesAWrite() {
        query("{\"statement\":\"CREATE (:ReadOnly)\",\"accessMode\":\"READ\"}").matches();
        query("{\"statement\":\"MATCH (n:ReadOnly) RETURN count(n) AS c\"}").compare()
                .gap("notifications", "sluice planned the refused CREATE to classify it, and planning a write makes"
                        + " its label known: no unknown-label warning after it").matches();
    }

    // ---- Query API, explicit transactions ----

    static String id(Differential.Answer a) {
        return a.json().at("/transaction/id").asText();
    }

    static Pair inTx(String method, Map<Side, String> id, String suffix, String body) {
        return d.send(method, s -> TX + "/" + id.get(s) + suffix, body, "Content-Type", "application/json");
    }

    @Test
    void explicitOpenWithoutStatementRunReadYourWriteCommit() {
        Map<Side, String> id = d.post(TX, "").matches().each(DifferentialTest::id);
        inTx("POST", id, "", "{\"statement\":\"CREATE (n:T {v: 1}) RETURN n.v AS v\",\"includeCounters\":true}")
                .matches();
        inTx("POST", id, "", "{\"statement\":\"MATCH (n:T) RETURN n.v AS v\"}").matches();
        inTx("POST", id, "", "").matches(); // keep-alive
        inTx("POST", id, "/commit", "").matches();
        query("{\"statement\":\"MATCH (n:T) RETURN count(n) AS c\"}").matches();
        inTx("POST", id, "", "").matches(); // committed: not found
        inTx("POST", id, "/commit", "").matches();
    }

    @Test
    void explicitOpenWithStatementCommitWithStatement() {
        Map<Side, String> id = d.post(TX, "{\"statement\":\"CREATE (n:T {v: 1}) RETURN n.v AS v\","
                + "\"includeCounters\":true}").matches()
                .each(DifferentialTest::id);
        inTx("POST", id, "/commit", "{\"statement\":\"MATCH (n:T) SET n.v = 2 RETURN n.v AS v\","
                + "\"includeCounters\":true}").matches();
        query("{\"statement\":\"MATCH (n:T) RETURN n.v AS v\"}").matches();
    }

    @Test
    void explicitTypedAnswers() {
        Map<Side, String> id = typed(TX, "{\"statement\":\"RETURN date('2024-02-29') AS d\"}")
                .matches().each(DifferentialTest::id);
        d.send("POST", s -> TX + "/" + id.get(s), "{\"statement\":\"RETURN $x AS x\",\"parameters\":{\"x\":"
                + "{\"$type\":\"Duration\",\"_value\":\"PT1S\"}}}", "Content-Type", TYPED, "Accept", TYPED)
                .matches();
        d.send("POST", s -> TX + "/" + id.get(s) + "/commit", "{}", "Content-Type", TYPED, "Accept", TYPED).matches();
    }

    @Test
    void explicitRollbackThenNotFound() {
        Map<Side, String> id = d.post(TX, "{}").matches().each(DifferentialTest::id);
        inTx("POST", id, "", "{\"statement\":\"CREATE (:R)\"}").matches();
        inTx("DELETE", id, "", "{}").matches();
        query("{\"statement\":\"MATCH (n:R) RETURN count(n) AS c\"}").matches();
        inTx("DELETE", id, "", "{}").matches();
        inTx("POST", id, "", "").matches();
    }

    @Test
    void explicitUnknownId() {
        d.post(TX + "/abcdef", "{\"statement\":\"RETURN 1\"}").matches();
        d.post(TX + "/abcdef/commit", "").matches();
        d.send("DELETE", s -> TX + "/abcdef", null).matches();
    }

    @Test
    void explicitErrorEndsTheTransaction() {
        for (String bad : new String[] {"RETRUN 1", "CREATE (:E) WITH 1 AS x RETURN $nope"}) {
            Map<Side, String> id = d.post(TX, "{\"statement\":\"CREATE (:E)\"}").matches()
                    .each(DifferentialTest::id);
            inTx("POST", id, "", "{\"statement\":\"" + bad + "\"}").matches();
            inTx("POST", id, "/commit", "").matches();
            query("{\"statement\":\"MATCH (n:E) RETURN count(n) AS c\"}").matches();
        }
    }

    @Test
    void explicitBodiesAsNeo4jReadsThem() {
        // Neo4j answers each "Bad Request" (Jackson's); sluice says what is wrong: codes compared
        for (String body : new String[] {"{\"statement\":", "[1]", "{\"bogus\":1}", "{\"accessMode\":\"BOGUS\"}",
                "{\"statement\":\"RETURN 1\",\"parameters\":[1]}", "{\"includeCounters\":{}}"}) {
            d.post(TX, body).compare().ownMessages().matches();
        }
        d.post(TX, "{\"impersonatedUser\":\"someone\"}").matches();
        Map<Side, String> id = d.post(TX, "{\"accessMode\":\"write\",\"txMetadata\":{\"app\":\"diff\"},"
                + "\"bookmarks\":[],\"maxExecutionTime\":30}").matches().each(DifferentialTest::id);
        // a statement's request has none of the transaction's settings: refused, and the transaction goes on
        inTx("POST", id, "", "{\"statement\":\"RETURN 1\",\"accessMode\":\"READ\"}").compare().ownMessages().matches();
        inTx("POST", id, "", "{\"statement\":\"\"}").matches(); // an empty statement is none: a keep-alive
        inTx("DELETE", id, "", null).matches();
    }

    @Test
    void explicitReadAccessMode() {
        Map<Side, String> id = d.post(TX, "{\"accessMode\":\"READ\"}").matches().each(DifferentialTest::id);
        inTx("POST", id, "", "{\"statement\":\"MATCH (n) RETURN count(n) AS c\"}").matches();
        // embedded Neo4j's kernel words it without the database, which Neo4j's server (its Bolt layer) adds
        inTx("POST", id, "", "{\"statement\":\"CREATE (:ReadOnly)\"}").compare()
                .messages(m -> m.replace(" Attempted write to neo4j", "")).matches();
        inTx("POST", id, "/commit", "").matches();
    }

    @Test
    @Disabled("sluice answers 400 with the error only: Neo4j answers 202 with the rows before the failing one, then"
            + " errors (the transaction is gone either way); needs the sink to keep the rows read before an error")
    void explicitRuntimeErrorMidStream() {
        Map<Side, String> id = d.post(TX, "{}").matches().each(DifferentialTest::id);
        inTx("POST", id, "", "{\"statement\":\"UNWIND [1, 0] AS x RETURN 10 / x AS y\"}").matches();
        inTx("POST", id, "/commit", "").matches();
    }

    @Test
    void explicitExpiry() {
        // the open transaction holds the anchor's lock; a write to it blocks until the transaction's idle expiry
        // rolls it back (Neo4j's sweeper runs every 5 s, sluice's too), which is the wait: then the id is gone
        query("{\"statement\":\"CREATE (:Anchor {v: 0})\"}").matches();
        Map<Side, String> id = d.post(TX, "{\"statement\":\"MATCH (a:Anchor) SET a.v = 1\"}").matches()
                .each(DifferentialTest::id);
        query("{\"statement\":\"MATCH (a:Anchor) SET a.v = a.v + 10 RETURN a.v AS v\"}").matches();
        inTx("POST", id, "/commit", "").matches();
    }

    // ---- classic transactional API, implicit (/tx/commit) ----

    static final String NOTIFICATION = "classic deprecation notification: lands with the lead's change";
    static final String META = "; then sluice's classic meta: Neo4j's is flat (a list or map adds its values'"
            + " metas, none when empty; Neo4jJsonCodec.writeMeta), and gives temporals, durations and points"
            + " {\"type\": \"date\"|\"time\"|\"localtime\"|\"datetime\"|\"localdatetime\"|\"duration\"|\"point\"}";

    @Test
    void classicStatementsWithStats() {
        d.post(COMMIT, "{\"statements\":[{\"statement\":\"CREATE (n:C {v: 1}) RETURN n\",\"includeStats\":true},"
                + "{\"statement\":\"RETURN 9007199254740993 AS x, 1.5 AS f, 'a' AS s, [1, 2] AS l\"},"
                + "{\"statement\":\"MATCH (n:C) RETURN count(n) AS c\"}]}").matches();
    }

    @Test
    void classicValueTexts() {
        d.post(COMMIT, "{\"statements\":[{\"statement\":\"" + EVERY_VALUE + "\"}]}").matches();
    }

    @Test
    void classicResultDataContents() {
        for (String formats : new String[] {"[\"row\"]", "[\"graph\"]", "[\"row\",\"graph\"]"}) {
            d.post(COMMIT, "{\"statements\":[{\"statement\":\"" + GRAPH + "\",\"resultDataContents\":" + formats
                    + "}]}").matches();
            empty();
        }
    }

    @Test
    void classicCypherErrorsInTheEnvelope() {
        d.post(COMMIT, "{\"statements\":[{\"statement\":\"RETURN 1 AS ok\"},{\"statement\":\"RETRUN 1\"}]}").compare()
                .differs("results", "a request is atomic in sluice's group commit: a failing one answers no results,"
                        + " where Neo4j lists those of the statements before the failing one").matches();
        d.post(COMMIT, "{\"statements\":[{\"statement\":\"RETURN $nope\"}]}").matches();
        d.post(COMMIT, "{\"statements\":[{\"statement\":\"UNWIND [1, 0] AS x RETURN 10 / x AS y\"}]}").compare()
                .differs("results", "sluice answers no rows of a statement that failed; Neo4j those streamed before"
                        + " the error").matches();
    }

    @Test
    void classicMalformedJson() {
        d.post(COMMIT, "{\"statements\":[{\"statement\":\"RETURN 1\"},{\"statement\":").compare().ownMessages()
                .differs("results", "sluice runs nothing of a body it cannot parse; Neo4j runs the statements parsed"
                        + " before the error, then rolls back").matches();
        d.post(COMMIT, "{\"statements\":[{\"foo\":1}]}").matches();
    }

    // ---- classic transactional API, explicit (/tx, /tx/{id}, /tx/{id}/commit) ----

    static final String CLASSIC_TX_REASON = "classic explicit tx: lands with the lead's change";

    static String classicId(Differential.Answer a) {
        return a.json().path("commit").asText().replaceAll(".*/tx/(\\d+)/commit$", "$1");
    }

    static Pair inClassicTx(String method, Map<Side, String> id, String suffix, String body) {
        return d.send(method, s -> CLASSIC_TX + "/" + id.get(s) + suffix, body, "Content-Type", "application/json");
    }

    @Test
    void classicExplicitOpenRunKeepAliveCommit() {
        Map<Side, String> id = d.post(CLASSIC_TX, "{\"statements\":[{\"statement\":\"CREATE (n:CT {v: 1}) RETURN n\","
                + "\"includeStats\":true}]}").matches().each(DifferentialTest::classicId);
        inClassicTx("POST", id, "", "{\"statements\":[{\"statement\":\"MATCH (n:CT) RETURN n.v AS v\"}]}").matches();
        inClassicTx("POST", id, "", "{\"statements\":[]}").matches(); // keep-alive
        inClassicTx("POST", id, "/commit", "{\"statements\":[{\"statement\":\"MATCH (n:CT) RETURN count(n) AS c\"}]}")
                .matches();
        inClassicTx("POST", id, "", "{\"statements\":[]}").matches(); // committed: not found
    }

    @Test
    void classicExplicitRollbackAndNotFound() {
        Map<Side, String> id = d.post(CLASSIC_TX, "").matches().each(DifferentialTest::classicId);
        inClassicTx("DELETE", id, "", null).matches();
        inClassicTx("DELETE", id, "", null).matches();
        d.post(CLASSIC_TX + "/999999", "{\"statements\":[]}").matches();
        d.post(CLASSIC_TX + "/999999/commit", "{\"statements\":[]}").matches();
        // not compared: /tx/abc, which Neo4j's router answers 404 in JSONL to a client that sends no Accept
        // (ClassicTransactionsTest checks sluice's 404 Request.Invalid "Not Found")
    }

    @Test
    void classicExplicitErrorRollsBack() {
        Map<Side, String> id = d.post(CLASSIC_TX, "{\"statements\":[{\"statement\":\"CREATE (:CE)\"}]}").matches()
                .each(DifferentialTest::classicId);
        inClassicTx("POST", id, "", "{\"statements\":[{\"statement\":\"RETRUN 1\"}]}").matches();
        inClassicTx("POST", id, "/commit", "").matches();
        d.post(COMMIT, "{\"statements\":[{\"statement\":\"MATCH (n:CE) RETURN count(n) AS c\"}]}").matches();
    }

    @Test
    void classicExplicitExpiry() {
        // as explicitExpiry: the blocked write returns once the idle transaction has been rolled back
        query("{\"statement\":\"CREATE (:Anchor {v: 0})\"}").matches();
        Map<Side, String> id = d.post(CLASSIC_TX, "{\"statements\":[{\"statement\":\"MATCH (a:Anchor) SET a.v = 1\"}]}")
                .matches().each(DifferentialTest::classicId);
        d.post(COMMIT, "{\"statements\":[{\"statement\":\"MATCH (a:Anchor) SET a.v = a.v + 10 RETURN a.v AS v\"}]}")
                .matches();
        inClassicTx("POST", id, "/commit", "").matches();
    }
}
