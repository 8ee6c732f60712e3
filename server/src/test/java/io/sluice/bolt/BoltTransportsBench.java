package io.sluice.bolt;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.BoltWire;
import io.sluice.support.ChildJvm;
import io.sluice.support.TestServer;
import io.sluice.support.WebSocketBolt;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Bolt over WebSocket beside raw Bolt, the same load in one run: a sluice process of its own (the load is this
 * JVM), {@value #CONNECTIONS} connections each sending auto-commit writes one after another (RUN and PULL, then
 * wait for the answer), in rounds raw, WebSocket, WebSocket, raw after a warm-up of both, each round
 * {@value #ROUND_SECONDS} s: writes/s, p50 and p99 latency, and the server's CPU per write (from /proc). A soak
 * run ({@code ./sluice soak -Dtest=BoltTransportsBench}); figures in docs/BENCHMARKS.md.
 */
@Tag("soak")
@Timeout(600)
class BoltTransportsBench {
    static final int CONNECTIONS = 8;
    static final int ROUND_SECONDS = 20;
    static final int WARMUP_SECONDS = 20;

    record Round(String transport, long writes, double seconds, long p50Micros, long p99Micros, double cpuMicros) {
        @Override
        public String toString() {
            return String.format("%-9s %8.0f writes/s  p50 %6.2f ms  p99 %6.2f ms  server CPU %6.1f us/write",
                    transport, writes / seconds, p50Micros / 1000.0, p99Micros / 1000.0, cpuMicros);
        }
    }

    @Test
    void webSocketBesideRawBolt() throws Exception {
        Path dir = Files.createTempDirectory("sluice-transports-");
        Path config = dir.resolve("sluice.yaml");
        Files.writeString(config, "security: {max_failed_attempts: 1000}\n");
        int bolt = TestServer.freePort();
        try (ChildJvm sluice = ChildJvm.start("1g", List.of("serve", "--config", config.toString(), "--data",
                dir.resolve("data").toString(), "--http", "127.0.0.1:" + TestServer.freePort(), "--bolt",
                "127.0.0.1:" + bolt, "--warmup-write-path", "0s"), "sluice ready", dir.resolve("serve.log"),
                Map.of("NEO4J_AUTH", "neo4j/" + TestServer.PASSWORD))) {
            long pid = sluice.process.pid();
            round("raw", bolt, pid, WARMUP_SECONDS);
            round("websocket", bolt, pid, WARMUP_SECONDS);
            List<Round> rounds = new ArrayList<>();
            for (String t : List.of("raw", "websocket", "websocket", "raw")) {
                Round r = round(t, bolt, pid, ROUND_SECONDS);
                System.out.println("transports: " + r);
                rounds.add(r);
            }
            double raw = rate(rounds, "raw");
            double ws = rate(rounds, "websocket");
            System.out.printf("transports: websocket/raw writes/s %.2fx over two rounds each%n", ws / raw);
            assertThat(ws).isPositive();
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }

    static double rate(List<Round> rounds, String transport) {
        return rounds.stream().filter(r -> r.transport().equals(transport)).mapToDouble(r -> r.writes() / r.seconds())
                .average().orElseThrow();
    }

    static Round round(String transport, int port, long pid, int seconds) throws Exception {
        long cpuBefore = cpuMicros(pid);
        long start = System.nanoTime();
        long end = start + Duration.ofSeconds(seconds).toNanos();
        List<Future<long[]>> each = new ArrayList<>();
        try (ExecutorService pool = Executors.newFixedThreadPool(CONNECTIONS)) {
            for (int c = 0; c < CONNECTIONS; c++) {
                int connection = c;
                each.add(pool.submit(() -> load(transport, port, connection, end)));
            }
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        long cpu = cpuMicros(pid) - cpuBefore;
        long[] all = each.stream().flatMapToLong(f -> Arrays.stream(f.resultNow())).sorted().toArray();
        return new Round(transport, all.length, elapsed, all[all.length / 2] / 1000, all[(int) (all.length * 0.99)]
                / 1000, (double) cpu / all.length);
    }

    /** One connection's writes until {@code end}: each one's latency in nanoseconds. */
    static long[] load(String transport, int port, int connection, long end) throws Exception {
        long[] latencies = new long[1 << 16];
        int n = 0;
        try (BoltWire w = transport.equals("raw") ? BoltWire.connect("127.0.0.1", port)
                : WebSocketBolt.connect(URI.create("ws://127.0.0.1:" + port + "/"), null)) {
            w.handshake(BoltWire.version(5, 4, 4));
            w.send(BoltWire.hello(Map.of()), BoltWire.logon("neo4j", TestServer.PASSWORD));
            w.receive();
            assertThat((int) w.receive().tag()).isEqualTo(BoltWire.SUCCESS);
            for (long i = 0; System.nanoTime() < end; i++) {
                long t0 = System.nanoTime();
                w.send(BoltWire.run("CREATE (:TransportBench {c: $c, i: $i})", Map.of("c", connection, "i", i),
                        Map.of()), BoltWire.pullAll());
                assertThat((int) w.receive().tag()).isEqualTo(BoltWire.SUCCESS);
                assertThat((int) w.receive().tag()).isEqualTo(BoltWire.SUCCESS);
                if (n == latencies.length) {
                    latencies = Arrays.copyOf(latencies, n * 2);
                }
                latencies[n++] = System.nanoTime() - t0;
            }
        }
        return Arrays.copyOf(latencies, n);
    }

    /** The process's user and system CPU time so far, from /proc (clock ticks of 10 ms). */
    static long cpuMicros(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000; // utime, stime (fields 14, 15)
    }
}
