package io.sluice.security;

/**
 * Where users and their passwords live: Neo4j's own (the embedded DBMS's system database, or a remote Neo4j
 * server's). Sluice keeps no users of its own. Implementations are thread-safe.
 */
public interface UserStore {

    /** Checks {@code credentials}; never throws for wrong ones. */
    Verdict check(Credentials credentials);

    /**
     * A number that changes whenever a user or password may have changed, so a cache of verified credentials
     * knows when to check again; {@link Long#MIN_VALUE} when the store cannot tell (then only expiry helps).
     */
    long version();

    /** What the store said. */
    sealed interface Verdict {
        record Accepted(String user) implements Verdict {}

        /** Wrong user, password or token; {@code message} is Neo4j's. */
        record Rejected(String message) implements Verdict {}

        /** The store's own lockout after repeated failures (Neo4j locks a user name for a while). */
        record RateLimited(String message) implements Verdict {}

        /** Right, but the password must be changed first (Neo4j's default {@code neo4j/neo4j}). */
        record Expired(String user, String message) implements Verdict {}
    }
}
