package io.sluice.bolt;

import java.io.ByteArrayOutputStream;
import java.util.List;

/**
 * Bolt's version negotiation (the Bolt docs' "Handshake"), as pure functions over bytes.
 *
 * <pre>
 * client: 60 60 B0 17                      the magic preamble
 *         4 proposals of 4 bytes each:     [00, range, minor, major]  = major.minor down to major.(minor-range)
 *                                          [00, 00, 01, FF]           = "manifest v1 style" (Bolt 5.7+ drivers)
 * server: [00, 00, minor, major]           the first proposal (in the client's order) it speaks, or 00 00 00 00
 *     or: [00, 00, 01, FF], varint n, n x [00, range, minor, major], varint capabilities   (manifest chosen)
 * client (manifest only): [00, 00, minor, major] it picked from the server's list, varint capabilities
 * </pre>
 * Varints are little-endian base-128 (7 bits a byte, high bit set on all but the last). Sluice speaks 5.0 to 5.4
 * and 5.6 to 5.8 (never 5.5, which was withdrawn before release, so drivers propose it only inside ranges), and
 * 4.4. The manifest reply is one write, whole: one driver (JavaScript) fails when it arrives split.
 */
final class Handshake {
    private Handshake() {}

    static final int MAGIC = 0x6060B017;
    /** The preamble and the four proposals. */
    static final int LENGTH = 20;
    private static final int MANIFEST_V1 = 0x000001FF;

    /** A version: major and minor. */
    record Version(int major, int minor) implements Comparable<Version> {
        static final Version V4_4 = new Version(4, 4);
        static final Version V5_0 = new Version(5, 0);
        static final Version V5_1 = new Version(5, 1);
        static final Version V5_2 = new Version(5, 2);
        static final Version V5_4 = new Version(5, 4);
        static final Version V5_6 = new Version(5, 6);
        static final Version V5_7 = new Version(5, 7);
        static final Version V5_8 = new Version(5, 8);

        boolean atLeast(Version other) {
            return compareTo(other) >= 0;
        }

        @Override
        public int compareTo(Version o) {
            return major != o.major ? Integer.compare(major, o.major) : Integer.compare(minor, o.minor);
        }

        @Override
        public String toString() {
            return major + "." + minor;
        }
    }

    /** What sluice speaks, best first. */
    static final List<Version> SPOKEN = List.of(Version.V5_8, Version.V5_7, Version.V5_6, Version.V5_4,
            new Version(5, 3), Version.V5_2, Version.V5_1, Version.V5_0, Version.V4_4);

    /** What the first 20 bytes asked for. */
    sealed interface Outcome {
        /** A classic answer: {@code version} (null: none of the proposals; the connection then closes). */
        record Chosen(Version version, byte[] reply) implements Outcome {}

        /** The client offered the manifest style first: send {@code reply}, then read its choice. */
        record Manifest(byte[] reply) implements Outcome {}

        /** Not Bolt at all (an HTTP request, a TLS hello on a plain port ...): close without a word. */
        record NotBolt() implements Outcome {}
    }

    /** Answers the preamble and proposals in {@code b} ({@link #LENGTH} bytes). */
    static Outcome answer(byte[] b) {
        if (readInt(b, 0) != MAGIC) {
            return new Outcome.NotBolt();
        }
        for (int i = 0; i < 4; i++) {
            int p = readInt(b, 4 + 4 * i);
            if (p == MANIFEST_V1) {
                return new Outcome.Manifest(manifest());
            }
            Version v = pick(p);
            if (v != null) {
                return new Outcome.Chosen(v, new byte[] {0, 0, (byte) v.minor, (byte) v.major});
            }
        }
        return new Outcome.Chosen(null, new byte[4]);
    }

    /** The best version sluice speaks within proposal {@code p}, or null. */
    static Version pick(int p) {
        int major = p & 0xFF;
        int minor = (p >>> 8) & 0xFF;
        int range = (p >>> 16) & 0xFF;
        if ((p >>> 24) != 0) {
            return null;
        }
        for (Version v : SPOKEN) {
            if (v.major == major && v.minor <= minor && v.minor >= minor - range) {
                return v;
            }
        }
        return null;
    }

    /** The manifest-style reply: the marker, the versions as ranges, no capabilities. */
    private static byte[] manifest() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeInt(out, MANIFEST_V1);
        out.write(3); // three entries, as varint
        writeInt(out, 0x00020805); // 5.8 down to 5.6
        writeInt(out, 0x00040405); // 5.4 down to 5.0
        writeInt(out, 0x00000404); // 4.4
        out.write(0); // capabilities: none
        return out.toByteArray();
    }

    /**
     * The client's choice after a manifest reply: 4 bytes then a varint. Returns the version (null when it named
     * one sluice did not offer) or throws {@link IndexOutOfBoundsException} when {@code b} is not complete yet;
     * {@code consumed[0]} gets the bytes read.
     */
    static Version choice(byte[] b, int[] consumed) {
        int p = readInt(b, 0);
        int at = 4;
        int shift = 0;
        while (true) {
            int x = b[at++] & 0xFF; // throws while incomplete
            if ((x & 0x80) == 0) {
                break;
            }
            shift += 7;
            if (shift > 63) {
                consumed[0] = at;
                return null;
            }
        }
        consumed[0] = at;
        int major = p & 0xFF;
        int minor = (p >>> 8) & 0xFF;
        Version v = new Version(major, minor);
        return (p >>> 16) == 0 && SPOKEN.contains(v) ? v : null;
    }

    private static int readInt(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | (b[at + 3] & 0xFF);
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
    }
}
