package io.sluice.cypher;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CypherTextTest {
    @Test
    void findsParametersButNotDollarsInStringsOrComments() {
        assertThat(CypherText.parameters("MATCH (n {id: $id}) SET n.x = '$notme', n.y = $`odd name` // $c\n RETURN $r"))
                .containsExactly("id", "odd name", "r");
        assertThat(CypherText.parameters("RETURN \"it's $5\" /* $x */")).isEmpty();
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
}
