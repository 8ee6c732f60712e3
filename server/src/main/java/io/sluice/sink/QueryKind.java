package io.sluice.sink;

/** What a statement does, from the plan Neo4j makes for it (EXPLAIN), which decides how sluice runs it. */
public enum QueryKind {
    /** Reads only: run at once in a transaction of its own, never batched. */
    READ,
    /** Writes: batched and group-committed. */
    WRITE,
    /** Must run alone in an implicit transaction: schema commands, {@code CALL {} IN TRANSACTIONS}, DBMS. */
    ALONE
}
