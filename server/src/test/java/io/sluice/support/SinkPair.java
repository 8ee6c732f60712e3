package io.sluice.support;

import io.sluice.config.HostPort;
import io.sluice.sink.BoltSink;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.sink.Sink;
import io.sluice.time.Time;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * One embedded Neo4j in a temporary directory, with its Bolt connector on, reached two ways: the embedded sink
 * and a Bolt sink over loopback. For tests that must hold for both sinks.
 */
public final class SinkPair implements AutoCloseable {
    public final Path dir;
    public final EmbeddedNeo4j neo4j;
    public final Sink embedded;
    public final BoltSink bolt;

    private SinkPair(Path dir, EmbeddedNeo4j neo4j, BoltSink bolt) {
        this.dir = dir;
        this.neo4j = neo4j;
        this.embedded = neo4j.sink();
        this.bolt = bolt;
    }

    public static SinkPair start(String prefix) throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        HostPort address = new HostPort("127.0.0.1", TestServer.freePort());
        EmbeddedNeo4j neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir, address, 64L << 20, 0, "neo4j"));
        try {
            return new SinkPair(dir, neo4j, BoltSink.connect(new BoltSink.Options("bolt://" + address, null, null,
                    "neo4j"), Duration.ofSeconds(30), Time.SYSTEM));
        } catch (Exception e) {
            neo4j.close();
            TestServer.deleteRecursively(dir);
            throw new IllegalStateException("cannot reach the embedded Neo4j over Bolt", e);
        }
    }

    /** The two names a parameterized test iterates over. */
    public static Stream<String> names() {
        return Stream.of("embedded", "bolt");
    }

    public Sink sink(String name) {
        return name.equals("embedded") ? embedded : bolt;
    }

    @Override
    public void close() {
        bolt.close();
        neo4j.close();
        TestServer.deleteRecursively(dir);
    }
}
