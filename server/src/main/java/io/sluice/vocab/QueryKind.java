package io.sluice.vocab;


/** What a statement does, from the plan Neo4j makes for it (EXPLAIN), which decides how sluice runs it. */
public enum QueryKind {
    /** Reads only: run at once in a transaction of its own, never batched. */
    READ,
    /** Writes: batched and group-committed. */
    WRITE,
    /** Must run alone in an implicit transaction: schema commands, {@code CALL {} IN TRANSACTIONS}. */
    ALONE,
    /**
     * A DBMS procedure ({@code CALL tx.getMetaData()}, {@code CALL dbms.components()}): run at once in a transaction
     * of its own, as a read is, and allowed where a read is (Neo4j's read sessions take DBMS procedures); Neo4j calls
     * its type {@code s}.
     */
    DBMS;

    /**
     * Neo4j's query type ({@code r}, {@code w}, {@code rw}, {@code s}) for a statement of {@code kind} (null: not
     * known) that returns columns or not: a write that returns something also read.
     */
    public static String typeOf(QueryKind kind, boolean returnsColumns) {
        if (kind == null) {
            return "rw";
        }
        return switch (kind) {
            case READ -> "r";
            case WRITE -> returnsColumns ? "rw" : "w";
            case ALONE, DBMS -> "s";
        };
    }
}
