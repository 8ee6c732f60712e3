package io.sluice.bolt;

import static io.sluice.support.BoltWire.*;

import io.sluice.bolt.PackStream.Struct;
import io.sluice.support.BoltWire;
import io.sluice.support.TestServer;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * What {@link BoltFuzzTest} sends: random handshakes, random and mutated bytes, random PackStream values, and
 * well-formed Bolt requests of every kind (valid in shape, in any order, some with fields of the wrong type).
 * Every choice comes from the caller's {@link Random}, so a seed replays a connection byte for byte. Sizes stay
 * below the test server's limits (64 KiB messages, 16 KiB strings, depth 16) unless a generator means to pass them.
 */
final class BoltFuzzInputs {
    private BoltFuzzInputs() {}

    static final List<String> QUERIES = List.of("RETURN 1 AS x", "RETURN 1 +", "UNWIND range(1, 30) AS x RETURN x",
            "CREATE (:BoltFuzz {k: $k})", "RETURN 1/0 AS boom", "MATCH (n:BoltFuzz) RETURN count(n) AS n",
            "RETURN $k AS k", "CALL db.labels()", "", "MATCH (n:Nope) DELETE n");

    /** Bolt versions sluice speaks, as {major, minor}. */
    static final int[][] SPOKEN = {{5, 8}, {5, 7}, {5, 6}, {5, 4}, {5, 3}, {5, 2}, {5, 1}, {5, 0}, {4, 4}};

    // ---- handshakes ----

