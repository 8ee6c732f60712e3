package io.sluice.bolt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.bolt.PackStream.Limits;
import io.sluice.bolt.PackStream.PackStreamException;
import io.sluice.bolt.PackStream.Packer;
import io.sluice.bolt.PackStream.Struct;
import io.sluice.bolt.PackStream.Unpacker;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * PackStream as the Bolt docs' examples write it, every form round-tripped on seeded random values, and bad bytes
 * (random, and valid messages mutated) read as a {@link PackStreamException} or a value, never anything else, at a
 * cost bounded by the message's own length. A failing seed is printed; {@code -Dsluice.packstream.seed=N} replays.
 */
class PackStreamTest {
    static final HexFormat HEX = HexFormat.ofDelimiter(" ").withUpperCase();

    static String hex(Object v) {
        return HEX.formatHex(new Packer().pack(v).bytes());
    }

    static Object read(String hex) throws PackStreamException {
        Unpacker u = new Unpacker(HEX.parseHex(hex), Limits.DEFAULT);
        Object v = u.unpack();
        assertThat(u.done()).as("every byte of %s read", hex).isTrue();
        return v;
    }

    @Test
    void theDocumentsExamples() throws Exception {
        assertThat(hex(null)).isEqualTo("C0");
        assertThat(hex(true)).isEqualTo("C3");
        assertThat(hex(false)).isEqualTo("C2");
        assertThat(hex(1L)).isEqualTo("01");
        assertThat(hex(-16)).isEqualTo("F0");
        assertThat(hex(-17)).isEqualTo("C8 EF");
        assertThat(hex(127)).isEqualTo("7F");
        assertThat(hex(128)).isEqualTo("C9 00 80");
        assertThat(hex(-129)).isEqualTo("C9 FF 7F");
        assertThat(hex(32768)).isEqualTo("CA 00 00 80 00");
        assertThat(hex(2147483648L)).isEqualTo("CB 00 00 00 00 80 00 00 00");
        assertThat(hex(1.1)).isEqualTo("C1 3F F1 99 99 99 99 99 9A");
        assertThat(hex("")).isEqualTo("80");
        assertThat(hex("A")).isEqualTo("81 41");
        assertThat(hex("Größenmaßstäbe")).isEqualTo("D0 12 47 72 C3 B6 C3 9F 65 6E 6D 61 C3 9F 73 74 C3 A4 62 65");
        assertThat(hex(new byte[] {1, 2, 3})).isEqualTo("CC 03 01 02 03");
        assertThat(hex(List.of())).isEqualTo("90");
        assertThat(hex(List.of(1L, 2L, 3L))).isEqualTo("93 01 02 03");
        assertThat(hex(Map.of())).isEqualTo("A0");
        assertThat(hex(Map.of("one", "eins"))).isEqualTo("A1 83 6F 6E 65 84 65 69 6E 73");
        assertThat(hex(Struct.of(0x4E, 1L, List.of("L"), Map.of(), "e")))
                .isEqualTo("B4 4E 01 91 81 4C A0 81 65");
        // any integer form is read, whatever its size
        assertThat(read("C9 00 01")).isEqualTo(1L);
        assertThat(read("CB FF FF FF FF FF FF FF FF")).isEqualTo(-1L);
        assertThat(read("D5 00 01 01")).isEqualTo(List.of(1L));
        assertThat(read("B1 71 91 C3")).isEqualTo(Struct.of(0x71, List.of(true)));
    }

    @Test
    void sizesAtEveryMarkerBoundary() throws Exception {
        for (int n : new int[] {0, 15, 16, 255, 256, 65535, 65536}) {
            String s = "x".repeat(n);
            assertThat(read(hex(s))).isEqualTo(s);
            byte[] b = new byte[n];
            assertThat((byte[]) read(hex(b))).isEqualTo(b);
            List<Object> list = new ArrayList<>();
            Map<String, Object> map = new LinkedHashMap<>();
            for (int i = 0; i < Math.min(n, 70_000); i++) {
                list.add((long) i);
                map.put("k" + i, (long) i);
            }
            assertThat(read(hex(list))).isEqualTo(list);
            assertThat(read(hex(map))).isEqualTo(map);
        }
        for (long v : new long[] {Long.MIN_VALUE, Integer.MIN_VALUE - 1L, Integer.MIN_VALUE, Short.MIN_VALUE - 1,
                Short.MIN_VALUE, -129, -128, -17, -16, 0, 127, 128, 32767, 32768, Integer.MAX_VALUE,
                Integer.MAX_VALUE + 1L, Long.MAX_VALUE}) {
            assertThat(read(hex(v))).as("%d", v).isEqualTo(v);
        }
    }

    static long seed() {
        String given = System.getProperty("sluice.packstream.seed");
        return given != null ? Long.parseLong(given) : new SplittableRandom().nextLong();
    }

