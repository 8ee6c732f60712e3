package io.sluice.support;

import io.sluice.bolt.PackStream;
import io.sluice.bolt.PackStream.Struct;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PushbackInputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A raw Bolt client for tests: one blocking socket with a read timeout, bytes and messages exactly as written, so a
 * test can say what a server answers to anything, well-formed or not. Messages are {@link Struct}s packed with
 * sluice's {@link PackStream} and chunked (2-byte big-endian lengths, at most 65,535 bytes a chunk, {@code 00 00}
 * ends a message); the factories below build the 5.x request messages. Thread-confined: one test thread's.
 */
public final class BoltWire implements AutoCloseable {
    public static final byte[] MAGIC = {0x60, 0x60, (byte) 0xB0, 0x17};
    /** The manifest-style proposal (Bolt 5.7+ servers answer it with a list of version ranges). */
    public static final int[] MANIFEST = {0x00, 0x00, 0x01, 0xFF};

    public static final int HELLO = 0x01, GOODBYE = 0x02, RESET = 0x0F, RUN = 0x10, BEGIN = 0x11, COMMIT = 0x12,
            ROLLBACK = 0x13, DISCARD = 0x2F, PULL = 0x3F, TELEMETRY = 0x54, ROUTE = 0x66, LOGON = 0x6A,
            LOGOFF = 0x6B, SUCCESS = 0x70, RECORD = 0x71, IGNORED = 0x7E, FAILURE = 0x7F;

    private final Socket socket;
    private final PushbackInputStream raw;
    private final DataInputStream in;
    private final OutputStream out;
    private int noops;

    private final AutoCloseable closer;

    private BoltWire(Socket socket) throws IOException {
        this(socket, socket.getInputStream(), socket.getOutputStream(), socket);
    }

    private BoltWire(Socket socket, InputStream in, OutputStream out, AutoCloseable closer) {
        this.socket = socket;
        this.raw = new PushbackInputStream(in, 1);
        this.in = new DataInputStream(raw);
        this.out = out;
        this.closer = closer;
    }

    /**
     * Over another transport (Bolt over WebSocket: {@link WebSocketBolt}): {@code in} must time out by itself
     * (a {@link SocketTimeoutException} after at most 10 s); {@link #isClosed} is not available.
     */
    static BoltWire over(InputStream in, OutputStream out, AutoCloseable closer) {
        return new BoltWire(null, in, out, closer);
    }

    /** Connects with a 10 s read timeout: a test waits at most that long for any byte. */
    public static BoltWire connect(String host, int port) throws IOException {
        Socket s = new Socket(host, port);
        s.setSoTimeout(10_000);
        s.setTcpNoDelay(true);
        return new BoltWire(s);
    }

    /** A proposal {@code [00, range, minor, major]}: {@code major.minor} and the {@code range} minors below it. */
    public static int[] version(int major, int minor, int range) {
        return new int[] {0, range, minor, major};
    }

