package io.sluice.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.TemplateConfig;
import io.sluice.write.Template;
import io.sluice.support.Seeds;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
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
    void aKeyRepeatedWithDifferentLockValuesKeepsItsRowsInArrivalOrderAtItsFirstRowsPlace() {
        var rows = List.of(row(1, "c"), row(2, "a"), row(1, "b"), row(3, "b"), row(4, "d"));
        assertThat(Execution.lockOrdered(VISITED, rows)).as("user 1's rows stay c then b, sorted as c")
                .containsExactly(row(2, "a"), row(3, "b"), row(1, "c"), row(1, "b"), row(4, "d"));
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
    void longsAndDoublesNear2To53CompareByExactValue() {
        long p53 = 1L << 53;
        double d53 = 0x1p53;
        assertThat(Execution.compare(p53, d53)).isZero();
        assertThat(Execution.compare(p53 + 1, d53)).as("2^53 + 1 is not 2^53, though (double) (2^53 + 1) is").isPositive();
        assertThat(Execution.compare(d53, p53 + 1)).isNegative();
        assertThat(Execution.compare(p53 + 1, 0x1p53 + 2)).isNegative();
        assertThat(Execution.compare(Long.MAX_VALUE, 0x1p63)).isNegative();
        assertThat(Execution.compare(Long.MIN_VALUE, -0x1p63)).isZero();
        assertThat(Execution.compare(0L, -0.0)).isZero();
        assertThat(Execution.compare(-0.0, 0.0)).isZero();
        assertThat(Execution.compare(Double.NaN, Double.POSITIVE_INFINITY)).isPositive();
        assertThat(Execution.compare(BigInteger.ONE.shiftLeft(64), Long.MAX_VALUE)).isPositive();
        assertThat(Execution.compare(BigInteger.ONE.shiftLeft(64), "a")).as("numbers before strings").isNegative();
        assertThat(Execution.compare(List.of(1L, 2L), List.of(1.0, 2.5))).isNegative();
        assertThat(Execution.compare(List.of(1L), List.of(1L, 0L))).as("a prefix first").isNegative();
    }

    /**
     * Random mixed values, many in the places where numeric types meet (2^53, 2^63, zero, the infinities):
     * the order is antisymmetric, transitive (also through ties), exact on numbers, and what List.sort
     * produces with it is in order pair by pair.
     */
    @Test
    void theOrderIsTotalOnRandomMixedValues() {
        Seeds.rounds("sluice.lockorder.seed", 40, random -> {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                values.add(RandomValues.any(random, 2));
            }
            for (Object a : values) {
                assertThat(Execution.compare(a, a)).as("%s against itself", a).isZero();
                for (Object b : values) {
                    int ab = Integer.signum(Execution.compare(a, b));
                    assertThat(Integer.signum(Execution.compare(b, a))).as("antisymmetry: %s, %s", a, b).isEqualTo(-ab);
                    if (a instanceof Number x && b instanceof Number y && RandomValues.exact(x) != null
                            && RandomValues.exact(y) != null) {
                        assertThat(ab).as("exact: %s, %s", a, b).isEqualTo(RandomValues.exact(x).compareTo(RandomValues.exact(y)));
                    }
                    for (Object c : values) {
                        int bc = Integer.signum(Execution.compare(b, c));
                        int ac = Integer.signum(Execution.compare(a, c));
                        if (ab <= 0 && bc <= 0) {
                            assertThat(ac).as("transitivity: %s <= %s <= %s", a, b, c).isLessThanOrEqualTo(0);
                        }
                        if (ab == 0) {
                            assertThat(ac).as("ties: %s = %s, so both compare alike to %s", a, b, c).isEqualTo(bc);
                        }
                    }
                }
            }
            List<Object> sorted = new ArrayList<>(values);
            Collections.shuffle(sorted, random);
            sorted.sort(Execution::compare);
            for (int i = 0; i < sorted.size(); i++) {
                for (int j = i + 1; j < sorted.size(); j++) {
                    assertThat(Execution.compare(sorted.get(i), sorted.get(j))).as("sorted: %s before %s", sorted.get(i),
                            sorted.get(j)).isLessThanOrEqualTo(0);
                }
            }
        });
    }

    @Test
    void partitionsFollowTheKeyOfTheFirstRow() {
        assertThat(VISITED.partition(row(7, "x"), 8)).isEqualTo(VISITED.partition(row(7, "y"), 8)).isBetween(0, 7);
        assertThat(VISITED.partition(row(7, "x"), 1)).isZero();
    }

    /**
     * Keys a load balancer sent to one of N instances by key modulo N (here the even users of two instances, or
     * every fourth) still spread over all of that instance's appliers. Before the hash was mixed, the even users
     * all went to one partition of two: key-affinity routing by user % 2 left each instance one applier.
     */
    @Test
    void keysOfOneResidueSpreadOverEveryPartition() {
        for (int step : new int[] {2, 4, 8}) {
            for (int partitions : new int[] {2, 4, 8}) {
                int[] counts = new int[partitions];
                for (long user = step - 1; user < 4000L * step; user += step) {
                    counts[VISITED.partition(row(user, "x"), partitions)]++;
                }
                for (int c : counts) {
                    assertThat(c).as("users %d mod %d over %d partitions: %s", step - 1, step, partitions,
                            java.util.Arrays.toString(counts)).isBetween(4000 / partitions * 8 / 10, 4000 / partitions * 12 / 10);
                }
            }
        }
    }
}
