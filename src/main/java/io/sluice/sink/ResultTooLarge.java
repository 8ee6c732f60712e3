package io.sluice.sink;

/**
 * A statement's result is larger than sluice will hold. Results are materialised (detached from the
 * transaction) before they are encoded and sent, so an unbounded read would take the heap, and every writer
 * with it. The bound counts values: a row's columns, and the elements of a list value. Sluice is a write
 * gateway; large reads belong on Bolt, where the driver streams.
 */
final class ResultTooLarge extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Values one statement's result may hold (rows x columns, plus list elements). */
    static final long MAX_VALUES = 1_000_000;

    ResultTooLarge() {
        super("the result has more than " + String.format("%,d", MAX_VALUES) + " values; sluice materialises a"
                + " result before sending it: add LIMIT (page with SKIP/LIMIT), or read large results over Bolt",
                null, false, false);
    }

    Neo4jError error() {
        return Neo4jError.invalid(getMessage());
    }

    /** Counts a row of {@code values} into {@code spent}; throws once past {@link #MAX_VALUES}. */
    static long spend(long spent, java.util.List<Object> values) {
        long n = spent + values.size();
        for (Object v : values) {
            if (v instanceof java.util.List<?> l) {
                n += l.size();
            }
        }
        if (n > MAX_VALUES) {
            throw new ResultTooLarge();
        }
        return n;
    }

    /** The {@link ResultTooLarge} in {@code e}'s cause chain, or null. */
    static ResultTooLarge in(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof ResultTooLarge r) {
                return r;
            }
        }
        return null;
    }
}
