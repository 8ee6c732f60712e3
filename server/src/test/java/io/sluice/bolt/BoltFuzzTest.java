package io.sluice.bolt;

import static io.sluice.support.BoltWire.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.bolt.PackStream.Struct;
import io.sluice.support.BoltWire;
import io.sluice.support.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;

/**
 * Sluice's Bolt listener against bad bytes and bad message sequences: hundreds of seeded connections, some at the
 * same time, each one of random handshakes, damaged bytes after a good handshake, or well-formed requests in any
 * order. Each connection must be answered with well-framed SUCCESS, RECORD, IGNORED and FAILURE messages and be
 * closed within a bounded time once the client stops sending; a well-behaved driver keeps writing meanwhile; the
 * connection gauge comes back to zero. Then the configured limits and the FAILED state, one case each.
 *
 * <p>A failing connection names its seed; {@code -Dsluice.boltfuzz.seed=N} replays just that connection.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class BoltFuzzTest {
    static final String SEED = "sluice.boltfuzz.seed";
    static final String CONFIG = """
            batch: {max_rows: 5000, max_wait: 5ms}
            bolt: {max_message: 64k, max_string: 16k, max_depth: 16}
            """;
    static final int CONNECTIONS = 600;
    static final int CONCURRENT = 6;
    /** The longest a connection may stay silent while it owes an answer or its close. */
    static final int READ_TIMEOUT_MS = 10_000;

    TestServer s;

    @BeforeAll
    void start() {
        s = TestServer.start(CONFIG, true);
    }

    @AfterAll
    void stop() {
        if (s != null) {
            s.close();
        }
    }

    // ---- 1 and 2: fuzzing, with a well-behaved client beside it ----

    @Test
    @Timeout(60)
    void survivesFuzzedConnectionsWhileAWellBehavedClientWrites() throws Exception {
        Long replay = Long.getLong(SEED);
        long master = ThreadLocalRandom.current().nextLong();
        Random seeds = new Random(master);
        List<Long> connectionSeeds = new ArrayList<>();
        for (int i = 0; i < (replay != null ? 1 : CONNECTIONS); i++) {
            connectionSeeds.add(replay != null ? replay : seeds.nextLong());
        }
        AtomicBoolean fuzzing = new AtomicBoolean(true);
        AtomicInteger goodWrites = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(CONCURRENT + 1, Thread.ofPlatform().name("boltfuzz-", 1)
                .factory());
        try (Driver driver = GraphDatabase.driver("bolt://" + s.bolt, AuthTokens.basic("neo4j", TestServer.PASSWORD))) {
            Future<?> good = pool.submit(() -> {
                do {
                    wellBehaved(driver, goodWrites.incrementAndGet());
                } while (fuzzing.get());
                return null;
            });
            List<Future<?>> fuzz = new ArrayList<>();
            for (long seed : connectionSeeds) {
                fuzz.add(pool.submit(() -> {
                    fuzzConnection(seed);
                    return null;
                }));
            }
            try {
                for (Future<?> f : fuzz) {
                    f.get();
                }
            } catch (java.util.concurrent.ExecutionException e) {
                throw new AssertionError("master seed " + master + ": " + e.getCause().getMessage(), e.getCause());
            } finally {
                fuzzing.set(false);
            }
            good.get();
            assertThat(goodWrites.get()).isPositive();
            wellBehaved(driver, goodWrites.incrementAndGet()); // after the fuzzing too
            try (BoltWire w = loggedIn(5, 8)) {
                w.send(run("MATCH (n:BoltFuzzGood) RETURN count(n) AS n"), pullAll());
                assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
                Struct record = w.receive();
                assertThat(record.fields().getFirst()).isEqualTo(List.of((long) goodWrites.get()));
                assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(s.get("/metrics").statusCode()).isEqualTo(200);
        assertThat(boltConnectionsEventually(0)).as("sluice_bolt_connections once every connection is closed")
                .isZero();
    }

    // ---- 3: limits ----

    @Test
    void aMessageOverMaxMessageIsRefusedAndTheConnectionClosed() throws IOException {
        List<Object> big = new ArrayList<>();
        for (int i = 0; i < 40_000; i++) {
            big.add(1000L); // 3 bytes each: 120 KB in all, over bolt.max_message 64k
        }
        try (BoltWire w = loggedIn(5, 4)) {
            w.send(run("RETURN size($x) AS n", map("x", big), Map.of()));
            Struct f = w.receive();
            assertThat(f.tag()).isEqualTo((byte) FAILURE);
            assertThat(meta(f)).containsEntry("code", "Neo.ClientError.Request.Invalid");
            assertThat((String) meta(f).get("message")).contains("larger than the limit of 65536 bytes");
            assertThat(w.isClosed()).isTrue();
        }
    }

    @Test
    void aStringOverMaxStringIsRefusedAndTheConnectionClosed() throws IOException {
        try (BoltWire w = loggedIn(5, 4)) { // just under the limit is fine
            w.send(run("RETURN size($s) AS n", map("s", "a".repeat(16_000)), Map.of()), pullAll());
            assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
            assertThat(w.receive().fields().getFirst()).isEqualTo(List.of(16_000L));
            assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
            w.send(run("RETURN size($s) AS n", map("s", "a".repeat(20_000)), Map.of()), pullAll());
            Struct f = w.receive();
            assertThat(f.tag()).isEqualTo((byte) FAILURE);
            assertThat(meta(f)).containsEntry("code", "Neo.ClientError.Request.Invalid");
            assertThat((String) meta(f).get("message"))
                    .contains("a string or byte array of 20000 bytes, over the limit of 16384");
            assertThat(w.isClosed()).isTrue();
        }
    }

    @Test
    void nestingDeeperThanMaxDepthIsRefusedAndTheConnectionClosed() throws IOException {
        Object deep = 1L;
        for (int i = 0; i < 20; i++) {
            deep = List.of(deep);
        }
        try (BoltWire w = loggedIn(5, 8)) {
            w.send(run("RETURN $d AS d", map("d", deep), Map.of()), pullAll());
            Struct f = w.receive();
            assertThat(f.tag()).isEqualTo((byte) FAILURE);
            assertThat(meta(f)).containsEntry("neo4j_code", "Neo.ClientError.Request.Invalid")
                    .containsEntry("gql_status", "08N06");
            assertThat((String) meta(f).get("message")).contains("values nested deeper than 16");
            assertThat(w.isClosed()).isTrue();
        }
    }

    // ---- 4: the FAILED state ----

    @Test
    void afterAFailureEverythingIsIgnoredUntilResetAt54() throws IOException {
        failedUntilReset(4);
    }

    @Test
    void afterAFailureEverythingIsIgnoredUntilResetAt58() throws IOException {
        failedUntilReset(8);
    }

    private void failedUntilReset(int minor) throws IOException {
        try (BoltWire w = loggedIn(5, minor)) {
            w.send(run("RETURN 1 +"));
            assertSyntaxError(w.receive(), minor);
            w.send(pullAll(), run("RETURN 1 AS x"), pullAll(), begin(Map.of()), commit());
            for (int i = 0; i < 5; i++) {
                assertThat(w.receive().tag()).as("answer %d after the FAILURE", i).isEqualTo((byte) IGNORED);
            }
            w.send(reset());
            assertThat(w.receive()).isEqualTo(Struct.of(SUCCESS, Map.of()));
            assertReturns(w, "RETURN 1 AS x", 1L);

            w.send(begin(Map.of()), run("RETURN 1 +"), pullAll(), commit());
            assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
            assertSyntaxError(w.receive(), minor);
            assertThat(w.receive().tag()).isEqualTo((byte) IGNORED);
            assertThat(w.receive().tag()).isEqualTo((byte) IGNORED);
            w.send(reset());
            assertThat(w.receive()).isEqualTo(Struct.of(SUCCESS, Map.of()));
            assertReturns(w, "RETURN 2 AS x", 2L);
        }
    }

    private static void assertSyntaxError(Struct f, int minor) {
        assertThat(f.tag()).isEqualTo((byte) FAILURE);
        Map<String, Object> m = meta(f);
        if (minor >= 7) {
            assertThat(m).containsEntry("neo4j_code", "Neo.ClientError.Statement.SyntaxError")
                    .containsEntry("gql_status", "42001").containsKeys("message", "description")
                    .doesNotContainKey("code");
        } else {
            assertThat(m).containsEntry("code", "Neo.ClientError.Statement.SyntaxError").containsKey("message")
                    .doesNotContainKeys("neo4j_code", "gql_status");
        }
    }

    private static void assertReturns(BoltWire w, String query, long value) throws IOException {
        w.send(run(query), pullAll());
        Struct started = w.receive();
        assertThat(started.tag()).isEqualTo((byte) SUCCESS);
        assertThat(meta(started)).containsEntry("fields", List.of("x"));
        assertThat(w.receive()).isEqualTo(Struct.of(RECORD, List.of(value)));
        assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
    }

    // ---- what the fuzzing found ----

    /**
     * Found by the fuzzing (seed 4989396955233982546): a parameter that is a temporal structure with too few
     * fields, or a null field, threw IndexOutOfBoundsException or NullPointerException out of
     * WireValues.struct; the connection's worker died and the socket closed without any FAILURE (and the
     * replies buffered before it were lost). Now a FAILURE Request.Invalid in the FAILED state, RESET recovers.
     */
    @Test
    void aMalformedTemporalParameterIsAFailureNotADroppedConnection() throws IOException {
        try (BoltWire w = loggedIn(5, 8)) {
            for (Struct bad : List.of(Struct.of(0x49), Struct.of(0x69, 1L), Struct.of(0x44, (Object) null),
                    Struct.of(0x69, 1L, 0L, null), Struct.of(0x45, 1L, null, 0L, 0L))) {
                w.send(run("RETURN $t AS t", map("t", bad), Map.of()), pullAll());
                Struct f = w.receive();
                assertThat(f.tag()).as("the answer to %s", bad).isEqualTo((byte) FAILURE);
                assertThat(meta(f)).containsEntry("neo4j_code", "Neo.ClientError.Request.Invalid");
                assertThat((String) meta(f).get("message")).contains(String.format("structure 0x%02X", bad.tag()));
                assertThat(w.receive().tag()).isEqualTo((byte) IGNORED);
                w.send(reset());
                assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
                assertReturns(w, "RETURN 3 AS x", 3L);
            }
        }
    }

    /**
     * Found by the fuzzing (HELLO, LOGON, RESET pipelined at 5.8: HELLO and LOGON IGNORED, RESET SUCCESS, then a
     * LOGON SUCCESS): RESET before HELLO answers SUCCESS and moves the connection to the AUTHENTICATION state
     * (BoltConnection.reset: caller null and Bolt 5.1+), so a client logs on and runs without ever sending HELLO.
     * The Bolt state machine accepts only HELLO in its first state: FAILURE, then closed (fixed; a RESET queued
     * behind HELLO and LOGON no longer interrupts the login either).
     */
    @Test
    void resetBeforeHelloDoesNotSkipHello() throws IOException {
        try (BoltWire w = BoltWire.connect(s.bolt.host(), s.bolt.port())) {
            assertThat(w.handshake(version(5, 8, 0))).containsExactly(0, 0, 8, 5);
            w.send(reset());
            assertThat(w.receive().tag()).isEqualTo((byte) FAILURE);
            assertThat(w.isClosed()).isTrue();
        }
    }

    /** One auto-commit write and its read-back through the official driver. */
    private static void wellBehaved(Driver driver, int i) {
        try (Session session = driver.session()) {
            session.run("CREATE (:BoltFuzzGood {i: $i})", Map.of("i", i)).consume();
            long seen = session.run("MATCH (n:BoltFuzzGood {i: $i}) RETURN count(n) AS n", Map.of("i", i)).single()
                    .get("n").asLong();
            assertThat(seen).as("the well-behaved client's write %d", i).isEqualTo(1);
        }
    }

    /** One connection of the kind its seed picks; an assertion naming the seed when the server misbehaves. */
    private void fuzzConnection(long seed) {
        Random r = new Random(seed);
        int kind = r.nextInt(20);
        String what = kind < 3 ? "random handshake" : kind < 11 ? "damaged bytes" : "request sequence";
        try {
            if (kind < 3) {
                randomHandshake(r);
            } else if (kind < 11) {
                damagedBytes(r);
            } else {
                new Sequence(r).run();
            }
        } catch (Exception | AssertionError e) {
            throw new AssertionError("connection seed " + seed + " (" + what + "; replay: -D" + SEED + "=" + seed
                    + "): " + e, e);
        }
    }

    private Socket open() throws IOException {
        Socket socket = new Socket(s.bolt.host(), s.bolt.port());
        socket.setSoTimeout(READ_TIMEOUT_MS);
        socket.setTcpNoDelay(true);
        return socket;
    }

    /** Random opening bytes: whatever comes back is a handshake answer and, after it, well-framed messages. */
    private void randomHandshake(Random r) throws IOException {
        byte[] sent = BoltFuzzInputs.randomHandshake(r);
        byte[] got = sendAndReadToEnd(sent);
        Replies.afterHandshake(sent, got);
    }

    /** A good handshake (a random version), maybe HELLO and LOGON, then damaged bytes. */
    private void damagedBytes(Random r) throws IOException {
        int[] v = BoltFuzzInputs.SPOKEN[r.nextInt(BoltFuzzInputs.SPOKEN.length)];
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(BoltFuzzInputs.classicHandshake(v[0], v[1]));
        if (r.nextBoolean()) {
            Map<String, Object> auth = v[0] == 4 || v[1] == 0 ? BoltFuzzInputs.auth(r) : Map.of();
            b.writeBytes(chunked(BoltFuzzInputs.pack(hello(auth))));
            if (v[0] == 5 && v[1] > 0) {
                b.writeBytes(chunked(BoltFuzzInputs.pack(logon("neo4j", TestServer.PASSWORD))));
            }
        }
        b.writeBytes(BoltFuzzInputs.garbage(r));
        byte[] sent = b.toByteArray();
        byte[] got = sendAndReadToEnd(sent);
        assertThat(got.length).as("the handshake answer").isGreaterThanOrEqualTo(4);
        assertThat(HexFormat.of().formatHex(got, 0, 4)).isEqualTo(String.format("0000%02x%02x", v[1], v[0]));
        Replies.messages(got, 4, v[0] * 10 + v[1]);
    }

    /**
     * Sends {@code bytes}, half-closes, and reads until the server closes: a server that keeps the connection (or
     * stays silent) past the read timeout fails. A reset counts as a close.
     */
    private byte[] sendAndReadToEnd(byte[] bytes) throws IOException {
        try (Socket socket = open()) {
            try {
                socket.getOutputStream().write(bytes);
                socket.getOutputStream().flush();
                socket.shutdownOutput();
            } catch (SocketException closedBeforeAllWasSent) {
                // the server may close on the first bad bytes; what it answered is still to be read
            }
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            byte[] buf = new byte[8192];
            try {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    got.write(buf, 0, n);
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("still open and sending after 20 s");
                    }
                }
            } catch (SocketTimeoutException e) {
                throw new AssertionError("no close within " + READ_TIMEOUT_MS + " ms of the client's half-close; sent "
                        + Replies.hex(bytes) + ", got " + Replies.hex(got.toByteArray()));
            } catch (SocketException reset) {
                // closed with a reset: the server did not read all that was sent (it gave up on it)
            }
            return got.toByteArray();
        }
    }

    private BoltWire loggedIn(int major, int minor) throws IOException {
        BoltWire w = BoltWire.connect(s.bolt.host(), s.bolt.port());
        if (minor >= 7) {
            w.manifestHandshake(major, minor);
        } else {
            assertThat(w.handshake(version(major, minor, 0))).containsExactly(0, 0, minor, major);
        }
        w.send(hello(Map.of()), logon("neo4j", TestServer.PASSWORD));
        assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
        assertThat(w.receive().tag()).isEqualTo((byte) SUCCESS);
        return w;
    }

    private long boltConnectionsEventually(long expected) throws InterruptedException {
        Pattern gauge = Pattern.compile("(?m)^sluice_bolt_connections(?:\\{[^}]*\\})? (\\S+)$");
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        long seen;
        do {
            Matcher m = gauge.matcher(s.get("/metrics").body());
            assertThat(m.find()).as("sluice_bolt_connections in /metrics").isTrue();
            seen = (long) Double.parseDouble(m.group(1));
            if (seen == expected) {
                return seen;
            }
            Thread.sleep(50); // a poll of the gauge, bounded by the deadline
        } while (System.nanoTime() < deadline);
        return seen;
    }

    /**
     * A random sequence of well-formed requests after a good handshake, sent in pipelined batches; each request is
     * answered in order (RECORDs only for PULL, then one SUCCESS, IGNORED or FAILURE) until the server closes,
     * which it does only after a FAILURE, or after GOODBYE. RESET is answered SUCCESS; after a FAILURE every other
     * request is IGNORED until RESET; IGNORED otherwise only when a RESET follows in the same batch; a FAILURE
     * before authentication closes the connection.
     */
    private final class Sequence {
        private final Random r;
        private final int[] v;
        private boolean failed;
        private boolean authenticated;
        private boolean greeted;
        private boolean lastWasFailure;
        private final StringBuilder transcript = new StringBuilder();

        Sequence(Random r) {
            this.r = r;
            this.v = BoltFuzzInputs.SPOKEN[r.nextInt(BoltFuzzInputs.SPOKEN.length)];
        }

        void run() throws IOException {
            List<Struct> all = new ArrayList<>();
            if (r.nextInt(8) > 0) {
                boolean helloAuth = v[0] == 4 || v[1] == 0;
                all.add(hello(helloAuth ? BoltFuzzInputs.auth(r) : Map.of()));
                if (!helloAuth) {
                    all.add(logon("neo4j", r.nextInt(8) == 0 ? "wrong" : TestServer.PASSWORD));
                }
            }
            for (int n = 1 + r.nextInt(15); n > 0; n--) {
                all.add(BoltFuzzInputs.message(r));
            }
            try (BoltWire w = BoltWire.connect(s.bolt.host(), s.bolt.port())) {
                if (v[1] >= 7 && r.nextBoolean()) {
                    w.manifestHandshake(v[0], v[1]);
                } else {
                    assertThat(w.handshake(version(v[0], v[1], 0))).containsExactly(0, 0, v[1], v[0]);
                }
                int at = 0;
                while (at < all.size()) {
                    List<Struct> batch = all.subList(at, Math.min(all.size(), at + 1 + r.nextInt(4)));
                    at += batch.size();
                    w.send(batch.toArray(Struct[]::new));
                    if (!answers(w, batch)) {
                        assertThat(w.isClosed()).as("closed after %s", transcript).isTrue();
                        return;
                    }
                }
                Struct last;
                try {
                    w.send(reset()); // still answering, in order
                    last = w.receive();
                } catch (java.io.EOFException | SocketException closed) {
                    // a protocol violation's FAILURE closes the connection, as Neo4j's does
                    assertThat(lastWasFailure).as("closed only right after a FAILURE").isTrue();
                    return;
                }
                transcript.append("RESET -> ").append(name(last));
                assertThat(last.tag()).as("the last RESET's answer").isEqualTo((byte) SUCCESS);
            } catch (AssertionError | IOException e) {
                throw new AssertionError("Bolt " + v[0] + "." + v[1] + ", " + transcript + ": " + e.getMessage(), e);
            }
        }

        /** Reads and checks the answers to {@code batch}; false once the server has closed (or must have). */
        private boolean answers(BoltWire w, List<Struct> batch) throws IOException {
            for (int i = 0; i < batch.size(); i++) {
                Struct m = batch.get(i);
                transcript.append(name(m)).append(' ');
                if (m.tag() == GOODBYE && m.fields().isEmpty()) { // a GOODBYE with fields is malformed: a FAILURE
                    transcript.append("-> (closes) ");
                    return false;
                }
                List<Struct> reply;
                try {
                    reply = w.receiveSummary();
                } catch (java.io.EOFException | SocketException closed) {
                    transcript.append("-> (closed) ");
                    assertThat(lastWasFailure).as("closed only right after a FAILURE").isTrue();
                    return false;
                }
                Struct summary = reply.getLast();
                transcript.append("-> ").append(reply.size() > 1 ? (reply.size() - 1) + " RECORD, " : "")
                        .append(name(summary)).append(summary.tag() == FAILURE ? " " + meta(summary).get("message")
                                : "").append("; ");
                for (Struct x : reply) {
                    Replies.check(x, v[0] * 10 + v[1]);
                }
                assertThat(reply.size() == 1 || m.tag() == PULL).as("RECORDs only for PULL").isTrue();
                boolean resetFollows = batch.subList(i + 1, batch.size()).stream().anyMatch(x -> x.tag() == RESET);
                if (m.tag() == RESET && !greeted) { // only HELLO may come first: FAILURE, closed
                    assertThat(summary.tag()).as("RESET before HELLO").isEqualTo((byte) FAILURE);
                } else if (m.tag() == RESET) {
                    assertThat(summary.tag()).as("RESET's answer").isEqualTo((byte) SUCCESS);
                    failed = false;
                } else if (failed) {
                    assertThat(summary.tag()).as("after a FAILURE, until RESET").isEqualTo((byte) IGNORED);
                } else if (summary.tag() == IGNORED) {
                    assertThat(resetFollows).as("IGNORED without a FAILURE or a RESET after it").isTrue();
                }
                if (summary.tag() == FAILURE) {
                    failed = true;
                    if (!authenticated) {
                        assertThat(w.isClosed()).as("closed after a FAILURE before authentication").isTrue();
                        transcript.append("(closed) ");
                        return false;
                    }
                }
                if (summary.tag() == SUCCESS) {
                    greeted |= m.tag() == HELLO;
                    boolean oldHello = m.tag() == HELLO && (v[0] == 4 || v[1] == 0);
                    authenticated |= m.tag() == LOGON || oldHello;
                    authenticated &= m.tag() != LOGOFF;
                }
                lastWasFailure = summary.tag() == FAILURE;
            }
            return true;
        }
    }

    /** Checks of what the server wrote: framing, the reply messages' shapes. */
    static final class Replies {
        private Replies() {}

        static String hex(byte[] b) {
            String h = HexFormat.ofDelimiter(" ").formatHex(b, 0, Math.min(b.length, 400));
            return b.length > 400 ? h + " ... (" + b.length + " bytes)" : h;
        }

        /**
         * {@code got} after the handshake bytes {@code sent}: nothing (not Bolt, or not a whole handshake), no
         * version ({@code 00 00 00 00}, then nothing), the manifest, or a version sluice speaks, and then messages.
         */
        static void afterHandshake(byte[] sent, byte[] got) {
            String context = "sent " + hex(sent) + ", got " + hex(got);
            if (got.length == 0) {
                return;
            }
            if (new String(sent, 0, Math.min(4, sent.length), StandardCharsets.ISO_8859_1).equals("GET ")) {
                // HTTP on the Bolt port: a WebSocket upgrade, or a plain GET answered with Neo4j's discovery body
                // and closed, or a malformed request answered 4xx and closed (Netty's HTTP codec)
                assertThat(new String(got, StandardCharsets.ISO_8859_1)).as("an HTTP answer; %s", context)
                        .matches("(?s)HTTP/1\\.1 (200 OK|4\\d\\d [^\\r]*)\\r\\n.*");
                return;
            }
            assertThat(java.util.Arrays.equals(sent, 0, 4, BoltWire.MAGIC, 0, 4)).as("an answer without the magic; %s",
                    context).isTrue();
            assertThat(got.length).as("a whole answer; %s", context).isGreaterThanOrEqualTo(4);
            int version = (got[3] & 0xFF) * 10 + (got[2] & 0xFF);
            if (version == 0 && got[0] == 0 && got[1] == 0) {
                assertThat(got.length).as("nothing after 00 00 00 00; %s", context).isEqualTo(4);
                return;
            }
            int at = 4;
            if (HexFormat.of().formatHex(got, 0, 4).equals("000001ff")) {
                int[] pos = {4};
                long ranges = varint(got, pos, context);
                pos[0] += (int) (4 * ranges);
                varint(got, pos, context);
                at = pos[0];
                version = 0;
            } else {
                int v = version;
                assertThat(java.util.Arrays.stream(BoltFuzzInputs.SPOKEN).anyMatch(x -> x[0] * 10 + x[1] == v))
                        .as("a version sluice speaks; %s", context).isTrue();
            }
            try {
                messages(got, at, version);
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; " + context, e);
            }
        }

        private static long varint(byte[] b, int[] pos, String context) {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                assertThat(pos[0]).as("a whole manifest; %s", context).isLessThan(b.length);
                int x = b[pos[0]++] & 0xFF;
                v |= (long) (x & 0x7F) << shift;
                if ((x & 0x80) == 0) {
                    return v;
                }
            }
            throw new AssertionError("a varint of more than 64 bits; " + context);
        }

        /** Chunked messages from {@code from} to the end, each a reply of Bolt {@code version} (54: 5.4; 0: any). */
        static List<Struct> messages(byte[] got, int from, int version) {
            List<Struct> all = new ArrayList<>();
            ByteArrayOutputStream message = null;
            int at = from;
            while (at < got.length) {
                assertThat(at + 2).as("a chunk header cut off at byte %d of %s", at, hex(got))
                        .isLessThanOrEqualTo(got.length);
                int n = (got[at] & 0xFF) << 8 | (got[at + 1] & 0xFF);
                at += 2;
                if (n == 0) {
                    if (message != null) {
                        all.add(unpack(message.toByteArray(), version));
                        message = null;
                    }
                    continue;
                }
                assertThat(at + n).as("a chunk cut off at byte %d of %s", at, hex(got)).isLessThanOrEqualTo(got.length);
                if (message == null) {
                    message = new ByteArrayOutputStream();
                }
                message.write(got, at, n);
                at += n;
            }
            assertThat(message).as("a message without its end marker in %s", hex(got)).isNull();
            return all;
        }

        private static Struct unpack(byte[] bytes, int version) {
            try {
                PackStream.Unpacker u = new PackStream.Unpacker(bytes, PackStream.Limits.DEFAULT);
                Object v = u.unpack();
                assertThat(u.done()).as("one value in the message %s", hex(bytes)).isTrue();
                assertThat(v).as("a structure").isInstanceOf(Struct.class);
                check((Struct) v, version);
                return (Struct) v;
            } catch (PackStream.PackStreamException e) {
                throw new AssertionError("a reply that is not PackStream: " + hex(bytes) + ": " + e.getMessage(), e);
            }
        }

        /** A SUCCESS {map}, RECORD [list], IGNORED or FAILURE {code(s), message} as Bolt {@code version} has it. */
        static void check(Struct m, int version) {
            switch (m.tag()) {
                case SUCCESS -> assertThat(m.fields()).as("SUCCESS").singleElement().isInstanceOf(Map.class);
                case RECORD -> assertThat(m.fields()).as("RECORD").singleElement().isInstanceOf(List.class);
                case IGNORED -> assertThat(m.fields()).as("IGNORED").isEmpty();
                case FAILURE -> {
                    assertThat(m.fields()).as("FAILURE").singleElement().isInstanceOf(Map.class);
                    Map<String, Object> f = meta(m);
                    assertThat(f.get("message")).as("FAILURE message").isInstanceOf(String.class);
                    String code = (String) (version >= 57 || version == 0 && f.containsKey("neo4j_code")
                            ? f.get("neo4j_code") : f.get("code"));
                    assertThat(code).as("FAILURE code in %s", f).startsWith("Neo.");
                    if (version >= 57) {
                        assertThat((String) f.get("gql_status")).as("gql_status in %s", f).hasSize(5);
                    }
                }
                default -> throw new AssertionError("not a reply: " + m);
            }
        }
    }

    static String name(Struct m) {
        return switch (m.tag()) {
            case HELLO -> "HELLO";
            case GOODBYE -> "GOODBYE";
            case RESET -> "RESET";
            case RUN -> "RUN" + m.fields();
            case BEGIN -> "BEGIN";
            case COMMIT -> "COMMIT";
            case ROLLBACK -> "ROLLBACK";
            case DISCARD -> "DISCARD" + m.fields();
            case PULL -> "PULL" + m.fields();
            case TELEMETRY -> "TELEMETRY";
            case ROUTE -> "ROUTE";
            case LOGON -> "LOGON";
            case LOGOFF -> "LOGOFF";
            case SUCCESS -> "SUCCESS";
            case RECORD -> "RECORD";
            case IGNORED -> "IGNORED";
            case FAILURE -> "FAILURE";
            default -> String.format("0x%02X", m.tag());
        };
    }
}
