package io.sluice.bolt;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * PackStream, Bolt's value encoding (version 5.x: the Bolt docs' "PackStream" page): sluice's own codec, over byte
 * arrays so that it is tested without a network and used by whatever carries the bytes.
 *
 * <pre>
 * marker  type            size                          marker  type             size
 * C0      null            -                             80..8F  string           0..15 bytes (tiny)
 * C2/C3   false/true      -                             D0/D1/D2 string          u8/u16/u32 byte count, UTF-8
 * F0..FF  int -16..-1     tiny                          90..9F  list             0..15 items (tiny)
 * 00..7F  int 0..127      tiny                          D4/D5/D6 list            u8/u16/u32 items
 * C8/C9/CA/CB int 8/16/32/64 bits, big-endian           A0..AF  map              0..15 entries (tiny)
 * C1      float           64-bit IEEE 754, big-endian   D8/D9/DA map             u8/u16/u32 entries
 * CC/CD/CE bytes          u8/u16/u32 byte count         B0..BF  structure        0..15 fields, then a tag byte
 * </pre>
 * Integers are written in the smallest form that holds them (what Neo4j's server writes; any form is read).
 * Map keys are strings. A structure is a {@link Struct}: its tag and fields; what a tag means (Node, Date ...) is
 * Bolt's business, not PackStream's.
 *
 * <p>Reading is bounded ({@link Limits}): a declared size is checked against the bytes left before anything is
 * allocated, and against the limits on string and byte lengths, items per collection and nesting depth, so a
 * hostile or broken message costs at most its own length; anything malformed is a {@link PackStreamException}
 * naming the offset, never another exception. Stateless; an {@link Unpacker} or a {@link Packer} is one message's.
 */
public final class PackStream {
    private PackStream() {}

    /** A structure: its tag byte and fields. */
    public record Struct(byte tag, List<Object> fields) {
        public Struct {
            fields = Collections.unmodifiableList(new ArrayList<>(fields));
            if (fields.size() > 15) {
                throw new IllegalArgumentException("a structure has at most 15 fields, got " + fields.size());
            }
        }

        public static Struct of(int tag, Object... fields) {
            return new Struct((byte) tag, Arrays.asList(fields));
        }
    }

    /** What reading allows, to keep a malformed or hostile message from costing more than its own bytes. */
    public record Limits(int maxStringBytes, int maxItems, int maxDepth) {
        /** 16 MiB strings and byte arrays, 1,000,000 items a collection, 64 levels of nesting. */
        public static final Limits DEFAULT = new Limits(16 << 20, 1_000_000, 64);
    }

    /** A malformed PackStream value, or one past the {@link Limits}: where and what. */
    public static final class PackStreamException extends Exception {
        private static final long serialVersionUID = 1L;

        PackStreamException(String message) {
            super(message);
        }
    }

    /** Writes values; {@link #bytes()} gives what was written. */
    public static final class Packer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        public byte[] bytes() {
            return out.toByteArray();
        }

        /** Writes {@code v}: null, Boolean, any integral Number, Float/Double, String, byte[], List, Map, Struct. */
        public Packer pack(Object v) {
            switch (v) {
                case null -> out.write(0xC0);
                case Boolean b -> out.write(b ? 0xC3 : 0xC2);
                case Long l -> packInt(l);
                case Integer i -> packInt(i);
                case Short s -> packInt(s);
                case Byte b -> packInt(b);
                case Double d -> packFloat(d);
                case Float f -> packFloat(f);
                case String s -> packString(s);
                case byte[] b -> packBytes(b);
                case List<?> list -> {
                    header(list.size(), 0x90, 0xD4);
                    list.forEach(this::pack);
                }
                case Map<?, ?> map -> {
                    header(map.size(), 0xA0, 0xD8);
                    map.forEach((k, value) -> {
                        if (!(k instanceof String key)) {
                            throw new IllegalArgumentException("PackStream map keys are strings, got " + k);
                        }
                        packString(key);
                        pack(value);
                    });
                }
                case Struct s -> {
                    out.write(0xB0 | s.fields().size());
                    out.write(s.tag());
                    s.fields().forEach(this::pack);
                }
                default -> throw new IllegalArgumentException("no PackStream form for " + v.getClass().getName());
            }
            return this;
        }

        void packInt(long v) {
            if (v >= -16 && v <= 127) {
                out.write((int) v);
            } else if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) {
                out.write(0xC8);
                out.write((int) v);
            } else if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
                out.write(0xC9);
                be(v, 2);
            } else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
                out.write(0xCA);
                be(v, 4);
            } else {
                out.write(0xCB);
                be(v, 8);
            }
        }

        private void packFloat(double d) {
            out.write(0xC1);
            be(Double.doubleToRawLongBits(d), 8);
        }

        private void packString(String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            if (utf8.length < 16) {
                out.write(0x80 | utf8.length);
            } else {
                sized(utf8.length, 0xD0);
            }
            out.writeBytes(utf8);
        }

        private void packBytes(byte[] b) {
            sized(b.length, 0xCC);
            out.writeBytes(b);
        }

        /** A tiny marker below 16, else one of three sized markers ({@code sized}, +1, +2 for u8, u16, u32). */
        private void header(int size, int tiny, int sized) {
            if (size < 16) {
                out.write(tiny | size);
            } else {
                sized(size, sized);
            }
        }

        private void sized(int size, int marker) {
            if (size <= 0xFF) {
                out.write(marker);
                be(size, 1);
            } else if (size <= 0xFFFF) {
                out.write(marker + 1);
                be(size, 2);
            } else {
                out.write(marker + 2);
                be(size, 4);
            }
        }

        private void be(long v, int bytes) {
            for (int i = bytes - 1; i >= 0; i--) {
                out.write((int) (v >>> (8 * i)));
            }
        }
    }

    /** Reads values from {@code bytes}, within {@code limits}. */
    public static final class Unpacker {
        private final byte[] in;
        private final Limits limits;
        private int at;

        public Unpacker(byte[] bytes, Limits limits) {
            this.in = bytes;
            this.limits = limits;
        }

        /** Whether every byte has been read. */
        public boolean done() {
            return at == in.length;
        }

        public Object unpack() throws PackStreamException {
            return unpack(0);
        }

        private Object unpack(int depth) throws PackStreamException {
            if (depth > limits.maxDepth()) {
                throw fail("values nested deeper than " + limits.maxDepth());
            }
            int m = u8();
            if (m <= 0x7F || m >= 0xF0) {
                return (long) (byte) m;
            }
            int high = m & 0xF0;
            if (high == 0x80) {
                return string(m & 0x0F);
            }
            if (high == 0x90) {
                return list(m & 0x0F, depth);
            }
            if (high == 0xA0) {
                return map(m & 0x0F, depth);
            }
            if (high == 0xB0) {
                return struct(m & 0x0F, depth);
            }
            return switch (m) {
                case 0xC0 -> null;
                case 0xC1 -> Double.longBitsToDouble(be(8));
                case 0xC2 -> false;
                case 0xC3 -> true;
                case 0xC8 -> (long) (byte) be(1);
                case 0xC9 -> (long) (short) be(2);
                case 0xCA -> (long) (int) be(4);
                case 0xCB -> be(8);
                case 0xCC, 0xCD, 0xCE -> bytes(size(m - 0xCC));
                case 0xD0, 0xD1, 0xD2 -> string(size(m - 0xD0));
                case 0xD4, 0xD5, 0xD6 -> list(size(m - 0xD4), depth);
                case 0xD8, 0xD9, 0xDA -> map(size(m - 0xD8), depth);
                default -> throw fail(String.format("unknown marker 0x%02X", m));
            };
        }

        private Object string(long size) throws PackStreamException {
            byte[] utf8 = bytes(size);
            try {
                return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(utf8))
                        .toString();
            } catch (CharacterCodingException e) {
                throw fail("a string that is not UTF-8");
            }
        }

        private byte[] bytes(long size) throws PackStreamException {
            if (size > limits.maxStringBytes()) {
                throw fail("a string or byte array of " + size + " bytes, over the limit of "
                        + limits.maxStringBytes());
            }
            need(size);
            byte[] b = Arrays.copyOfRange(in, at, at + (int) size);
            at += (int) size;
            return b;
        }

        private List<Object> list(long size, int depth) throws PackStreamException {
            items(size);
            List<Object> list = new ArrayList<>((int) size);
            for (long i = 0; i < size; i++) {
                list.add(unpack(depth + 1));
            }
            return list;
        }

        private Map<String, Object> map(long size, int depth) throws PackStreamException {
            items(size);
            Map<String, Object> map = new LinkedHashMap<>();
            for (long i = 0; i < size; i++) {
                int keyAt = at;
                if (!(unpack(depth + 1) instanceof String key)) {
                    at = keyAt;
                    throw fail("a map key that is not a string");
                }
                map.put(key, unpack(depth + 1));
            }
            return map;
        }

        private Struct struct(int size, int depth) throws PackStreamException {
            byte tag = (byte) u8();
            List<Object> fields = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                fields.add(unpack(depth + 1));
            }
            return new Struct(tag, fields);
        }

        /** Each item takes at least a byte: a declared count past the bytes left is malformed, before allocation. */
        private void items(long size) throws PackStreamException {
            if (size > limits.maxItems()) {
                throw fail("a collection of " + size + " items, over the limit of " + limits.maxItems());
            }
            need(size);
        }

        /** A u8, u16 or u32 size for {@code width} 0, 1, 2. */
        private long size(int width) throws PackStreamException {
            return width == 0 ? be(1) : width == 1 ? be(2) : be(4);
        }

        private int u8() throws PackStreamException {
            need(1);
            return in[at++] & 0xFF;
        }

        private long be(int bytes) throws PackStreamException {
            need(bytes);
            long v = 0;
            for (int i = 0; i < bytes; i++) {
                v = (v << 8) | (in[at++] & 0xFF);
            }
            return v;
        }

        private void need(long bytes) throws PackStreamException {
            if (bytes > in.length - at) {
                throw fail("the message ends " + (bytes - (in.length - at)) + " bytes early");
            }
        }

        private PackStreamException fail(String what) {
            return new PackStreamException("PackStream at byte " + at + ": " + what);
        }
    }
}
