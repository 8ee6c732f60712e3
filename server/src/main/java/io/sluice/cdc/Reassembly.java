package io.sluice.cdc;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whole source transactions out of a Debezium connector's topics: its table topics' change events and its
 * transaction topic's BEGIN and END, read in any interleaving, come out as units in the source's commit order, each
 * a whole transaction (or one snapshot row), with where every topic partition may be read from again once the unit
 * is applied.
 *
 * <h2>Design</h2>
 * Debezium writes a transaction's events to each table's topic and, after them, its END (with the number of events
 * per table) to the transaction topic, all in commit order; across topics a consumer sees no order
 * (docs/reference/debezium-postgres.md, section 5). So: events are buffered by transaction ({@code source.txId},
 * the xid), keyed by their {@code total_order} (a redelivered copy of an event replaces itself); ENDs queue in the
 * transaction topic's order; the head END is complete when its transaction's buffered events match its counts, per
 * table and in all, and only the head can leave (commit order). Events without a transaction block (the snapshot's
 * reads) are units of their own at once: a table partition's snapshot rows precede its streamed events, so any
 * transaction touching them completes after them.
 *
 * <p>Exactly once through Debezium's redelivery (a restarted connector sends again what followed its last committed
 * offset, with the same xids and log positions but new Kafka offsets) rests on the commit position: {@link #lastCommit}
 * is that of the last transaction given out (and, by the owner, stored with it in the graph). An END at or before it
 * is a copy: it and its transaction's buffered events are dropped. An event whose {@code source.sequence} says the
 * transaction before its own committed before {@link #lastCommit} belongs to a transaction at or before it, given out
 * already: dropped as it arrives.
 *
 * <p>Where to read again ({@link Unit#resume}): for each partition, the offset of its oldest record still buffered
 * (an event or an END of a transaction not given out), else the one after the last read. The owner writes those with
 * the unit, so a restart re-reads exactly what no applied unit covered. Confined to its owner's thread.
 */
public final class Reassembly {

    /** A topic partition, without Kafka's types. */
    public record Slot(String topic, int partition) {}

    /** One record read: where it came from and what it carries (its raw form, for a dead letter). */
    public record Read<R>(Slot slot, long offset, R raw) {}

    /**
     * What leaves: a whole source transaction's events in their order ({@code xid} and {@code commit} set), or one
     * snapshot row ({@code xid} null), or an empty transaction (no events: its position only); {@code records}: the
     * records it came from, for a dead letter; {@code resume}: each partition's next offset to read once it is
     * applied; {@code lastCommit}: the commit position of the last transaction given out with or before it.
     */
    public record Unit<R>(Long xid, Long commit, List<ChangeEvent> events, List<R> records,
            Map<Slot, Long> resume, long committedAtMillis, long lastCommit) {}

    private record End<R>(long xid, long commit, long count, Map<String, Long> perTable, long tsMillis,
            Read<R> read) {}

    private final String transactionTopic;
    private final Map<Long, TreeMap<Long, Read<?>>> byTx = new HashMap<>();
    private final Map<Long, TreeMap<Long, ChangeEvent>> events = new HashMap<>();
    private final ArrayDeque<End<?>> ends = new ArrayDeque<>();
    /** Per partition: the offset after the last record read. */
    private final Map<Slot, Long> read = new LinkedHashMap<>();
    /** Per partition: offsets of the records buffered (events, ENDs), oldest first. */
    private final Map<Slot, TreeMap<Long, Integer>> held = new HashMap<>();
    // what status and the metrics read from other threads, kept by the owner's thread as it changes (never by
    // walking the maps it is changing)
    private volatile long lastCommit;
    private volatile long duplicates;
    private volatile int waiting;
    private volatile long oldestWaiting = -1;
    private volatile int bufferedEvents;

    /** {@code lastCommit}: the commit position of the last transaction applied (-1: none). */
    public Reassembly(String transactionTopic, long lastCommit) {
        this.transactionTopic = transactionTopic;
        this.lastCommit = lastCommit;
    }

    /** The commit position of the last transaction given out. */
    public long lastCommit() {
        return lastCommit;
    }

    /** Events and ENDs dropped as copies of what was given out. */
    public long duplicates() {
        return duplicates;
    }

    /** Transactions whose END has arrived and that wait for their events (or for an earlier one). */
    public int waiting() {
        return waiting;
    }

    /** The commit time (ms since the epoch) of the oldest transaction waiting, or -1. */
    public long oldestWaitingMillis() {
        return oldestWaiting;
    }

    /** Events buffered, of every transaction. */
    public int buffered() {
        return bufferedEvents;
    }

    /** After the ENDs waiting changed. */
    private void endsChanged() {
        waiting = ends.size();
        End<?> head = ends.peekFirst();
        oldestWaiting = head == null ? -1 : head.tsMillis;
    }

    /** A record read that carries nothing to apply (a tombstone, a BEGIN): only its partition moves. */
    public void skip(Slot slot, long offset) {
        read.merge(slot, offset + 1, Math::max);
    }

    /**
     * A table's change event; {@code sequencePrevious} the commit position of the transaction before its own (from
     * {@code source.sequence}; null when not given). Returns a unit when it is one of its own (a snapshot row).
     */
    public <R> Unit<R> event(Read<R> r, ChangeEvent e, Long sequencePrevious) {
        read.merge(r.slot(), r.offset() + 1, Math::max);
        if (e.txId() == null) {
            return new Unit<>(null, null, List.of(e), List.of(r.raw()), resume(), -1, lastCommit);
        }
        if (sequencePrevious != null && sequencePrevious < lastCommit) {
            duplicates++;
            return null; // its transaction committed at or before the last given out
        }
        TreeMap<Long, Read<?>> raws = byTx.computeIfAbsent(e.txId(), x -> new TreeMap<>());
        Read<?> replaced = raws.put(e.totalOrder(), r);
        if (replaced != null) {
            duplicates++;
            release(replaced);
        }
        if (events.computeIfAbsent(e.txId(), x -> new TreeMap<>()).put(e.totalOrder(), e) == null) {
            bufferedEvents++;
        }
        held.computeIfAbsent(r.slot(), s -> new TreeMap<>()).merge(r.offset(), 1, Integer::sum);
        return null;
    }

    /** A transaction topic's END: {@code id} is {@code <xid>:<commit lsn>}. */
    public <R> void end(Read<R> r, String id, long count, Map<String, Long> perTable, long tsMillis) {
        read.merge(r.slot(), r.offset() + 1, Math::max);
        int colon = id.indexOf(':');
        long xid = Long.parseLong(id.substring(0, colon));
        long commit = Long.parseLong(id.substring(colon + 1));
        long newest = ends.isEmpty() ? lastCommit : ends.peekLast().commit;
        if (commit <= newest) { // a copy of one given out, or of one waiting
            duplicates++;
            if (commit <= lastCommit) {
                drop(xid);
            }
            return;
        }
        ends.addLast(new End<>(xid, commit, count, Map.copyOf(perTable), tsMillis, r));
        endsChanged();
        held.computeIfAbsent(r.slot(), s -> new TreeMap<>()).merge(r.offset(), 1, Integer::sum);
    }

    /** The next units that are whole, in commit order (none when the head transaction still waits for events). */
    @SuppressWarnings("unchecked")
    public <R> List<Unit<R>> ready() {
        List<Unit<R>> out = new ArrayList<>();
        while (!ends.isEmpty()) {
            End<R> head = (End<R>) ends.peekFirst();
            TreeMap<Long, ChangeEvent> got = events.getOrDefault(head.xid, new TreeMap<>());
            if (!complete(head, got)) {
                break;
            }
            ends.removeFirst();
            endsChanged();
            release(head.read);
            List<ChangeEvent> list = new ArrayList<>(got.values());
            List<R> raws = new ArrayList<>();
            TreeMap<Long, Read<?>> reads = byTx.remove(head.xid);
            if (reads != null) {
                for (Read<?> x : reads.values()) {
                    raws.add((R) x.raw());
                    release(x);
                }
            }
            TreeMap<Long, ChangeEvent> gone = events.remove(head.xid);
            bufferedEvents -= gone == null ? 0 : gone.size();
            lastCommit = head.commit;
            raws.add(head.read.raw());
            out.add(new Unit<>(head.xid, head.commit, list, raws, resume(), head.tsMillis, lastCommit));
        }
        return out;
    }

    private static boolean complete(End<?> end, TreeMap<Long, ChangeEvent> got) {
        if (got.size() < end.count) {
            return false;
        }
        Map<String, Long> per = new HashMap<>();
        for (Map.Entry<Long, ChangeEvent> e : got.entrySet()) {
            if (e.getKey() > end.count) {
                continue;
            }
            per.merge(e.getValue().table(), 1L, Long::sum);
        }
        for (Map.Entry<String, Long> want : end.perTable.entrySet()) {
            if (per.getOrDefault(want.getKey(), 0L) < want.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** Drops a transaction's buffered events (a copy of one given out). */
    private void drop(long xid) {
        TreeMap<Long, Read<?>> reads = byTx.remove(xid);
        TreeMap<Long, ChangeEvent> gone = events.remove(xid);
        bufferedEvents -= gone == null ? 0 : gone.size();
        if (reads != null) {
            duplicates += reads.size();
            reads.values().forEach(this::release);
        }
    }

    private void release(Read<?> r) {
        TreeMap<Long, Integer> offsets = held.get(r.slot());
        if (offsets != null) {
            offsets.computeIfPresent(r.offset(), (o, n) -> n == 1 ? null : n - 1);
        }
    }

    /** Each partition's next offset to read if everything given out so far is applied. */
    private Map<Slot, Long> resume() {
        Map<Slot, Long> out = new HashMap<>();
        for (Map.Entry<Slot, Long> e : read.entrySet()) {
            TreeMap<Long, Integer> offsets = held.get(e.getKey());
            out.put(e.getKey(), offsets == null || offsets.isEmpty() ? e.getValue() : offsets.firstKey());
        }
        return out;
    }

    /** Whether {@code topic} is the transaction topic. */
    public boolean isTransactions(String topic) {
        return transactionTopic.equals(topic);
    }
}
