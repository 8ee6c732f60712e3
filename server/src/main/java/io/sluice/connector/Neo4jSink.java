package io.sluice.connector;

/**
 * The Neo4j the connector writes to: the first of {@code neo4j.uri}, its scheme with {@code +s} or {@code +ssc}
 * when {@code neo4j.security.*} asks for TLS; the Basic {@code user} and {@code password} (null, null: no
 * authentication); the {@code database} (null: the connector names none, so the server's default).
 */
public record Neo4jSink(String uri, String user, String password, String database) {
    /** Never shows the password. */
    @Override
    public String toString() {
        return "Neo4jSink[uri=" + uri + ", user=" + user + ", password=" + (password == null ? "none" : "...")
                + ", database=" + database + "]";
    }
}
