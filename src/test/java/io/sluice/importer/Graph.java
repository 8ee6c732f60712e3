package io.sluice.importer;

import io.sluice.sink.EmbeddedNeo4j;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Opens a sluice data directory's embedded database for checks in Cypher. */
final class Graph implements AutoCloseable {
    final EmbeddedNeo4j neo4j;

    private Graph(EmbeddedNeo4j neo4j) {
        this.neo4j = neo4j;
    }

    static Graph open(Path dataDir) {
        return new Graph(EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dataDir, null, 64L << 20, 0, "neo4j")));
    }

    long count(String cypher) {
        return neo4j.database().executeTransactionally(cypher, Map.of(),
                r -> ((Number) r.next().values().iterator().next()).longValue());
    }

    List<Map<String, Object>> rows(String cypher) {
        return neo4j.database().executeTransactionally(cypher, Map.of(), r -> {
            List<Map<String, Object>> out = new ArrayList<>();
            r.forEachRemaining(out::add);
            return out;
        });
    }

    Object one(String cypher) {
        return neo4j.database().executeTransactionally(cypher, Map.of(), r -> r.next().values().iterator().next());
    }

    @Override
    public void close() {
        neo4j.close();
    }
}