    /** A random value: every PackStream form, nested up to {@code depth}. */
    static Object value(SplittableRandom r, int depth) {
        int kind = r.nextInt(depth > 0 ? 10 : 7);
        return switch (kind) {
            case 0 -> null;
            case 1 -> r.nextBoolean();
            case 2 -> switch (r.nextInt(3)) {
                case 0 -> (long) r.nextInt(-20, 130);
                case 1 -> (long) r.nextInt();
                default -> r.nextLong();
            };
            case 3 -> r.nextBoolean() ? r.nextDouble() : Double.longBitsToDouble(r.nextLong());
            case 4 -> {
                StringBuilder b = new StringBuilder();
                int n = r.nextInt(r.nextBoolean() ? 20 : 300);
                for (int i = 0; i < n; i++) {
                    b.appendCodePoint(r.nextBoolean() ? r.nextInt(32, 127) : r.nextInt(0xA0, 0xD7FF));
                }
                yield b.toString();
            }
            case 5 -> {
                byte[] b = new byte[r.nextInt(r.nextBoolean() ? 16 : 400)];
                r.nextBytes(b);
                yield b;
            }
            case 6 -> (long) r.nextInt(-16, 128);
            case 7 -> {
                List<Object> l = new ArrayList<>();
                for (int i = r.nextInt(20); i > 0; i--) {
                    l.add(value(r, depth - 1));
                }
                yield l;
            }
            case 8 -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (int i = r.nextInt(20); i > 0; i--) {
                    m.put("k" + r.nextInt(1000), value(r, depth - 1));
                }
                yield m;
            }
            default -> {
                List<Object> f = new ArrayList<>();
                for (int i = r.nextInt(16); i > 0; i--) {
                    f.add(value(r, depth - 1));
                }
                yield new Struct((byte) r.nextInt(256), f);
            }
        };
    }

    @Test
    void randomValuesRoundTripToTheSameBytes() throws Exception {
        long seed = seed();
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 2_000; i++) {
            byte[] bytes = new Packer().pack(value(r, 4)).bytes();
            Unpacker u = new Unpacker(bytes, Limits.DEFAULT);
            Object back = u.unpack();
            assertThat(u.done()).as("seed %d, value %d: every byte read", seed, i).isTrue();
            assertThat(new Packer().pack(back).bytes()).as("seed %d, value %d", seed, i).isEqualTo(bytes);
        }
    }

    /** Reads {@code bytes} to their end: values, or a PackStreamException; anything else fails the test. */
    static void readAll(byte[] bytes, Limits limits) {
        Unpacker u = new Unpacker(bytes, limits);
        try {
            while (!u.done()) {
                u.unpack();
            }
        } catch (PackStreamException expected) {
            assertThat(expected.getMessage()).startsWith("PackStream at byte ");
        }
    }

    @Test
    void badBytesAreAPackStreamExceptionOrAValueNeverAnythingElse() {
        long seed = seed();
        SplittableRandom r = new SplittableRandom(seed);
        Limits small = new Limits(4096, 4096, 16);
        try {
            for (int i = 0; i < 20_000; i++) {
                byte[] b;
                if (i % 2 == 0) { // random bytes
                    b = new byte[r.nextInt(64)];
                    r.nextBytes(b);
                } else { // a valid message, mutated: bytes flipped, cut short, or a size made huge
                    b = new Packer().pack(value(r, 3)).bytes();
                    for (int k = r.nextInt(1, 4); k > 0 && b.length > 0; k--) {
                        b[r.nextInt(b.length)] = (byte) r.nextInt(256);
                    }
                    if (r.nextInt(4) == 0 && b.length > 1) {
                        b = java.util.Arrays.copyOf(b, r.nextInt(b.length));
                    }
                }
                readAll(b, small);
            }
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("seed " + seed + " (-Dsluice.packstream.seed=" + seed + " replays)", e);
        }
    }

    @Test
    void limitsAreCheckedBeforeAnythingIsAllocated() {
        Limits limits = new Limits(1024, 100, 8);
        assertThatThrownBy(() -> new Unpacker(HEX.parseHex("D2 7F FF FF FF"), limits).unpack())
                .isInstanceOf(PackStreamException.class).hasMessageContaining("over the limit of 1024");
        assertThatThrownBy(() -> new Unpacker(HEX.parseHex("D6 7F FF FF FF"), limits).unpack())
                .isInstanceOf(PackStreamException.class).hasMessageContaining("over the limit of 100");
        assertThatThrownBy(() -> new Unpacker(HEX.parseHex("D5 00 50 01"), limits).unpack())
                .as("80 items declared, one byte left").isInstanceOf(PackStreamException.class)
                .hasMessageContaining("ends 79 bytes early");
        assertThatThrownBy(() -> new Unpacker(HEX.parseHex("91 ".repeat(10) + "90"), limits).unpack())
                .isInstanceOf(PackStreamException.class).hasMessageContaining("nested deeper than 8");
        assertThatThrownBy(() -> new Unpacker(HEX.parseHex("A1 01 01"), limits).unpack())
                .isInstanceOf(PackStreamException.class).hasMessageContaining("not a string");
        assertThatThrownBy(() -> new Unpacker(HEX.parseHex("82 C3 28"), limits).unpack())
                .isInstanceOf(PackStreamException.class).hasMessageContaining("not UTF-8");
        assertThatThrownBy(() -> new Unpacker(HEX.parseHex("C7"), limits).unpack())
                .isInstanceOf(PackStreamException.class).hasMessageContaining("unknown marker 0xC7");
    }
}
