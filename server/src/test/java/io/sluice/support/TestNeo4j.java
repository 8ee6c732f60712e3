package io.sluice.support;

import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.sink.Sink;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.neo4j.graphdb.GraphDatabaseService;

/**
 * An embedded Neo4j of a test's own in a temporary directory (64 MiB of page cache), for tests that drive a sink or
 * the database directly, without sluice's server around it. {@link #close} stops it and deletes the directory.
 */
public final class TestNeo4j implements AutoCloseable {
    private final Path dir;
    private final EmbeddedNeo4j neo4j;

    private TestNeo4j(Path dir, EmbeddedNeo4j neo4j) {
        this.dir = dir;
        this.neo4j = neo4j;
    }

    /** Starts one in a new directory named after {@code name}. */
    public static TestNeo4j start(String name) throws IOException {
        Path dir = Files.createTempDirectory("sluice-" + name + "-");
        try {
            return new TestNeo4j(dir, EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir, null, 64L << 20, 0,
                    "neo4j")));
        } catch (RuntimeException e) {
            TestServer.deleteRecursively(dir);
            throw e;
        }
    }

    public GraphDatabaseService database() {
        return neo4j.database();
    }

    public Sink sink() {
        return neo4j.sink();
    }

    @Override
    public void close() {
        try {
            neo4j.close();
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }
}
