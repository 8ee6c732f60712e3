package io.sluice.online;

import io.sluice.sink.EmbeddedNeo4j;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Opens a sluice data directory's embedded database for checks in Cypher. */
public final class Graph implements AutoCloseable {
    final EmbeddedNeo4j neo4j;

    private Graph(EmbeddedNeo4j neo4j) {
        this.neo4j = neo4j;
    }

    public static Graph open(Path dataDir) {
        return new Graph(EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dataDir, null, 64L << 20, 0, "neo4j")));
    }

    public long count(String cypher) {
        return neo4j.database().executeTransactionally(cypher, Map.of(),
                r -> ((Number) r.next().values().iterator().next()).longValue());
    }

    public List<Map<String, Object>> rows(String cypher) {
        return neo4j.database().executeTransactionally(cypher, Map.of(), r -> {
            List<Map<String, Object>> out = new ArrayList<>();
            r.forEachRemaining(out::add);
            return out;
        });
    }

    public Object one(String cypher) {
        return neo4j.database().executeTransactionally(cypher, Map.of(), r -> r.next().values().iterator().next());
    }

    @Override
    public void close() {
        neo4j.close();
    }
}
