package io.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.support.Await;
import io.sluice.support.RawHttp;
import io.sluice.support.RawHttp.Response;
import io.sluice.support.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * A template write keeps its connection registered for reads while it waits for its commit or its force
 * ({@code HttpServer.keepReadsRegistered}). Bytes that arrive meanwhile must wait for the answer, in order: the
 * next requests of a pipelining client, or the end of a client that half-closed after its request. A long linger
 * holds each sync write so that they do arrive while it is pending. Three I/O threads here (the default on two
 * cores is one, and before {@code http.io_threads} it was two), so the connections of one test are served by more
 * than one, and the count shows the setting reaches Undertow.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConnectionReadsTest {
    TestServer s;

    @BeforeAll
    void start() {
        s = TestServer.start("""
                templates:
                  person:
                    cypher: "CREATE (:Person {id: row.id})"
                    key: [id]
                    types: {id: integer}
                batch: {max_wait: 600ms}
                http: {io_threads: 3}
                """, false);
    }

    @AfterAll
    void stop() {
        s.close();
    }

    @Test
    @Timeout(60)
    void pipelinedWritesAreAnsweredInOrderAfterThePendingOne() throws Exception {
        try (Socket socket = connect()) {
            RawHttp.send(socket, request("sync", "{\"id\": 1}"));
            // the first write waits in its batch (the linger), its connection registered for reads: the next
            // requests arrive while it is pending
            Await.until("the first write pending", Duration.ofSeconds(30), () -> pendingRows() >= 1);
            StringBuilder next = new StringBuilder();
            for (int id = 2; id <= 3; id++) {
                next.append(request("sync", "{\"id\": " + id + "}"));
            }
            next.append(request("async", "{\"id\": 4}"));
            next.append(request("sync", "{\"id\": \"not a number\"}"));
            RawHttp.send(socket, next.toString());
            InputStream in = socket.getInputStream();
            List<Integer> statuses = new ArrayList<>();
            List<String> bodies = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Response r = RawHttp.read(in);
                statuses.add(r.status());
                bodies.add(r.body());
            }
            assertThat(statuses).as(bodies.toString()).containsExactly(200, 200, 200, 202, 400);
            assertThat(bodies.get(4)).contains("Neo.ClientError");
        }
        assertThat(s.count("MATCH (p:Person) WHERE p.id IN [1, 2, 3] RETURN count(p)")).isEqualTo(3);
    }

    /** Rows admitted and not yet committed, from {@code /health}. */
    private long pendingRows() {
        return s.health().findValue("pending_rows").asLong();
    }

    @Test
    @Timeout(60)
    void aClientThatHalfClosesAfterItsWriteStillGetsTheAnswer() throws Exception {
        try (Socket socket = connect()) {
            RawHttp.send(socket, request("sync", "{\"id\": 10}"));
            socket.shutdownOutput(); // readable at once: end of stream, while the write waits for its batch
            Response r = RawHttp.read(socket.getInputStream());
            assertThat(r.status()).as(r.body()).isEqualTo(200);
            assertThat(socket.getInputStream().read()).as("closed after the answer").isEqualTo(-1);
        }
        assertThat(s.count("MATCH (p:Person {id: 10}) RETURN count(p)")).isEqualTo(1);
        // the server goes on: another connection is answered
        assertThat(s.post("/db/neo4j/write/person", "{\"id\": 11}").statusCode()).isEqualTo(200);
    }

    @Test
    @Timeout(60)
    void aClientGoneBeforeItsAnswerLeavesTheServerServing() throws Exception {
        long ioCpuBefore = ioThreadsCpuNanos();
        try (Socket socket = connect()) {
            RawHttp.send(socket, request("sync", "{\"id\": 20}"));
        } // closed at once: readable (end of stream) while the write is pending; its answer goes nowhere
        Await.until("the gone client's write committed", Duration.ofSeconds(30), () -> s.count("MATCH (p:Person {id: 20}) RETURN count(p)") == 1);
        // the write lingered ~600 ms with its socket readable: an I/O thread that kept being woken for it would
        // have spent about that
        assertThat(Duration.ofNanos(ioThreadsCpuNanos() - ioCpuBefore)).isLessThan(Duration.ofMillis(150));
        for (int id = 21; id <= 23; id++) {
            assertThat(s.post("/db/neo4j/write/person", "{\"id\": " + id + "}").statusCode()).isEqualTo(200);
        }
        assertThat(s.count("MATCH (p:Person) WHERE p.id IN [20, 21, 22, 23] RETURN count(p)")).isEqualTo(4);
    }

    @Test
    @Timeout(30)
    void theServerRunsTheConfiguredNumberOfIoThreads() {
        // XNIO numbers its workers as they are made: the newest is this class's server
        java.util.TreeMap<Integer, Integer> byWorker = new java.util.TreeMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            var m = IO_THREAD.matcher(t.getName());
            if (m.matches() && t.isAlive()) {
                byWorker.merge(Integer.parseInt(m.group(1)), 1, Integer::sum);
            }
        }
        assertThat(byWorker).isNotEmpty();
        assertThat(byWorker.lastEntry().getValue()).as("I/O threads by worker: %s", byWorker).isEqualTo(3);
    }

    /** The name XNIO gives a worker's I/O threads: "XNIO-&lt;worker&gt; I/O-&lt;n&gt;". */
    private static final java.util.regex.Pattern IO_THREAD = java.util.regex.Pattern.compile("XNIO-(\\d+) I/O-\\d+");

    /** The CPU time of this process's Undertow I/O threads so far. */
    private static long ioThreadsCpuNanos() {
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (var info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && IO_THREAD.matcher(info.getThreadName()).matches()) {
                sum += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
            }
        }
        return sum;
    }

    private static String request(String mode, String body) {
        return RawHttp.post("/db/neo4j/write/person?mode=" + mode, TestServer.AUTH, body);
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket(s.server.httpAddress().getAddress(), s.server.httpAddress().getPort());
        socket.setSoTimeout(30_000);
        return socket;
    }
}
