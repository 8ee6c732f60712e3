package io.sluice.sink;

import io.sluice.vocab.GraphValues.GraphNode;
import io.sluice.vocab.GraphValues.GraphPath;
import io.sluice.vocab.GraphValues.GraphRelationship;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.GraphException;
import java.util.List;
import java.util.Map;

/**
 * How many values one transaction's materialised results may hold. Results are detached from their
 * transaction and kept until it commits (a batch holds every request's), then encoded to JSON, so an unbounded
 * read would take the heap that every writer shares. Sluice is a write gateway: large reads belong on Bolt,
 * where the drivers stream.
 *
 * <p>A value's weight is counted recursively: 1 for a scalar, plus its elements for a list or map, plus a node's
 * or relationship's properties, plus 1 per 64 characters of a string or bytes of a byte array. Rows are counted
 * as they are detached, so at most one row past the bound is ever held. One budget per transaction (or per
 * implicit statement); not thread-safe, like the transaction.
 */
public final class ResultBudget {
    /** Values the results of one transaction may hold. */
    static final long MAX_VALUES = 1_000_000;

    private final long max;
    private final boolean drain;
    private long spent;

    private ResultBudget(long max, boolean drain) {
        this.max = max;
        this.drain = drain;
    }

    /** For the statements of an explicit transaction: past the bound, {@link #add} throws {@link Exceeded}. */
    static ResultBudget forTransaction() {
        return new ResultBudget(MAX_VALUES, false);
    }

    /**
     * For a statement that runs as its own implicit transaction: past the bound the rows are dropped and the
     * result read on to its end, so the statement finishes (see {@link #ranButTooLarge}).
     */
    static ResultBudget draining() {
        return new ResultBudget(MAX_VALUES, true);
    }

    /** Whether the next row is to be detached at all: not once a draining budget is spent. */
    boolean keepsRows() {
        return !(drain && exceeded());
    }

    /** Counts a detached row and adds it to {@code rows}; past the bound throws, or, draining, drops them all. */
    void add(List<List<Object>> rows, List<Object> row) {
        spent += weight(row);
        if (!exceeded()) {
            rows.add(row);
        } else if (drain) {
            rows.clear();
        } else {
            throw new Exceeded(max);
        }
    }

    boolean exceeded() {
        return spent > max;
    }

    /** {@code v}'s weight against a budget: a scalar 1, a list or map 1 plus its elements, a string 1 per 64 characters. */
    public static long weight(Object v) {
        return switch (v) {
            case null -> 1;
            case String s -> 1 + s.length() / 64;
            case byte[] b -> 1 + b.length / 64;
            case List<?> l -> {
                long w = 1;
                for (Object o : l) {
                    w += weight(o);
                }
                yield w;
            }
            case Map<?, ?> m -> {
                long w = 1;
                for (Object o : m.values()) {
                    w += weight(o);
                }
                yield w;
            }
            case GraphNode n -> 1 + n.labels().size() + weight(n.properties());
            case GraphRelationship r -> 1 + weight(r.properties());
            case GraphPath p -> weight(p.nodes()) + weight(p.relationships());
            default -> 1;
        };
    }

    /** The bound was passed; {@link #error} says so in Neo4j's terms. */
    static final class Exceeded extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Exceeded(long max) {
            super("the result holds more than " + String.format("%,d", max) + " values; sluice materialises results"
                    + " before sending them: add LIMIT (page with SKIP/LIMIT), or read large results over Bolt",
                    null, false, false);
        }

        Neo4jError error() {
            return Neo4jError.invalid(getMessage());
        }

        /** The {@link Exceeded} in {@code e}'s cause chain, or null. */
        static Exceeded in(Throwable e) {
            for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
                if (c instanceof Exceeded x) {
                    return x;
                }
            }
            return null;
        }
    }

    /**
     * For a statement that runs as its own implicit transaction (it may commit as it runs: schema,
     * {@code CALL {} IN TRANSACTIONS}, auto-commit over Bolt): the result was read to its end, so the statement
     * finished, but was too large to keep. Failing it as if nothing had happened would invite a retry that applies
     * it twice, so the message says it ran.
     */
    static GraphException ranButTooLarge(long max) {
        return new GraphException(Neo4jError.invalid("the statement ran to completion (its effects are committed), but"
                + " its result holds more than " + String.format("%,d", max) + " values and was dropped; add LIMIT"
                + " or return less"), null);
    }
}
