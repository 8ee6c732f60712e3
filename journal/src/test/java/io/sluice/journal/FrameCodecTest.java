package io.sluice.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** Pins the on-disk format documented in {@link FrameCodec}: changing it breaks existing journals. */
class FrameCodecTest {
    @Test
    void frameLayout() {
        byte[] frame = FrameCodec.encodeFrames(7, List.of(new byte[] {'a', 'b', 'c'}));
        CRC32C crc = new CRC32C();
        crc.update(HexFormat.of().parseHex("0000000000000007616263"));
        String expected = "00000003" + String.format("%08x", crc.getValue()) + "0000000000000007" + "616263";
        assertThat(HexFormat.of().formatHex(frame)).isEqualTo(expected);
        FrameCodec.Header h = FrameCodec.decodeHeader(frame);
        assertThat(h).isEqualTo(new FrameCodec.Header(3, (int) crc.getValue(), 7));
    }

    @Test
    void consecutiveFramesHaveConsecutiveOffsets() {
        ByteBuffer b = ByteBuffer.wrap(FrameCodec.encodeFrames(41, List.of(new byte[2], new byte[0])));
        assertThat(b.getInt(0)).isEqualTo(2);
        assertThat(b.getLong(8)).isEqualTo(41);
        assertThat(b.getInt(18)).isZero();
        assertThat(b.getLong(18 + 8)).isEqualTo(42);
        assertThat(b.capacity()).isEqualTo(18 + 16);
    }

    @Test
    void segmentHeaderLayout() {
        assertThat(HexFormat.of().formatHex(FrameCodec.segmentHeader(42)))
                .isEqualTo("534c4a4c" + "01" + "000000" + "000000000000002a");
        assertThat(FrameCodec.segmentHeaderProblem(FrameCodec.segmentHeader(42), 42)).isNull();
        assertThat(FrameCodec.segmentHeaderProblem(FrameCodec.segmentHeader(42), 43)).contains("43");
        byte[] reserved = FrameCodec.segmentHeader(42);
        reserved[6] = 1;
        assertThat(FrameCodec.segmentHeaderProblem(reserved, 42)).contains("reserved");
    }

    @Test
    void segmentFileNamesAreTheBaseOffsetPaddedTo20Digits() {
        assertThat(Segment.fileName(Path.of("j"), 1234).getFileName())
                .hasToString("00000000000000001234.log");
    }
}
