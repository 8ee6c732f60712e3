package io.sluice.history;

import static io.sluice.history.History.a;
import static io.sluice.history.History.r;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.history.ListAppendChecker.Anomaly;
import io.sluice.history.ListAppendChecker.Dep;
import io.sluice.history.ListAppendChecker.Result;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The checker on hand-made histories: a serializable one passes, each anomaly is found and shown. */
class ListAppendCheckerTest {

    static List<String> kinds(Result r) {
        return r.anomalies().stream().map(Anomaly::kind).toList();
    }

    @Test
    void aSerializableHistoryPasses() {
        History h = new History.Builder().seed(7)
                .ok(r(1), a(1, 1))                 // T1
                .ok(a(1, 2), r(1, 1L, 2L))         // T2 reads its own append after T1's
                .ok(r(1, 1L, 2L), r(2))            // T3
                .fail(a(2, 3))                     // T4 failed: 3 appears nowhere
                .info(a(2, 4))                     // T5 indeterminate, committed after all
                .info(a(2, 5))                     // T6 indeterminate, did not commit
                .ok(r(2, 4L), a(2, 6), a(1, 7), r(1, 1L, 2L, 7L))   // T7
                .ok(r(1, 1L, 2L, 7L), r(2, 4L, 6L))                 // T8
                .finalList(1, 1L, 2L, 7L).finalList(2, 4L, 6L)
                .build();
        Result res = ListAppendChecker.check(h);
        assertThat(res.valid()).as(res.report(10)).isTrue();
        assertThat(res.infoVisible()).isEqualTo(1);
        assertThat(res.edges()).isGreaterThan(3);
    }

    @Test
    void aLostUpdateIsGSingle() {
        // both read [1] and appended: T2's read misses T1's append, which comes first in the final list
        History h = new History.Builder().seed(42)
                .ok(a(1, 1))
                .ok(r(1, 1L), a(1, 2))
                .ok(r(1, 1L), a(1, 3))
                .finalList(1, 1L, 2L, 3L).build();
        Result res = ListAppendChecker.check(h);
        assertThat(kinds(res)).containsExactly("G-single");
        Anomaly an = res.anomalies().getFirst();
        assertThat(an.cycle()).extracting(ListAppendChecker.Edge::dep).containsExactlyInAnyOrder(Dep.WW, Dep.RW);
        assertThat(an.txns()).extracting(History.Txn::id).containsExactlyInAnyOrder(2, 3);
        assertThat(res.report(5)).contains("seed 42", "T3 -rw-> T2", "T2 -ww-> T3", "-Dsluice.history.seed=42");
    }

    @Test
    void aLostAppendIsFound() {
        History h = new History.Builder().ok(a(1, 1)).ok(a(1, 2)).finalList(1, 2L).build();
        assertThat(kinds(ListAppendChecker.check(h))).containsExactly("lost-append");
    }

    @Test
    void writeSkewIsG2() {
        History h = new History.Builder()
                .ok(r(1), r(2), a(1, 1))
                .ok(r(1), r(2), a(2, 2))
                .finalList(1, 1L).finalList(2, 2L).build();
        Result res = ListAppendChecker.check(h);
        assertThat(kinds(res)).containsExactly("G2");
        assertThat(res.anomalies().getFirst().cycle()).extracting(ListAppendChecker.Edge::dep)
                .containsExactly(Dep.RW, Dep.RW);
    }

    @Test
    void readCommittedAllowsWriteSkewAndNonRepeatableReadsButNotG1c() {
        History skew = new History.Builder()
                .ok(r(1), r(2), a(1, 1))
                .ok(r(1), r(2), a(2, 2))
                .ok(r(1), r(1, 1L))
                .finalList(1, 1L).finalList(2, 2L).build();
        assertThat(ListAppendChecker.check(skew, ListAppendChecker.Model.READ_COMMITTED).valid()).isTrue();
        assertThat(kinds(ListAppendChecker.check(skew))).contains("internal").hasSizeGreaterThan(1); // and a cycle
        History g1c = new History.Builder()
                .ok(a(1, 1), r(2, 2L))
                .ok(a(2, 2), r(1, 1L))
                .finalList(1, 1L).finalList(2, 2L).build();
        assertThat(kinds(ListAppendChecker.check(g1c, ListAppendChecker.Model.READ_COMMITTED)))
                .containsExactly("G1c");
    }

    @Test
    void circularInformationFlowIsG1c() {
        History h = new History.Builder()
                .ok(a(1, 1), r(2, 2L))
                .ok(a(2, 2), r(1, 1L))
                .finalList(1, 1L).finalList(2, 2L).build();
        Result res = ListAppendChecker.check(h);
        assertThat(kinds(res)).containsExactly("G1c");
        assertThat(res.anomalies().getFirst().cycle()).extracting(ListAppendChecker.Edge::dep)
                .containsExactly(Dep.WR, Dep.WR);
    }

