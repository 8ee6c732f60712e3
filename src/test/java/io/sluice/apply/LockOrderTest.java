package io.sluice.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.TemplateConfig;
import io.sluice.write.Template;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LockOrderTest {
    static final Template VISITED = Template.compile("visited", new TemplateConfig(
            "MERGE (u:User {id: row.user}) MERGE (s:Site {url: row.url}) MERGE (u)-[:VISITED {at: row.at}]->(s)"
                    + " SET u.name = row.name", List.of("user"), null));

    static Map<String, Object> row(long user, String url) {
        return Map.of("user", user, "url", url, "at", 1L, "name", "n");
    }

    @Test
    void theLockOrderIsDerivedFromTheNodeKeysBesidesTheTemplatesKey() {
        assertThat(VISITED.lockOrder()).containsExactly("url");
        Template explicit = Template.compile("t", new TemplateConfig("MERGE (a:A {id: row.a})", List.of("a"), null,
                List.of()));
        assertThat(explicit.lockOrder()).isEmpty();
    }

    @Test
    void rowsAreSortedByTheirLockFieldsStably() {
        var rows = List.of(row(1, "c"), row(2, "a"), row(3, "b"), row(4, "a"));
        assertThat(Execution.lockOrdered(VISITED, rows)).containsExactly(row(2, "a"), row(4, "a"), row(3, "b"), row(1, "c"));
    }

    @Test
    void aKeyRepeatedWithDifferentLockValuesKeepsArrivalOrder() {
        var rows = List.of(row(1, "c"), row(2, "a"), row(1, "b"));
        assertThat(Execution.lockOrdered(VISITED, rows)).as("user 1's rows must stay c then b").isSameAs(rows);
        var same = List.of(row(1, "c"), row(2, "a"), row(1, "c"));
        assertThat(Execution.lockOrdered(VISITED, same)).containsExactly(row(2, "a"), row(1, "c"), row(1, "c"));
    }

    @Test
    void mixedTypesHaveATotalOrder() {
        assertThat(Execution.compare(null, 1L)).isNegative();
        assertThat(Execution.compare(2L, 1.5)).isPositive();
        assertThat(Execution.compare("a", "b")).isNegative();
        assertThat(Execution.compare(1L, "a")).isNotZero();
    }

    @Test
    void partitionsFollowTheKeyOfTheFirstRow() {
        assertThat(VISITED.partition(row(7, "x"), 8)).isEqualTo(VISITED.partition(row(7, "y"), 8)).isBetween(0, 7);
        assertThat(VISITED.partition(row(7, "x"), 1)).isZero();
    }
}
