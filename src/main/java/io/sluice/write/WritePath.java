package io.sluice.write;

import java.util.Optional;

/**
 * The one interface through which the HTTP layer reaches the write path. {@link #execute} blocks the calling
 * (virtual) thread until the request has its {@link Outcome}, and never throws for a client's mistake.
 */
public interface WritePath {
    Outcome execute(WriteRequest request, Mode mode);

    Optional<Template> template(String name);

    /** The database name requests must address (Neo4j Community has one user database). */
    String database();

    /** A snapshot for /health. */
    java.util.Map<String, Object> health();
}