    @Test
    void interleavedAppendsAreG0() {
        History h = new History.Builder()
                .ok(a(1, 1), a(2, 2))
                .ok(a(1, 3), a(2, 4))
                .finalList(1, 1L, 3L).finalList(2, 4L, 2L).build();
        Result res = ListAppendChecker.check(h);
        assertThat(kinds(res)).containsExactly("G0");
        assertThat(res.anomalies().getFirst().cycle()).extracting(ListAppendChecker.Edge::dep)
                .containsExactly(Dep.WW, Dep.WW);
    }

    @Test
    void anAbortedReadIsG1a() {
        History h = new History.Builder()
                .fail(a(1, 1))
                .ok(r(1, 1L))
                .finalList(1).build();
        Result res = ListAppendChecker.check(h);
        assertThat(kinds(res)).contains("G1a");
        assertThat(res.report(5)).contains("aborted read: T2 read k1 = [1] with 1, appended by T1, which failed");
        // and an aborted append that survives into the final state
        History visible = new History.Builder().fail(a(1, 1)).finalList(1, 1L).build();
        assertThat(kinds(ListAppendChecker.check(visible))).containsExactly("G1a");
    }

    @Test
    void anIntermediateReadIsG1b() {
        History h = new History.Builder()
                .ok(a(1, 1), a(1, 2))
                .ok(r(1, 1L))
                .finalList(1, 1L, 2L).build();
        Result res = ListAppendChecker.check(h);
        assertThat(kinds(res)).contains("G1b");
    }

    @Test
    void aReadThatIsNotAPrefixOfTheFinalList() {
        History h = new History.Builder()
                .ok(a(1, 1))
                .ok(a(1, 2))
                .ok(r(1, 2L))
                .finalList(1, 1L, 2L).build();
        Result res = ListAppendChecker.check(h);
        assertThat(kinds(res)).containsExactly("incompatible-order");
        assertThat(res.report(5)).contains("T3 read k1 = [2], not a prefix of the final k1 = [1, 2]");
    }

    @Test
    void duplicatesInternalInconsistencyAndGarbage() {
        assertThat(kinds(ListAppendChecker.check(new History.Builder().ok(a(1, 1)).finalList(1, 1L, 1L).build())))
                .contains("duplicate-elements");
        assertThat(kinds(ListAppendChecker.check(new History.Builder().ok(a(1, 1), r(1)).finalList(1, 1L).build())))
                .containsExactly("internal");
        assertThat(kinds(ListAppendChecker.check(new History.Builder().ok(r(1, 1L), a(1, 2), r(1, 1L))
                .ok(a(1, 1)).finalList(1, 1L, 2L).build()))).containsExactly("internal");
        assertThat(kinds(ListAppendChecker.check(new History.Builder().ok(r(1, 9L)).finalList(1, 9L).build())))
                .contains("garbage");
    }

    /** A random serial execution, with failed and indeterminate transactions, is serializable however it is cut. */
    @Test
    void randomSerialHistoriesPass() {
        for (long seed = 0; seed < 200; seed++) {
            Random rnd = new Random(seed);
            Map<Integer, List<Long>> state = new HashMap<>();
            List<History.Txn> txns = new ArrayList<>();
            long next = 1;
            for (int i = 1; i <= 60; i++) {
                History.Status status = rnd.nextInt(10) == 0 ? History.Status.FAIL
                        : rnd.nextInt(10) == 0 ? History.Status.INFO : History.Status.OK;
                boolean applies = status == History.Status.OK || status == History.Status.INFO && rnd.nextBoolean();
                Map<Integer, List<Long>> view = new HashMap<>();
                state.forEach((k, v) -> view.put(k, new ArrayList<>(v)));
                List<History.Op> ops = new ArrayList<>();
                for (int j = 0, n = 1 + rnd.nextInt(4); j < n; j++) {
                    int key = rnd.nextInt(4);
                    if (rnd.nextBoolean()) {
                        ops.add(History.Op.read(key, view.getOrDefault(key, List.of())));
                    } else {
                        ops.add(History.Op.append(key, next));
                        view.computeIfAbsent(key, k -> new ArrayList<>()).add(next++);
                    }
                }
                if (applies) {
                    state.clear();
                    state.putAll(view);
                }
                txns.add(new History.Txn(i, 0, i, 1, status, "", ops));
            }
            Result res = ListAppendChecker.check(new History(seed, txns, state));
            assertThat(res.valid()).as(res.report(5)).isTrue();
        }
    }
}
