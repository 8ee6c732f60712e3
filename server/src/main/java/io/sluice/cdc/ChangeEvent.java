package io.sluice.cdc;

import io.sluice.topic.Strategy;
import java.util.Map;

/**
 * One Debezium change event as read by a topic format (docs/reference/debezium-postgres.md, section 1): the table
 * ({@code schema.table} from {@code source}), the operation, the row {@code before} and {@code after}, and where it
 * stands in its source transaction ({@code txId} and {@code totalOrder} from the {@code transaction} block; null and
 * 0 without transaction metadata or in a snapshot), with {@code lsn} its change's log position (a primary-key change's
 * delete and create share it); {@code invalid}, when not null, why its values cannot be written. A tombstone (a null
 * value) is not an event: {@link #of} gives null.
 */
public record ChangeEvent(String table, Op op, Map<String, Object> before, Map<String, Object> after, Long txId,
        long totalOrder, Long lsn, String invalid) {

    public ChangeEvent(String table, Op op, Map<String, Object> before, Map<String, Object> after, Long txId,
            long totalOrder, Long lsn) {
        this(table, op, before, after, txId, totalOrder, lsn, null);
    }

    /**
     * This event, marked as one whose values cannot be written (a value of a Debezium type Neo4j cannot hold:
     * {@code why}): it still counts in its transaction, which then goes by on_error whole.
     */
    public ChangeEvent invalid(String why) {
        return new ChangeEvent(table, op, before, after, txId, totalOrder, lsn, why);
    }

    /** Debezium's {@code op}. */
    public enum Op {
        CREATE, READ, UPDATE, DELETE, TRUNCATE;

        static Op of(Object code) throws Strategy.Invalid {
            return switch (String.valueOf(code)) {
                case "c" -> CREATE;
                case "r" -> READ;
                case "u" -> UPDATE;
                case "d" -> DELETE;
                case "t" -> TRUNCATE;
                default -> throw new Strategy.Invalid("op '" + code + "' is not one of c, r, u, d, t (a Debezium"
                        + " change event's)");
            };
        }
    }

    /** The event a record's value carries; null for a tombstone. */
    public static ChangeEvent of(Object value) throws Strategy.Invalid {
        if (value == null) {
            return null;
        }
        if (!(value instanceof Map<?, ?> v) || !v.containsKey("op") || !(v.get("source") instanceof Map<?, ?> source)) {
            throw new Strategy.Invalid("not a Debezium change event (a value with op and source); with"
                    + " json-schema, is the connector's value converter's schemas.enable true?");
        }
        Op op = Op.of(v.get("op"));
        Object schema = source.get("schema");
        Object table = source.get("table");
        if (schema == null || table == null) {
            throw new Strategy.Invalid("the event's source names no schema and table");
        }
        Map<String, Object> before = row(v.get("before"), "before");
        Map<String, Object> after = row(v.get("after"), "after");
        switch (op) {
            case CREATE, READ, UPDATE -> {
                if (after == null) {
                    throw new Strategy.Invalid("op " + v.get("op") + " without after");
                }
            }
            case DELETE -> {
                if (before == null) {
                    throw new Strategy.Invalid("a delete without before (REPLICA IDENTITY NOTHING?): its row's key"
                            + " is unknown");
                }
            }
            case TRUNCATE -> { }
        }
        Long txId = null;
        long order = 0;
        if (v.get("transaction") instanceof Map<?, ?> tx) {
            txId = number(source.get("txId"));
            Long o = number(tx.get("total_order"));
            order = o == null ? 0 : o;
            if (txId == null) { // not PostgreSQL: the block's id names the transaction
                txId = idOf(tx.get("id"));
            }
        }
        return new ChangeEvent(schema + "." + table, op, before, after, txId, order, number(source.get("lsn")));
    }

    /** The key of {@code transaction.id} (PostgreSQL's {@code xid:lsn}: the xid). */
    static Long idOf(Object id) throws Strategy.Invalid {
        if (id == null) {
            return null;
        }
        String s = id.toString();
        int colon = s.indexOf(':');
        try {
            return Long.parseLong(colon < 0 ? s : s.substring(0, colon));
        } catch (NumberFormatException e) {
            throw new Strategy.Invalid("transaction id '" + s + "' is not <xid>:<lsn>");
        }
    }

    private static Long number(Object o) {
        return o instanceof Number n ? n.longValue() : null;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> row(Object o, String what) throws Strategy.Invalid {
        if (o == null) {
            return null;
        }
        if (!(o instanceof Map<?, ?>)) {
            throw new Strategy.Invalid(what + " is not a row");
        }
        return (Map<String, Object>) o;
    }

    /** The row whose key this event is about: {@code after}, or {@code before} for a delete. */
    Map<String, Object> row() {
        return op == Op.DELETE ? before : after;
    }
}
