package io.sluice.journal;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The journal's on-disk format: a segment header, then frames back to back.
 *
 * <pre>
 * Segment file: &lt;base offset, zero-padded to 20 digits&gt;.log, e.g. 00000000000000000000.log
 *
 * Segment header, 16 bytes, written once when the file is created:
 * +--------+------------+-------------------------------------------------------------+
 * | bytes  | field      | value                                                       |
 * +--------+------------+-------------------------------------------------------------+
 * | 0..3   | magic      | 0x534C4A4C ("SLJL")                                         |
 * | 4      | version    | 1                                                           |
 * | 5..7   | reserved   | 0                                                           |
 * | 8..15  | baseOffset | u64, offset of the segment's first record = the file name   |
 * +--------+------------+-------------------------------------------------------------+
 *
 * Frame, one per record, 16 bytes + payload; frames follow each other with no padding:
 * +--------+------------+-------------------------------------------------------------+
 * | 0..3   | length     | u32, payload bytes (0 .. 1 GiB)                             |
 * | 4..7   | crc        | u32, CRC32C over bytes 8..end (the offset, then the payload)|
 * | 8..15  | offset     | u64, the record's offset: the previous frame's offset + 1,  |
 * |        |            | or baseOffset for the first frame                           |
 * | 16..   | payload    | length bytes, opaque                                        |
 * +--------+------------+-------------------------------------------------------------+
 * </pre>
 *
 * All integers are big-endian. A segment's file may run on past its frames in zeros (preallocated, so that a
 * force seldom changes the file's size: see {@link Segment}); a clean close cuts the active segment back. The end of
 * the data is the first frame that does not check out: if only zeros follow it, that is the clean end; anything
 * else after the last whole, valid frame is a torn write or damage. No valid frame is all zeros: the CRC of a
 * zero offset and an empty payload is not zero.
 *
 * <p>The CRC covers the offset as well as the payload, so a stale frame left over from an earlier life of the
 * same bytes cannot pass for the record expected at that place.
 *
 * <p>Stateless; thread-safe.
 */
final class FrameCodec {
    static final int SEGMENT_HEADER_BYTES = 16;
    static final int FRAME_HEADER_BYTES = 16;
    static final int MAGIC = 0x534C4A4C;
    static final byte VERSION = 1;
    /** Hard ceiling on a payload, whatever the options say; recovery uses it to reject absurd lengths. */
    static final int MAX_PAYLOAD_BYTES = 1 << 30;

    /** A decoded frame header; {@code length} is unsigned, hence a long. */
    record Header(long length, int crc, long offset) {}

    private FrameCodec() {}

    static long frameBytes(int payloadLength) {
        return (long) FRAME_HEADER_BYTES + payloadLength;
    }

    static byte[] segmentHeader(long baseOffset) {
        return ByteBuffer.allocate(SEGMENT_HEADER_BYTES)
                .putInt(MAGIC).put(VERSION).put((byte) 0).put((byte) 0).put((byte) 0)
                .putLong(baseOffset)
                .array();
    }

    /** Returns what is wrong with a segment header, or null if it is valid for {@code baseOffset}. */
    static String segmentHeaderProblem(byte[] header, long baseOffset) {
        ByteBuffer b = ByteBuffer.wrap(header);
        int magic = b.getInt();
        if (magic != MAGIC) {
            return String.format("bad magic 0x%08X", magic);
        }
        byte version = b.get();
        if (version != VERSION) {
            return "unsupported version " + version;
        }
        if (b.get() != 0 || b.get() != 0 || b.get() != 0) {
            return "reserved header bytes are not zero";
        }
        long base = b.getLong();
        if (base != baseOffset) {
            return "header says base offset " + base + " but the file name says " + baseOffset;
        }
        return null;
    }

    /** Encodes consecutive records, the first at {@code firstOffset}, into one buffer for a single write. */
    static byte[] encodeFrames(long firstOffset, List<byte[]> payloads) {
        long total = 0;
        for (byte[] p : payloads) {
            total += frameBytes(p.length);
        }
        ByteBuffer b = ByteBuffer.allocate(Math.toIntExact(total));
        long offset = firstOffset;
        for (byte[] p : payloads) {
            b.putInt(p.length).putInt(crc(offset, p)).putLong(offset).put(p);
            offset++;
        }
        return b.array();
    }

    static Header decodeHeader(byte[] header) {
        ByteBuffer b = ByteBuffer.wrap(header);
        return new Header(Integer.toUnsignedLong(b.getInt()), b.getInt(), b.getLong());
    }

    static int crc(long offset, byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(Long.BYTES).putLong(offset).flip());
        crc.update(payload);
        return (int) crc.getValue();
    }
}
