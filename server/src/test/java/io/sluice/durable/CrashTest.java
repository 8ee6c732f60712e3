package io.sluice.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** kill -9 a real sluice under async load, restart, verify: nothing acknowledged lost, nothing applied twice. */
class CrashTest {
    Path dir;

    @AfterEach
    void cleanUp() {
        TestServer.deleteRecursively(dir);
    }

    @Test
    @Timeout(240) // four sluice processes start, one after another
    void threeKillNineCycles() throws Exception {
        check(3);
    }

    /** {@code ./sluice soak}: the 100-cycle run. */
    @Test
    @Tag("soak")
    @Timeout(value = 2, unit = TimeUnit.HOURS) // 100 cycles take about 20 minutes
    void hundredKillNineCycles() throws Exception {
        check(Integer.getInteger("sluice.crash.cycles", 100));
    }

    /** The same over Bolt: sluice serve --neo4j, killed twice, against a sluice neo4j process that stays up. */
    @Test
    @Timeout(240) // a Neo4j process and three sluice processes start
    void twoKillNineCyclesOverBolt() throws Exception {
        dir = Files.createTempDirectory("sluice-crash-bolt-");
        try (Neo4jProcess neo4j = Neo4jProcess.start(dir.resolve("neo4j"))) {
            check(2, "--neo4j", neo4j.uri());
            assertThat(neo4j.terminate(Duration.ofSeconds(60))).as("sluice neo4j's exit code after SIGTERM").isIn(0, 143);
            assertThat(Files.readString(neo4j.log())).contains("neo4j stopped");
        }
    }

    private void check(int cycles, String... serveArgs) throws Exception {
        if (dir == null) {
            dir = Files.createTempDirectory("sluice-crash-");
        }
        long seed = Long.getLong("sluice.crash.seed", System.nanoTime());
        CrashCycles.Result r = CrashCycles.run(cycles, seed, dir, serveArgs);
        System.out.println("crash cycles: " + r);
        assertThat(r.acknowledged()).as("seed %d", seed).isPositive();
        assertThat(r.lost()).as("acknowledged writes lost (seed %d): %s", seed, r).isZero();
        assertThat(r.duplicated()).as("writes applied twice (seed %d): %s", seed, r).isZero();
        assertThat(r.nodes()).as("every acknowledged write, plus at most the unacknowledged ones in flight")
                .isGreaterThanOrEqualTo(r.acknowledged());
    }
}
