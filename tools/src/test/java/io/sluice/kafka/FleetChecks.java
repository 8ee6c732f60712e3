package io.sluice.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.sink.BoltSink;
import io.sluice.vocab.GraphException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@link FleetCrashTest}'s checks of the graph against what {@link FleetLoad}'s clients saw, once everything is
 * applied. A key's node holds the attempts applied to it in the order they were applied ({@code k.tries}), their
 * sequence numbers ({@code k.seqs}) and their count ({@code k.c}).
 *
 * <p>What must hold, and what may happen. Each attempt is one HTTP request, so at most one Kafka record: an
 * attempt applied twice is a record applied twice. A client sends its next attempt only after the previous one's
 * answer (or its timeout), and an acknowledged attempt is on Kafka before its 202, so it precedes, in its
 * partition, every attempt sent after it: nothing may be applied before an acknowledged attempt that was sent
 * earlier. An attempt without an acknowledgement (a 503, a timeout, a connection cut) is not known to be
 * accepted; it may reach Kafka late, even after attempts its client sent later (an instance frozen with the
 * request in hand goes on with it when it resumes, long after its client gave up): then it is applied there, once.
 * Those are counted as <em>late</em>, not failed.
 */
final class FleetChecks {
    private FleetChecks() {}

    /** Fails on the first key whose history in the graph breaks a rule above; prints the totals. */
    static void check(BoltSink graph, FleetLoad load) throws GraphException {
        Map<String, List<Object>> rows = new HashMap<>();
        for (List<Object> row : graph.inReadTransaction(tx -> tx.run("MATCH (k:Key) WHERE k.id STARTS WITH 'fleet-' "
                + "RETURN k.id, k.c, k.seqs, k.tries", Map.of())).rows()) {
            rows.put((String) row.get(0), row);
        }
        long acknowledged = 0;
        long appliedUnacknowledged = 0;
        long sentUnacknowledged = 0;
        long late = 0;
        for (FleetLoad.Key k : load.keys()) {
            acknowledged += k.acknowledged.size();
            sentUnacknowledged += k.sent.size() - k.acknowledged.size();
            List<Object> row = rows.get(k.id);
            if (row == null) {
                assertThat(k.acknowledged).as("key %s: acknowledged, not in the graph", k.id).isEmpty();
                continue;
            }
            late += checkKey(k, ((Number) row.get(1)).longValue(), ints(row.get(2)), ints(row.get(3)));
            appliedUnacknowledged += ints(row.get(3)).size() - k.acknowledged.size();
        }
        System.out.printf("fleet crash test: %d keys, %d writes acknowledged, all applied once, in order; %d attempts "
                + "sent and not acknowledged, %d of them applied, %d of those late (after attempts sent after them) "
                + "(%s)%n", load.keys().size(), acknowledged, sentUnacknowledged, appliedUnacknowledged, late, load);
        assertThat(acknowledged).isPositive();
    }

    /** Fails on what must not be; returns the late attempts (unacknowledged, applied after a later one). */
    private static int checkKey(FleetLoad.Key k, long c, List<Integer> seqs, List<Integer> tries) {
        Set<Integer> seen = new HashSet<>();
        int latest = -1;
        int lateAttempts = 0;
        for (int j = 0; j < tries.size(); j++) {
            int a = tries.get(j);
            assertThat(seen.add(a)).as("attempt %d applied twice: %s", a, around(k, seqs, tries, j)).isTrue();
            assertThat(k.sent).as("attempt %d applied, never sent: %s", a, around(k, seqs, tries, j)).containsKey(a);
            assertThat(seqs.get(j)).as("attempt %d's sequence number: %s", a, around(k, seqs, tries, j))
                    .isEqualTo(k.sent.get(a));
            if (a < latest) {
                assertThat(k.acknowledged).as("acknowledged attempt %d applied after attempt %d, sent after it: %s", a,
                        latest, around(k, seqs, tries, j)).doesNotContain(a);
                lateAttempts++;
            }
            latest = Math.max(latest, a);
        }
        String what = "key " + k.id + ": c " + c + ", " + tries.size() + " attempts applied, " + k.acknowledged.size()
                + " acknowledged, " + k.sent.size() + " sent";
        List<Integer> missing = new ArrayList<>(k.acknowledged);
        missing.removeAll(seen);
        assertThat(missing).as("acknowledged attempts missing: %s", what).isEmpty();
        assertThat(c).as("c counts the attempts applied: %s", what).isEqualTo(tries.size());
        List<Integer> acknowledgedSeqs = new ArrayList<>();
        for (int j = 0; j < tries.size(); j++) {
            if (k.acknowledged.contains(tries.get(j))) {
                acknowledgedSeqs.add(seqs.get(j));
            }
        }
        List<Integer> expected = new ArrayList<>();
        for (int s = 0; s < acknowledgedSeqs.size(); s++) {
            expected.add(s);
        }
        assertThat(acknowledgedSeqs).as("acknowledged sequence numbers, as applied, are 0, 1, 2 ...: %s", what)
                .isEqualTo(expected);
        return lateAttempts;
    }

    /** The applied attempts around position {@code j}: attempt/sequence number, and whether acknowledged. */
    private static String around(FleetLoad.Key k, List<Integer> seqs, List<Integer> tries, int j) {
        StringBuilder b = new StringBuilder("key " + k.id + ", applied at positions " + Math.max(0, j - 4) + "..: ");
        for (int i = Math.max(0, j - 4); i < Math.min(tries.size(), j + 5); i++) {
            b.append(i == j ? "[" : "").append(tries.get(i)).append('/').append(seqs.get(i))
                    .append(k.acknowledged.contains(tries.get(i)) ? " ack" : " unack").append(i == j ? "]" : "")
                    .append(i + 1 < Math.min(tries.size(), j + 5) ? ", " : "");
        }
        return b.toString();
    }

    private static List<Integer> ints(Object list) {
        return ((List<?>) list).stream().map(o -> ((Number) o).intValue()).toList();
    }
}