    /** Sends the magic and up to four proposals (padded with zeros); returns the server's 4-byte answer. */
    public byte[] handshake(int[]... proposals) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(MAGIC);
        for (int i = 0; i < 16; i++) {
            b.write(i / 4 < proposals.length ? proposals[i / 4][i % 4] : 0);
        }
        sendRaw(b.toByteArray());
        return readBytes(4);
    }

    /** A manifest reply: the raw bytes after the 4-byte answer, the offered ranges ({@link #version} form), caps. */
    public record Manifest(byte[] bytes, List<int[]> ranges, long capabilities) {
        public String rangesText() {
            return ranges.stream().map(r -> r[3] + "." + r[2] + (r[1] == 0 ? "" : "-" + r[3] + "." + (r[2] - r[1])))
                    .collect(Collectors.joining(", "));
        }
    }

    /**
     * The manifest handshake as current drivers do it: proposals {@code 00 00 01 FF | 5.8-5.0 | 4.4-4.2 | 3.0}; on
     * a manifest answer reads the offered ranges and capabilities and sends {@code major.minor} with capabilities
     * 0. Fails if the server answers anything else.
     */
    public Manifest manifestHandshake(int major, int minor) throws IOException {
        byte[] answer = handshake(MANIFEST, version(5, 8, 8), version(4, 4, 2), version(3, 0, 0));
        if (!Arrays.equals(answer, new byte[] {0, 0, 1, (byte) 0xFF})) {
            throw new IOException("not a manifest answer: " + HexFormat.ofDelimiter(" ").formatHex(answer));
        }
        ByteArrayOutputStream seen = new ByteArrayOutputStream();
        long count = varint(seen);
        List<int[]> ranges = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            byte[] r = readBytes(4);
            seen.writeBytes(r);
            ranges.add(new int[] {r[0] & 0xFF, r[1] & 0xFF, r[2] & 0xFF, r[3] & 0xFF});
        }
        long caps = varint(seen);
        sendRaw(new byte[] {0, 0, (byte) minor, (byte) major, 0});
        return new Manifest(seen.toByteArray(), ranges, caps);
    }

    private long varint(ByteArrayOutputStream seen) throws IOException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.readUnsignedByte();
            seen.write(b);
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new IOException("a varint longer than 64 bits");
    }

    /** Packs and chunks each message and writes them all at once (pipelined). */
    public void send(Struct... messages) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (Struct m : messages) {
            b.writeBytes(chunked(new PackStream.Packer().pack(m).bytes()));
        }
        sendRaw(b.toByteArray());
    }

    /** A message's bytes in chunks of at most 65,535 bytes, then the {@code 00 00} end marker. */
    public static byte[] chunked(byte[] message) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int at = 0; at < message.length; at += 0xFFFF) {
            int n = Math.min(0xFFFF, message.length - at);
            b.write(n >>> 8);
            b.write(n);
            b.write(message, at, n);
        }
        b.write(0);
        b.write(0);
        return b.toByteArray();
    }

    /** Writes {@code bytes} as they are (a handshake, a malformed message ...). */
    public void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** The next message, de-chunked; empty chunks before it are NOOPs, counted in {@link #noops()}. */
    public Struct receive() throws IOException {
        ByteArrayOutputStream message = new ByteArrayOutputStream();
        for (int n; (n = in.readUnsignedShort()) != 0 || message.size() == 0; ) {
            if (n == 0) {
                noops++;
            }
            message.writeBytes(readBytes(n));
        }
        try {
            PackStream.Unpacker u = new PackStream.Unpacker(message.toByteArray(), PackStream.Limits.DEFAULT);
            if (u.unpack() instanceof Struct s && u.done()) {
                return s;
            }
            throw new IOException("not one structure: " + HexFormat.of().formatHex(message.toByteArray()));
        } catch (PackStream.PackStreamException e) {
            throw new IOException(e);
        }
    }

    /** Receives until a message that is not a RECORD; returns them all, that one last. */
    public List<Struct> receiveSummary() throws IOException {
        List<Struct> all = new ArrayList<>();
        do {
            all.add(receive());
        } while (all.getLast().tag() == RECORD);
        return all;
    }

    /** The NOOP chunks skipped so far. */
    public int noops() {
        return noops;
    }

    /** The next {@code n} bytes as they are. */
    public byte[] readBytes(int n) throws IOException {
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    /**
     * Whether the server has closed the connection: end of stream or a reset within the read timeout. Nothing
     * read is lost (a byte that arrives instead is pushed back); a timeout means open.
     */
    public boolean isClosed() throws IOException {
        return isClosed(Duration.ofMillis(socket == null ? 10_000 : socket.getSoTimeout()));
    }

    /** {@link #isClosed()}, waiting at most {@code wait}. */
    public boolean isClosed(Duration wait) throws IOException {
        if (socket == null) {
            throw new UnsupportedOperationException("not over a socket");
        }
        int timeout = socket.getSoTimeout();
        socket.setSoTimeout((int) Math.max(1, wait.toMillis()));
        try {
            int b = raw.read();
            if (b < 0) {
                return true;
            }
            raw.unread(b);
            return false;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (java.net.SocketException e) {
            return true;
        } finally {
            socket.setSoTimeout(timeout);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            closer.close();
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException(e);
        }
    }

    /** 5.x requests. HELLO {user_agent, bolt_agent} plus {@code extra} (e.g. routing, notifications_minimum_severity). */
    public static Struct hello(Map<String, ?> extra) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("user_agent", "sluice-boltwire/1");
        m.put("bolt_agent", Map.of("product", "sluice-boltwire/1"));
        m.putAll(extra);
        return Struct.of(HELLO, m);
    }

    public static Struct logon(String principal, String credentials) {
        return Struct.of(LOGON, map("scheme", "basic", "principal", principal, "credentials", credentials));
    }

    public static Struct run(String query, Map<String, ?> parameters, Map<String, ?> extra) {
        return Struct.of(RUN, query, parameters, extra);
    }

    public static Struct run(String query) {
        return run(query, Map.of(), Map.of());
    }

    /** PULL {n} ({@code n} -1 for all), with {@code qid} unless it is -1 (the last query); DISCARD alike. */
    public static Struct pull(long n, long qid) {
        return Struct.of(PULL, qid == -1 ? map("n", n) : map("n", n, "qid", qid));
    }

    public static Struct pullAll() {
        return pull(-1, -1);
    }

    public static Struct discard(long n, long qid) {
        return new Struct((byte) DISCARD, pull(n, qid).fields());
    }

    /** BEGIN with {@code extra} (bookmarks, tx_timeout, tx_metadata, mode, db, imp_user, notifications...). */
    public static Struct begin(Map<String, ?> extra) {
        return Struct.of(BEGIN, extra);
    }

    public static Struct commit() {
        return Struct.of(COMMIT);
    }

    public static Struct rollback() {
        return Struct.of(ROLLBACK);
    }

    public static Struct reset() {
        return Struct.of(RESET);
    }

    public static Struct goodbye() {
        return Struct.of(GOODBYE);
    }

    /** ROUTE {routing} [bookmarks] {db, imp_user}. */
    public static Struct route(Map<String, ?> routing, List<String> bookmarks, Map<String, ?> extra) {
        return Struct.of(ROUTE, routing, bookmarks, extra);
    }

    /** TELEMETRY {@code api}: 0 managed transaction, 1 explicit transaction, 2 auto-commit, 3 executable query. */
    public static Struct telemetry(int api) {
        return Struct.of(TELEMETRY, (long) api);
    }

    /** A map of alternating keys and values, in that order (Map.of has no order and no nulls). */
    public static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }

    /** The metadata map of a SUCCESS or FAILURE (an IGNORED has none). */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> meta(Struct message) {
        return (Map<String, Object>) message.fields().getFirst();
    }
}
