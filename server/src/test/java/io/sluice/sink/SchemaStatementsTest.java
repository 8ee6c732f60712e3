package io.sluice.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.SinkPair;
import io.sluice.time.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Instances starting together run the same schema statement at the same moment: Neo4j ends some of them as
 * deadlock victims (on this machine, about one round in three of four at once). Each must still succeed.
 */
class SchemaStatementsTest {
    @Test
    @Timeout(120)
    void theSameConstraintCreatedByFourAtOnceSucceedsForAll() throws Exception {
        try (SinkPair pair = SinkPair.start("sluice-schema-race-");
                ExecutorService starts = Executors.newFixedThreadPool(4)) {
            for (int round = 0; round < 12; round++) {
                String statement = "CREATE CONSTRAINT race_" + round + " IF NOT EXISTS FOR (o:Race" + round
                        + ") REQUIRE (o.a, o.b) IS UNIQUE";
                CountDownLatch together = new CountDownLatch(1);
                List<Future<Object>> results = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    Sink sink = i % 2 == 0 ? pair.bolt : pair.embedded;
                    results.add(starts.submit(() -> {
                        together.await();
                        SchemaStatements.ensure(sink, statement, Time.SYSTEM);
                        return null;
                    }));
                }
                together.countDown();
                for (Future<Object> r : results) {
                    r.get(60, TimeUnit.SECONDS); // throws what ensure threw
                }
                assertThat(pair.embedded.runImplicit("SHOW CONSTRAINTS YIELD name WHERE name = $n RETURN count(*)",
                        Map.of("n", "race_" + round)).rows().getFirst().getFirst()).isEqualTo(1L);
            }
        }
    }
}
