package io.sluice.config;

/**
 * What a caller may send (Neo4j Community has no roles; this is the one distinction a write gateway needs).
 * The write path enforces it after classifying a request; a refusal is 403 {@code Neo.ClientError.Security.Forbidden}
 * and changes nothing. It lives here, not in {@code write} where most of its users are, because the config holds
 * each user's level parsed ({@link AccessLevels}) and {@code write} depends on {@code config} (never the reverse):
 * one enum for both.
 */
public enum Access {
    /** Everything: raw Cypher (reads, writes, schema) and the named templates. */
    CYPHER,
    /** Only the named templates ({@code /write/{template}}); no raw Cypher, not even reads. */
    TEMPLATES,
    /** Only raw Cypher that Neo4j plans as read-only; no writes, no templates. */
    READ
}
