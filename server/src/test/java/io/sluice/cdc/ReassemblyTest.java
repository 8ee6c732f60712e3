package io.sluice.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cdc.Reassembly.Read;
import io.sluice.cdc.Reassembly.Slot;
import io.sluice.cdc.Reassembly.Unit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link Reassembly}: source transactions whole and in commit order whatever the interleaving of the topics, copies
 * (Debezium's redelivery) dropped by commit position, and where each partition is read again.
 */
class ReassemblyTest {
    static final Slot ORDERS = new Slot("shop.public.orders", 0);
    static final Slot LINES = new Slot("shop.public.lines", 0);
    static final Slot TX = new Slot("shop.transaction", 0);

    final Reassembly r = new Reassembly("shop.transaction", -1);
    final List<Unit<String>> out = new ArrayList<>();

    static ChangeEvent event(String table, long xid, long order, long id) {
        return new ChangeEvent(table, ChangeEvent.Op.CREATE, null, Map.of("id", id), xid, order, 100 + order);
    }

    void data(Slot slot, long offset, String table, long xid, long order, Long previous) {
        Unit<String> u = r.event(new Read<>(slot, offset, slot.topic() + "@" + offset),
                event(table.equals("o") ? "public.orders" : "public.lines", xid, order, offset), previous);
        if (u != null) {
            out.add(u);
        }
        out.addAll(r.<String>ready());
    }

    void end(long offset, long xid, long commit, long orders, long lines) {
        Map<String, Long> per = new java.util.LinkedHashMap<>();
        if (orders > 0) {
            per.put("public.orders", orders);
        }
        if (lines > 0) {
            per.put("public.lines", lines);
        }
        r.end(new Read<>(TX, offset, "tx@" + offset), xid + ":" + commit, orders + lines, per, 1000 + offset);
        out.addAll(r.<String>ready());
    }

    @Test
    void aTransactionLeavesWholeOnceItsEndAndEveryEventHaveArrivedInAnyOrder() {
        data(ORDERS, 0, "o", 7, 1, null);
        end(0, 7, 500, 1, 2);
        assertThat(out).isEmpty();
        data(LINES, 0, "l", 7, 2, null);
        assertThat(out).isEmpty();
        assertThat(r.waiting()).isEqualTo(1);
        data(LINES, 1, "l", 7, 3, null);
        assertThat(out).hasSize(1);
        Unit<String> u = out.getFirst();
        assertThat(u.xid()).isEqualTo(7);
        assertThat(u.commit()).isEqualTo(500);
        assertThat(u.events()).extracting(ChangeEvent::totalOrder).containsExactly(1L, 2L, 3L);
        assertThat(u.records()).containsExactly("shop.public.orders@0", "shop.public.lines@0", "shop.public.lines@1",
                "tx@0");
        assertThat(u.resume()).containsEntry(ORDERS, 1L).containsEntry(LINES, 2L).containsEntry(TX, 1L);
        assertThat(r.lastCommit()).isEqualTo(500);
    }

    @Test
    void transactionsLeaveInCommitOrderAndTheResumeOffsetsStopAtWhatIsStillBuffered() {
        data(ORDERS, 0, "o", 7, 1, null);
        data(ORDERS, 1, "o", 8, 1, 500L);
        end(0, 7, 500, 1, 1);
        end(1, 8, 600, 1, 0);
        assertThat(out).isEmpty(); // 8 is complete, but 7 (earlier) waits for its line
        data(LINES, 0, "l", 7, 2, null);
        assertThat(out).extracting(Unit::xid).containsExactly(7L, 8L);
        // when 7 left, 8's event (orders@1) and END (tx@1) were still buffered: a restart re-reads them
        assertThat(out.get(0).resume()).containsEntry(ORDERS, 1L).containsEntry(TX, 1L).containsEntry(LINES, 1L);
        assertThat(out.get(1).resume()).containsEntry(ORDERS, 2L).containsEntry(TX, 2L);
    }

    @Test
    void copiesOfTransactionsGivenOutAreDroppedWhateverTheirNewOffsets() {
        data(ORDERS, 0, "o", 7, 1, null);
        end(0, 7, 500, 1, 0);
        data(ORDERS, 1, "o", 8, 1, 500L);
        end(1, 8, 600, 1, 0);
        assertThat(out).extracting(Unit::xid).containsExactly(7L, 8L);
        // the connector restarts and sends both again (the same xids, positions and orders; new offsets)
        data(ORDERS, 2, "o", 7, 1, null); // the first after a start has no previous commit: kept until its END
        end(2, 7, 500, 1, 0);
        data(ORDERS, 3, "o", 8, 1, 500L); // before the last given out (600): dropped as it arrives
        end(3, 8, 600, 1, 0);
        data(ORDERS, 4, "o", 9, 1, 600L);
        end(4, 9, 700, 1, 0);
        assertThat(out).extracting(Unit::xid).containsExactly(7L, 8L, 9L);
        assertThat(r.duplicates()).isEqualTo(4);
        assertThat(r.buffered()).isZero();
        assertThat(out.getLast().resume()).containsEntry(ORDERS, 5L).containsEntry(TX, 5L);
    }

    @Test
    void aRestartFromTheStoredCommitDropsWhatWasApplied() {
        Reassembly again = new Reassembly("shop.transaction", 600);
        again.event(new Read<>(ORDERS, 3, "x"), event("public.orders", 8, 1, 3), 500L);
        again.end(new Read<>(TX, 3, "e"), "8:600", 1, Map.of("public.orders", 1L), 0);
        assertThat(again.<String>ready()).isEmpty();
        assertThat(again.buffered()).isZero();
        assertThat(again.waiting()).isZero();
    }

    @Test
    void aSnapshotRowIsAUnitAtOnceAndAnEmptyTransactionMovesThePositionOnly() {
        Unit<String> snap = r.event(new Read<>(ORDERS, 0, "s"), new ChangeEvent("public.orders", ChangeEvent.Op.READ,
                null, Map.of("id", 1L), null, 0, 50L), null);
        assertThat(snap).isNotNull();
        assertThat(snap.xid()).isNull();
        assertThat(snap.resume()).containsEntry(ORDERS, 1L);
        end(0, 7, 500, 0, 0);
        assertThat(out).hasSize(1);
        assertThat(out.getFirst().events()).isEmpty();
        assertThat(out.getFirst().resume()).containsEntry(TX, 1L);
    }

    @Test
    void theOldestWaitingCommitIsKnownUntilItLeaves() {
        assertThat(r.oldestWaitingMillis()).isEqualTo(-1);
        end(0, 7, 500, 1, 0);
        assertThat(r.oldestWaitingMillis()).isEqualTo(1000);
        data(ORDERS, 0, "o", 7, 1, null);
        assertThat(r.oldestWaitingMillis()).isEqualTo(-1);
    }
}
