package io.sluice.support;

import io.sluice.bolt.PackStream;
import io.sluice.bolt.PackStream.Struct;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * A recording Bolt proxy for tests: listens on a free loopback port, forwards each connection to {@code target}
 * byte for byte (nothing is delayed beyond a read), and decodes both directions as it goes: the handshake
 * (classic or manifest), then every chunked message. {@link #transcript()} gives the events in the order they were
 * read, so pipelining shows: a client's second message before the server's answer to its first. Two threads per
 * connection, named {@code bolt-recorder-<n>-c} and {@code -s}, daemons; {@link #close()} closes every socket,
 * which ends them.
 */
public final class BoltRecorder implements AutoCloseable {
    /**
     * One decoded item: connection number (from 1), whether the server sent it, its text, and the number (from 1,
     * per connection and direction) of the socket read that brought its last byte: two requests with the same
     * {@code read} were written before the first one's answer could come back, i.e. pipelined, whatever the order
     * of the two directions' events (each direction is decoded on its own thread, after forwarding).
     */
    public record Event(int connection, boolean fromServer, String text, Struct message, int read) {
        @Override
        public String toString() {
            return "#" + connection + (fromServer ? " S: " : " C: ") + text;
        }
    }

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Event> events = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();

    public BoltRecorder(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().name("bolt-recorder-accept").daemon().start(this::accept);
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Every event so far, in the order read. */
    public List<Event> events() {
        return List.copyOf(events);
    }

    /** The events as lines; {@link #clear()} first to record only what follows. */
    public String transcript() {
        return events.stream().map(Event::toString).collect(Collectors.joining("\n"));
    }

    public void clear() {
        events.clear();
    }

    private void accept() {
        try {
            while (true) {
                Socket client = listener.accept();
                Socket server = new Socket(targetHost, targetPort);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                int n = connections.incrementAndGet();
                CompletableFuture<Boolean> manifest = new CompletableFuture<>();
                Thread.ofPlatform().name("bolt-recorder-" + n + "-c").daemon()
                        .start(() -> pump(n, false, client, server, manifest));
                Thread.ofPlatform().name("bolt-recorder-" + n + "-s").daemon()
                        .start(() -> pump(n, true, server, client, manifest));
            }
        } catch (IOException e) {
            // closed: no more connections
        }
    }

    /** Forwards {@code from} to {@code to}, decoding what passes; the server side says whether it chose manifest. */
    private void pump(int n, boolean fromServer, Socket from, Socket to, CompletableFuture<Boolean> manifest) {
        try (from; to) {
            Tee tee = new Tee(from.getInputStream(), to.getOutputStream());
            DataInputStream in = new DataInputStream(tee);
            if (fromServer) {
                byte[] answer = bytes(in, 4);
                boolean isManifest = answer[0] == 0 && answer[1] == 0 && answer[2] == 1 && answer[3] == (byte) 0xFF;
                String text = "handshake answer " + hex(answer);
                if (isManifest) {
                    ByteArrayOutputStream rest = new ByteArrayOutputStream();
                    long count = varint(in, rest);
                    rest.writeBytes(bytes(in, (int) (4 * count)));
                    varint(in, rest);
                    text += " manifest " + hex(rest.toByteArray());
                }
                manifest.complete(isManifest);
                record(n, true, text, null, tee.reads);
            } else {
                record(n, false, "handshake " + hex(bytes(in, 20)), null, tee.reads);
                if (manifest.join()) {
                    ByteArrayOutputStream chosen = new ByteArrayOutputStream();
                    chosen.writeBytes(bytes(in, 4));
                    varint(in, chosen);
                    record(n, false, "manifest choice " + hex(chosen.toByteArray()), null, tee.reads);
                }
            }
            while (true) {
                Struct m = message(in);
                record(n, fromServer, m == null ? "NOOP" : describe(m, fromServer), m, tee.reads);
            }
        } catch (IOException | PackStream.PackStreamException e) {
            record(n, fromServer, "closed (" + e.getClass().getSimpleName() + ")", null, -1);
        } finally {
            manifest.complete(false);
        }
    }

    private void record(int n, boolean fromServer, String text, Struct m, int read) {
        events.add(new Event(n, fromServer, text, m, read));
    }

    /** The next message, or null for a NOOP chunk. */
    private static Struct message(DataInputStream in) throws IOException, PackStream.PackStreamException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int size; (size = in.readUnsignedShort()) != 0; ) {
            b.writeBytes(bytes(in, size));
        }
        if (b.size() == 0) {
            return null;
        }
        return (Struct) new PackStream.Unpacker(b.toByteArray(), PackStream.Limits.DEFAULT).unpack();
    }

    private static byte[] bytes(DataInputStream in, int n) throws IOException {
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }

    private static long varint(DataInputStream in, ByteArrayOutputStream seen) throws IOException {
        long v = 0;
        for (int shift = 0; ; shift += 7) {
            int b = in.readUnsignedByte();
            seen.write(b);
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
    }

    /** Bytes as upper-case hex pairs separated by spaces: {@code 00 00 01 FF}. */
    public static String hex(byte[] b) {
        return HexFormat.ofDelimiter(" ").withUpperCase().formatHex(b);
    }

    private static final Map<Integer, String> REQUESTS = Map.ofEntries(Map.entry(0x01, "HELLO"),
            Map.entry(0x02, "GOODBYE"), Map.entry(0x0F, "RESET"), Map.entry(0x10, "RUN"), Map.entry(0x11, "BEGIN"),
            Map.entry(0x12, "COMMIT"), Map.entry(0x13, "ROLLBACK"), Map.entry(0x2F, "DISCARD"),
            Map.entry(0x3F, "PULL"), Map.entry(0x54, "TELEMETRY"), Map.entry(0x66, "ROUTE"),
            Map.entry(0x6A, "LOGON"), Map.entry(0x6B, "LOGOFF"));
    private static final Map<Integer, String> RESPONSES = Map.of(0x70, "SUCCESS", 0x71, "RECORD", 0x7E, "IGNORED",
            0x7F, "FAILURE");

    /** A message as text: its name, then its fields (credentials masked). */
    public static String describe(Struct m, boolean fromServer) {
        String name = (fromServer ? RESPONSES : REQUESTS).get(m.tag() & 0xFF);
        List<String> fields = new ArrayList<>();
        m.fields().forEach(f -> fields.add(value(f)));
        String text = (name == null ? String.format("0x%02X", m.tag()) : name)
                + (fields.isEmpty() ? "" : " " + String.join(" ", fields));
        return text.replaceAll("credentials: \"[^\"]*\"", "credentials: \"***\"");
    }

    /** A value as text: strings quoted, structures as {@code Struct<0xTAG>(fields)}, bytes as hex. */
    public static String value(Object v) {
        return switch (v) {
            case null -> "null";
            case String s -> '"' + s.replace("\"", "\\\"") + '"';
            case byte[] b -> "#" + HexFormat.of().formatHex(b);
            case Map<?, ?> m -> m.entrySet().stream().map(e -> e.getKey() + ": " + value(e.getValue()))
                    .collect(Collectors.joining(", ", "{", "}"));
            case List<?> l -> l.stream().map(BoltRecorder::value).collect(Collectors.joining(", ", "[", "]"));
            case Struct s -> s.fields().stream().map(BoltRecorder::value)
                    .collect(Collectors.joining(", ", String.format("Struct<0x%02X>(", s.tag()), ")"));
            default -> String.valueOf(v);
        };
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : sockets) {
            s.close();
        }
    }

    /**
     * Whatever arrives is written on to {@code copy} at once, as it arrived (one socket read, one write), so
     * decoding never holds bytes back and never splits what the peer sent in one write (the Java driver 6.2.1
     * fails on a manifest reply that arrives in pieces).
     */
    private static final class Tee extends InputStream {
        private final InputStream in;
        private final OutputStream copy;
        private final byte[] buffer = new byte[64 << 10];
        private int at;
        private int end;
        /** Socket reads so far. */
        volatile int reads;

        Tee(InputStream in, OutputStream copy) {
            this.in = in;
            this.copy = copy;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (at == end) {
                int n = in.read(buffer);
                if (n <= 0) {
                    return n;
                }
                copy.write(buffer, 0, n);
                copy.flush();
                reads++;
                at = 0;
                end = n;
            }
            int n = Math.min(len, end - at);
            System.arraycopy(buffer, at, b, off, n);
            at += n;
            return n;
        }
    }
}
