package io.sluice.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A list-append history (Elle's model, Kingsbury and Alvaro 2020): transactions over keyed lists of integers, each
 * a sequence of reads (the whole list) and appends (one unique value), and the final state of every list.
 *
 * <p>One {@link Txn} per <em>attempt</em>: when the driver's retry loop runs a transaction function several times,
 * each run is a transaction of its own, with its own values; only the run the driver reported committed is
 * {@link Status#OK}.
 */
public record History(long seed, List<Txn> txns, Map<Integer, List<Long>> finalState) {

    public History {
        txns = List.copyOf(txns);
        finalState = new TreeMap<>(finalState);
    }

    /** What the client knows of an attempt. */
    public enum Status {
        /** Committed: the driver's executeWrite returned after this attempt. */
        OK,
        /** Certainly not committed: the transaction function threw (a failed statement, an application rollback). */
        FAIL,
        /** Indeterminate: may or may not have committed (connection cut, commit failed with an unknown outcome). */
        INFO
    }

    /** A micro-operation: an append of {@code value} to {@code key}, or a read of {@code key} that saw {@code read}. */
    public record Op(boolean append, int key, long value, List<Long> read) {
        public static Op append(int key, long value) {
            return new Op(true, key, value, null);
        }

        public static Op read(int key, List<Long> read) {
            return new Op(false, key, 0, List.copyOf(read));
        }

        @Override
        public String toString() {
            return append ? "append(k" + key + ", " + value + ")" : "read(k" + key + ") = " + read;
        }
    }

    /**
     * One attempt: {@code id} unique in the history, {@code client} and {@code logical} name the client's
     * transaction, {@code attempt} counts the driver's runs of it from 1.
     */
    public record Txn(int id, int client, int logical, int attempt, Status status, String note, List<Op> ops) {
        public Txn {
            ops = List.copyOf(ops);
        }

        /** A hand-made transaction (tests). */
        public static Txn of(int id, Status status, Op... ops) {
            return new Txn(id, 0, id, 1, status, "", List.of(ops));
        }

        public String name() {
            return "T" + id;
        }

        @Override
        public String toString() {
            return name() + " [client " + client + ", transaction " + logical + ", attempt " + attempt + ", "
                    + status + (note == null || note.isEmpty() ? "" : ": " + note) + "] "
                    + ops.stream().map(Op::toString).collect(Collectors.joining("; "));
        }
    }

    /** A builder for hand-made histories. */
    public static final class Builder {
        private final List<Txn> txns = new ArrayList<>();
        private final Map<Integer, List<Long>> state = new TreeMap<>();
        private long seed;

        public Builder seed(long s) {
            seed = s;
            return this;
        }

        public Builder txn(Status status, Op... ops) {
            txns.add(Txn.of(txns.size() + 1, status, ops));
            return this;
        }

        public Builder ok(Op... ops) {
            return txn(Status.OK, ops);
        }

        public Builder fail(Op... ops) {
            return txn(Status.FAIL, ops);
        }

        public Builder info(Op... ops) {
            return txn(Status.INFO, ops);
        }

        public Builder finalList(int key, Long... values) {
            state.put(key, List.of(values));
            return this;
        }

        public History build() {
            return new History(seed, txns, state);
        }
    }

    public static Op a(int key, long value) {
        return Op.append(key, value);
    }

    public static Op r(int key, Long... values) {
        return Op.read(key, List.of(values));
    }
}
