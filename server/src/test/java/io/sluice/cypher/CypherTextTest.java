package io.sluice.cypher;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.Seeds;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CypherTextTest {
    @Test
    void findsParametersButNotDollarsInStringsOrComments() {
        assertThat(CypherText.parameters("MATCH (n {id: $id}) SET n.x = '$notme', n.y = $`odd name` // $c\n RETURN $r"))
                .containsExactly("id", "odd name", "r");
        assertThat(CypherText.parameters("RETURN \"it's $5\" /* $x */")).isEmpty();
    }

    @Test
    void tellsAnExplainFromAStatementThatRuns() {
        assertThat(CypherText.explainOnly("EXPLAIN WITH $scriptResult AS scriptResult RETURN 1")).isTrue();
        assertThat(CypherText.explainOnly("  // why\n explain MERGE (n {id: $id})")).isTrue();
        assertThat(CypherText.explainOnly("CYPHER 25 runtime=slotted EXPLAIN MATCH (n) RETURN n")).isTrue();
        assertThat(CypherText.explainOnly("PROFILE MATCH (n) RETURN n")).isFalse();
        assertThat(CypherText.explainOnly("CYPHER 25 MATCH (n) RETURN 'EXPLAIN'")).isFalse();
        assertThat(CypherText.explainOnly("MATCH (n:EXPLAIN) RETURN n")).isFalse();
        assertThat(CypherText.explainOnly("CYPHER 5 INSERT (:Explain {id: $id})")).isFalse();
        assertThat(CypherText.explainOnly("CYPHER 25 DROP INDEX explain")).isFalse();
        assertThat(CypherText.explainOnly("CYPHER planner=cost runtime = slotted explain RETURN $x")).isTrue();
        assertThat(CypherText.explainOnly("")).isFalse();
    }

    @Test
    void findsRowFieldsButNotPropertiesOfOtherThings() {
        assertThat(CypherText.fieldsOf("MERGE (u:User {id: row.user}) SET u.row = row.`the url`, x.row.y = 1", "row"))
                .containsExactly("user", "the url");
    }

    @Test
    void recognisesCallInTransactionsInAllItsForms() {
        assertThat(CypherText.runsInTransactions("UNWIND $r AS x CALL (x) { CREATE () } IN TRANSACTIONS")).isTrue();
        assertThat(CypherText.runsInTransactions("CALL { CREATE () } in 4 concurrent transactions of 10 rows")).isTrue();
        assertThat(CypherText.runsInTransactions("CALL { CREATE () } IN CONCURRENT TRANSACTIONS ON ERROR RETRY")).isTrue();
        assertThat(CypherText.runsInTransactions("MATCH (n) WHERE n.x IN [1] RETURN 'IN TRANSACTIONS'")).isFalse();
    }

    // Lexer bugs the randomized test below finds (each one alone makes it fail), checked against Neo4j 2026.08.

    @Test
    void aCarriageReturnEndsALineComment() {
        assertThat(CypherText.parameters("RETURN 1 AS v // c\r, $x AS w")).containsExactly("x");
    }

    @Test
    void aDoubledBackquoteIsOneBackquoteInAName() {
        assertThat(CypherText.parameters("MATCH (n:`we``ird`) SET n.x = $p, n.y = $`a``b`")).containsExactly("p", "a`b");
        assertThat(CypherText.fieldsOf("RETURN row.`a``b`, `x``y`.z", "row")).containsExactly("a`b");
    }

    @Test
    void spacesAndCommentsMayComeBetweenTheDollarAndTheName() {
        assertThat(CypherText.parameters("RETURN $ x, $/* c */y, $\n`z`")).containsExactly("x", "y", "z");
    }

    @Test
    void interpolatedStringsHoldExpressionsAndText() {
        assertThat(CypherText.parameters("CYPHER 25 RETURN s'$a {$b + size('}')} \\{$c {{k: $d}.k}' + xs'{$e}'"))
                .containsExactly("b", "d");
        assertThat(CypherText.fieldsOf("RETURN S\"row.a {row.b}\"", "row")).containsExactly("b");
    }

    @Test
    void aBackquotedDotIsANameNotADot() {
        assertThat(CypherText.fieldsOf("RETURN `.` row.x, row `.` y", "row")).containsExactly("x");
    }

    @Test
    void rowFieldsBecomeParametersAndBack() {
        String template = "MERGE (u:User {id: row.user}) SET u.`the url` = row.`the url`, u.row = x.row.y // row.c\n";
        String raw = CypherText.fieldsAsParameters(template, "row");
        assertThat(raw).isEqualTo("MERGE (u:User {id: $user}) SET u.`the url` = $`the url`, u.row = x.row.y // row.c\n");
        assertThat(CypherText.parametersAsFields(raw, "r")).isEqualTo(
                "MERGE (u:User {id: r.user}) SET u.`the url` = r.`the url`, u.row = x.row.y // row.c\n");
    }

    @Test
    void parametersBecomeFieldsButNotInStringsCommentsOrNames() {
        assertThat(CypherText.parametersAsFields(
                "CREATE (n:`$l` {a: $a, b: '$b', c: $ `c``d`, d: $0, e: $/* x */e.f}) /* $g */ SET n.s = s'{$h}$i'", "r"))
                .isEqualTo("CREATE (n:`$l` {a: r.a, b: '$b', c: r.`c``d`, d: r.`0`, e: r.e.f}) /* $g */ SET n.s = s'{r.h}$i'");
        // Cypher 25's dynamic labels: the $ of $(expr) has no name and stays; the parameters inside are rewritten
        assertThat(CypherText.parametersAsFields("MERGE (n:$($label) {id: $id})", "r"))
                .isEqualTo("MERGE (n:$(r.label) {id: r.id})");
        assertThat(CypherText.names("MATCH (`sluice_row`) WITH x AS y RETURN $p")).contains("sluice_row", "x", "y")
                .doesNotContain("p");
    }

    /**
     * Random Cypher-like texts with parameters and {@code row.x} fields planted in code, and look-alikes planted
     * in strings (with escapes and both quotes), comments of both kinds, backquoted names, interpolated strings'
     * text and other things' properties: the lexer must find exactly the planted ones, in order.
     */
    @Test
    void findsExactlyThePlantedParametersAndFields() {
        Seeds.rounds("sluice.cypher.seed", 500, random -> {
            RandomCypher c = RandomCypher.generate(random);
            assertThat(CypherText.parameters(c.text())).as("parameters of:\n%s", c.text())
                    .containsExactlyElementsOf(new LinkedHashSet<>(c.params()));
            Set<String> fields = CypherText.fieldsOf(c.text(), "row");
            assertThat(fields).as("fields of:\n%s", c.text()).containsExactlyElementsOf(new LinkedHashSet<>(c.fields()));
            // rewritten, the planted parameters are exactly the fields of the new variable, and nothing else moved
            String rewritten = CypherText.parametersAsFields(c.text(), "v9");
            assertThat(CypherText.parameters(rewritten)).as("parameters left in:\n%s", rewritten).isEmpty();
            assertThat(CypherText.fieldsOf(rewritten, "v9")).as("v9 fields of:\n%s", rewritten)
                    .containsExactlyElementsOf(new LinkedHashSet<>(c.params()));
            assertThat(CypherText.fieldsOf(rewritten, "row")).as("row fields of:\n%s", rewritten)
                    .containsExactlyElementsOf(new LinkedHashSet<>(c.fields()));
        });
    }
}
