package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.sluice.config.SluiceConfig;
import io.sluice.time.Time;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Neo4j's server as the bench's peer in a JVM of its own ({@link PeerProcess}): a child of the bench, whose CPU,
 * GC and JIT are read of the child; a start that fails, or takes too long, says why and leaves no process behind.
 */
class PeerProcessTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(180)
    void theReadingIsTheChildsCpuGcAndJitNotTheBenchs() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream progress = new PrintStream(out, true, StandardCharsets.UTF_8);
        ProcessHandle child;
        try (Neo4jPeer peer = Neo4jPeer.startProcess(dir.resolve("home"), SluiceConfig.defaults(), true,
                List.of("CREATE CONSTRAINT person_id IF NOT EXISTS FOR (p:Person) REQUIRE p.id IS UNIQUE"), Map.of(),
                PeerProcess.START_TIMEOUT, Time.SYSTEM, progress)) {
            child = peer.process();
            assertThat(child.pid()).isNotEqualTo(ProcessHandle.current().pid());
            assertThat(ProcessHandle.current().children()).as("a child of the bench's").contains(child);
            assertThat(peer.sink()).isEqualTo(Neo4jPeer.SINK);

            ServerStats before = peer.reading(null);
            double ownBefore = ownCpuSeconds();
            // tens of millions of rows: seconds of the server's CPU, and garbage, while this JVM waits on one request
            assertThat(peer.count("UNWIND range(1, 20000000) AS i RETURN count(toString(i))")).isEqualTo(20_000_000L);
            ServerStats used = peer.reading(null).minus(before);
            double own = ownCpuSeconds() - ownBefore;

            assertThat(used.cpuSeconds()).as("the child's CPU, from the OS").isGreaterThan(0.5)
                    .isGreaterThan(2 * own);
            assertThat(peer.reading(null).jitSeconds()).as("its compilers' time, from its perf data").isPositive();
            assertThat(peer.reading(null).gcPauseSeconds()).as("its pauses, from its GC log").isPositive();
            assertThat(peer.count("SHOW CONSTRAINTS YIELD name WHERE name = 'person_id' RETURN count(*)"))
                    .as("the schema applied").isEqualTo(1);
        }
        assertThat(child.isAlive()).as("stopped by close").isFalse();
        String lines = out.toString(StandardCharsets.UTF_8);
        assertThat(lines).as("its output relayed").contains(PeerProcess.PREFIX + "neo4j ready: ",
                PeerProcess.PREFIX + "neo4j stopped");
        assertThat(Files.readString(dir.resolve("home/conf/neo4j.conf"))).contains(
                "server.http.listen_address=127.0.0.1:0",
                "initial.dbms.default_database=neo4j", "server.logs.user.config=");
    }

    @Test
    @Timeout(120)
    void aStartThatFailsSaysWhyAndLeavesNoProcess() {
        Set<Long> before = liveChildren();
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> Neo4jPeer.startProcess(dir.resolve("home"), SluiceConfig.defaults(), false,
                List.of(), Map.of("dbms.no_such_setting", "1"), PeerProcess.START_TIMEOUT, Time.SYSTEM,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ended before it was ready")
                .hasMessageContaining("dbms.no_such_setting");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("it failed as the child ended, not at the time-out")
                .isLessThan(PeerProcess.START_TIMEOUT);
        assertThat(liveChildren()).as("no process left behind").isSubsetOf(before);
    }

    @Test
    @Timeout(120)
    void aStartThatTakesTooLongIsStoppedAndSaysSo() {
        Set<Long> before = liveChildren();
        assertThatThrownBy(() -> Neo4jPeer.startProcess(dir.resolve("home"), SluiceConfig.defaults(), false,
                List.of(), Map.of(), Duration.ofMillis(300), Time.SYSTEM,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("was not ready within PT0.3S");
        assertThat(liveChildren()).as("the child is stopped").isSubsetOf(before);
    }

    @Test
    void theChildGetsThisJvmsHeapAndCollectorFlagsOnly() {
        assertThat(PeerProcess.heapFlags(List.of("-Xms2g", "-Xmx2g", "-XX:+UseParallelGC",
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "-XX:StartFlightRecording=filename=x.jfr",
                "-agentlib:jdwp=transport=dt_socket", "-Dsluice.launcher=x", "-XX:AOTCache=sluice.aot",
                "-XX:MaxGCPauseMillis=50"), 1L << 30))
                .containsExactly("-Xms2g", "-Xmx2g", "-XX:+UseParallelGC", "-XX:MaxGCPauseMillis=50");
        assertThat(PeerProcess.heapFlags(List.of("-XX:+UseG1GC"), 123_456_789L))
                .as("no -Xmx: this JVM's maximum").containsExactly("-XX:+UseG1GC", "-Xmx123456789");
        assertThat(PeerProcess.heapFlags(List.of("-XX:MaxRAMPercentage=50"), 1L))
                .containsExactly("-XX:MaxRAMPercentage=50");

        Path home = dir.resolve("a:home");
        List<String> cmd = PeerProcess.command(home, 536_870_912L, Map.of("db.memory.transaction.max", "1000000"),
                home.resolve("gc.log"));
        assertThat(cmd.getFirst()).endsWith("/bin/java");
        assertThat(cmd).contains("--enable-native-access=ALL-UNNAMED", "-Xlog:gc:file=\"" + home.resolve("gc.log")
                + "\"::filecount=0").containsSubsequence("io.sluice.cli.Main", "neo4j", "--http", "127.0.0.1:0",
                "--bolt", "127.0.0.1:0", "--data", home.toString(), "--pagecache", "536870912", "--setting",
                "db.memory.transaction.max=1000000");
        assertThat(cmd.indexOf("-Xlog:gc:file=\"" + home.resolve("gc.log") + "\"::filecount=0"))
                .as("JVM options before the main class").isLessThan(cmd.indexOf("io.sluice.cli.Main"));
    }

    @Test
    void gcPausesAreTheLogsPauseLines() {
        assertThat(PeerProcess.gcPauseSeconds(List.of(
                "[0.736s][info][gc] Using Parallel",
                "[0.736s][info][gc] GC(118) Pause Young (Allocation Failure) 28M->10M(62M) 0.758ms",
                "[0.753s][info][gc] GC(122) Pause Full (System.gc()) 19M->2M(62M) 12.968ms",
                "[0.869s][info][gc] GC(53) Pause Young (Normal) (G1 Evacuation Pause) 42M->6M(64M) 1.274ms",
                "[0.900s][info][gc] GC(54) Concurrent Mark Cycle 25.000ms",
                "[0.883s][info][gc] GC(97) Minor Collection (Allocation Rate) 32M(50%)->22M(34%) 0.002s",
                "[0.901s][info][gc] GC(55) Pause Remark 20M->20M(64M) 1.0")))
                .as("pauses only; a concurrent cycle, another format and a line still being written are not")
                .isCloseTo((0.758 + 12.968 + 1.274) / 1e3, within(1e-12));
        assertThat(PeerProcess.gcPauseSeconds(List.of())).isZero();
    }

    @Test
    void aJvmsJitTimeIsReadFromItsPerfDataAsItsOwnBeanSaysIt() {
        var bean = java.lang.management.ManagementFactory.getCompilationMXBean();
        double before = bean.getTotalCompilationTime() / 1e3;
        double read = PerfData.jitSeconds(ProcessHandle.current().pid()).orElseThrow();
        double after = bean.getTotalCompilationTime() / 1e3;
        assertThat(read).as("this JVM's, read from outside").isPositive().isBetween(before - 0.05, after + 0.05);

        assertThat(PerfData.jitSeconds(Long.MAX_VALUE)).as("no such JVM").isEmpty();
        java.nio.ByteBuffer garbage = java.nio.ByteBuffer.wrap(new byte[4096]);
        new java.util.Random(7).nextBytes(garbage.array());
        assertThat(PerfData.counter(garbage, "java.ci.totalTime")).as("not perf data").isEmpty();
    }

    private static double ownCpuSeconds() {
        return ProcessHandle.current().info().totalCpuDuration().orElseThrow().toNanos() / 1e9;
    }

    private static Set<Long> liveChildren() {
        return ProcessHandle.current().children().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
                .collect(Collectors.toSet());
    }
}