    /** A classic handshake proposing exactly {@code major.minor}, whose answer is that version. */
    static byte[] classicHandshake(int major, int minor) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(BoltWire.MAGIC);
        b.writeBytes(new byte[] {0, 0, (byte) minor, (byte) major});
        b.writeBytes(new byte[12]);
        return b.toByteArray();
    }

    /** Anything a broken or foreign client might open with. */
    static byte[] randomHandshake(Random r) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        switch (r.nextInt(8)) {
            case 0 -> b.writeBytes(bytes(r, r.nextInt(41)));
            case 1 -> {
                b.writeBytes(BoltWire.MAGIC);
                for (int i = 0; i < 4; i++) {
                    b.writeBytes(r.nextBoolean() ? bytes(r, 4)
                            : new byte[] {0, (byte) r.nextInt(10), (byte) r.nextInt(10), (byte) (3 + r.nextInt(4))});
                }
            }
            case 2 -> { // the manifest, then a choice of random bytes (maybe too few, maybe a long varint)
                b.writeBytes(BoltWire.MAGIC);
                b.writeBytes(new byte[] {0, 0, 1, (byte) 0xFF});
                b.writeBytes(new byte[12]);
                b.writeBytes(r.nextBoolean() ? bytes(r, r.nextInt(16))
                        : new byte[] {0, 0, (byte) r.nextInt(9), 5, (byte) 0x80, (byte) 0x80, (byte) r.nextInt(256)});
            }
            case 3 -> { // no version in common, then a second handshake that would have been fine
                b.writeBytes(BoltWire.MAGIC);
                b.writeBytes(new byte[16]);
                b.writeBytes(classicHandshake(5, 4));
            }
            case 4 -> { // not Bolt, then a Bolt handshake
                b.writeBytes(bytes(r, 20));
                b.writeBytes(classicHandshake(5, 8));
            }
            case 5 -> b.writeBytes("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            case 6 -> b.writeBytes(java.util.Arrays.copyOf(classicHandshake(5, 4), r.nextInt(20)));
            default -> b.writeBytes(new byte[] {0x16, 0x03, 0x01, 0x00, (byte) 0xA5, 0x01, 0x00, 0x00, (byte) 0xA1});
        }
        if (r.nextInt(3) == 0) {
            b.writeBytes(r.nextBoolean() ? bytes(r, r.nextInt(64)) : BoltWire.chunked(pack(hello(Map.of()))));
        }
        return b.toByteArray();
    }

    // ---- bytes after a handshake ----

    /** A few pieces of damaged input, one after another. */
    static byte[] garbage(Random r) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int pieces = 1 + r.nextInt(3); pieces > 0; pieces--) {
            switch (r.nextInt(9)) {
                case 0 -> b.writeBytes(bytes(r, r.nextInt(300)));
                case 1 -> { // random chunks, maybe ended, maybe not
                    for (int n = r.nextInt(5); n > 0; n--) {
                        int size = r.nextInt(4) == 0 ? r.nextInt(2000) : r.nextInt(40);
                        b.write(size >>> 8);
                        b.write(size);
                        b.writeBytes(bytes(r, size));
                    }
                    if (r.nextBoolean()) {
                        b.writeBytes(Chunks.NOOP);
                    }
                }
                case 2 -> { // a chunk that promises more than it brings
                    int size = 1 + r.nextInt(0xFFFF);
                    b.write(size >>> 8);
                    b.write(size);
                    b.writeBytes(bytes(r, r.nextInt(Math.min(size, 100))));
                }
                case 3 -> { // huge declared sizes, as many as it takes to pass 64 KiB, or only a few
                    for (int n = r.nextBoolean() ? 2 : 1 + r.nextInt(2); n > 0; n--) {
                        b.writeBytes(new byte[] {(byte) 0xFF, (byte) 0xFF});
                        b.writeBytes(bytes(r, 0xFFFF));
                    }
                    b.writeBytes(Chunks.NOOP);
                }
                case 4 -> b.writeBytes(chunked(new PackStream.Packer().pack(value(r, 0)).bytes(), r));
                case 5 -> b.writeBytes(chunked(flipped(r, pack(message(r))), r));
                case 6 -> b.writeBytes(flipped(r, chunked(pack(message(r)), r)));
                case 7 -> b.writeBytes(chunked(pack(wrongTypes(r)), r));
                default -> b.writeBytes(chunked(pack(message(r)), r));
            }
        }
        return b.toByteArray();
    }

    /** {@code bytes} with one to three bytes changed. */
    static byte[] flipped(Random r, byte[] bytes) {
        byte[] b = bytes.clone();
        for (int n = 1 + r.nextInt(3); n > 0 && b.length > 0; n--) {
            b[r.nextInt(b.length)] ^= (byte) (1 + r.nextInt(255));
        }
        return b;
    }

    /** A message in chunks of random sizes (framing intact), then the end marker. */
    static byte[] chunked(byte[] message, Random r) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int at = 0;
        while (at < message.length) {
            int n = Math.min(message.length - at, r.nextBoolean() ? 1 + r.nextInt(8) : Chunks.MAX_CHUNK);
            b.write(n >>> 8);
            b.write(n);
            b.write(message, at, n);
            at += n;
        }
        b.writeBytes(Chunks.NOOP);
        return b.toByteArray();
    }

    static byte[] pack(Struct s) {
        return new PackStream.Packer().pack(s).bytes();
    }

    static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    // ---- values and messages ----

    /** A random PackStream value: scalars, strings of any code points, collections and structures, a few deep. */
    static Object value(Random r, int depth) {
        int kind = r.nextInt(depth > 3 ? 7 : 11);
        return switch (kind) {
            case 0 -> null;
            case 1 -> r.nextBoolean();
            case 2 -> switch (r.nextInt(4)) {
                case 0 -> (long) r.nextInt(256) - 128;
                case 1 -> (long) r.nextInt();
                case 2 -> r.nextLong();
                default -> r.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
            };
            case 3 -> r.nextInt(5) == 0 ? Double.NaN : r.nextGaussian() * 1e6;
            case 4, 5 -> string(r, r.nextInt(4) == 0 ? r.nextInt(300) : r.nextInt(20));
            case 6 -> bytes(r, r.nextInt(40));
            case 7 -> {
                List<Object> l = new ArrayList<>();
                for (int n = r.nextInt(6); n > 0; n--) {
                    l.add(value(r, depth + 1));
                }
                yield l;
            }
            case 8 -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (int n = r.nextInt(5); n > 0; n--) {
                    m.put(string(r, r.nextInt(8)), value(r, depth + 1));
                }
                yield m;
            }
            default -> { // a structure: a temporal or spatial tag with random fields, or any tag
                byte[] tags = {0x44, 0x54, 0x74, 0x64, 0x49, 0x69, 0x46, 0x66, 0x45, 0x58, 0x59, 0x4E, 0x52};
                List<Object> f = new ArrayList<>();
                for (int n = r.nextInt(5); n > 0; n--) {
                    f.add(r.nextBoolean() ? (long) r.nextInt(100_000) : value(r, depth + 1));
                }
                yield new Struct(r.nextInt(3) > 0 ? tags[r.nextInt(tags.length)] : (byte) r.nextInt(256), f);
            }
        };
    }

    static String string(Random r, int codePoints) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < codePoints; i++) {
            int c = r.nextInt(3) > 0 ? 0x20 + r.nextInt(0x5F) : r.nextInt(0x110000);
            s.appendCodePoint(c >= 0xD800 && c <= 0xDFFF ? 'x' : c);
        }
        return s.toString();
    }

    /** A well-formed request of any kind, in no particular state; GOODBYE rarely. */
    static Struct message(Random r) {
        return switch (r.nextInt(22)) {
            case 0 -> hello(r.nextBoolean() ? Map.of() : auth(r));
            case 1, 2 -> logon("neo4j", r.nextInt(6) == 0 ? "wrong" : TestServer.PASSWORD);
            case 3 -> Struct.of(LOGOFF);
            case 4, 5, 6, 7 -> run(QUERIES.get(r.nextInt(QUERIES.size())), params(r), runExtra(r));
            case 8, 9, 10 -> pull(n(r), qid(r));
            case 11 -> discard(n(r), qid(r));
            case 12, 13 -> begin(r.nextBoolean() ? Map.of() : runExtra(r));
            case 14 -> commit();
            case 15 -> rollback();
            case 16, 17 -> reset();
            case 18 -> telemetry(r.nextInt(5));
            case 19 -> route(r.nextBoolean() ? Map.of() : map("address", "example.org:7687"), List.of(),
                    r.nextBoolean() ? Map.of() : map("db", r.nextBoolean() ? "neo4j" : "nope"));
            case 20 -> r.nextInt(4) == 0 ? goodbye() : reset();
            default -> wrongTypes(r);
        };
    }

    /** HELLO's 4.4/5.0 credentials: mostly right. */
    static Map<String, Object> auth(Random r) {
        return map("scheme", r.nextInt(8) == 0 ? "kerberos" : "basic", "principal", "neo4j",
                "credentials", r.nextInt(6) == 0 ? "wrong" : TestServer.PASSWORD);
    }

    private static Map<String, Object> params(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> Map.of();
            case 1 -> map("k", (long) r.nextInt(1000));
            case 2 -> map("k", value(r, 1));
            default -> map("k", string(r, 5), "other", value(r, 2));
        };
    }

    private static Map<String, Object> runExtra(Random r) {
        return switch (r.nextInt(9)) {
            case 0 -> map("db", "neo4j");
            case 1 -> map("db", "nope");
            case 2 -> map("db", "system");
            case 3 -> map("mode", "r");
            case 4 -> map("tx_metadata", map("sluice", map("mode", r.nextBoolean() ? "async" : "bogus")));
            case 5 -> map("tx_metadata", map("sluice", map("mode", 5L)));
            case 6 -> map("bookmarks", List.of("garbage"), "tx_timeout", -1L);
            default -> Map.of();
        };
    }

    private static long n(Random r) {
        return new long[] {-1, -1, 0, 1, 5, 1000, -7}[r.nextInt(7)];
    }

    private static long qid(Random r) {
        return new long[] {-1, -1, -1, 0, 1, 99}[r.nextInt(6)];
    }

    /** A request of the right tag with fields of the wrong number or type, or an unknown tag. */
    static Struct wrongTypes(Random r) {
        return switch (r.nextInt(12)) {
            case 0 -> Struct.of(RUN, 42L, Map.of(), Map.of());
            case 1 -> Struct.of(RUN, "RETURN 1", List.of(1L), Map.of());
            case 2 -> Struct.of(RUN, "RETURN 1", Map.of(), "extra");
            case 3 -> Struct.of(RUN, "RETURN 1");
            case 4 -> Struct.of(PULL, map("n", "all"));
            case 5 -> Struct.of(PULL, map("n", 1L, "qid", 1.5));
            case 6 -> Struct.of(HELLO, "hello");
            case 7 -> Struct.of(LOGON, List.of("neo4j"));
            case 8 -> Struct.of(ROUTE, Map.of(), Map.of(), 7L);
            case 9 -> Struct.of(TELEMETRY, "two");
            case 10 -> Struct.of(BEGIN);
            default -> new Struct((byte) r.nextInt(256), java.util.Collections.singletonList(value(r, 2)));
        };
    }
}
