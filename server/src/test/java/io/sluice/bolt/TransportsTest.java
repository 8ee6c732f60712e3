package io.sluice.bolt;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ResourceLeakDetector;
import io.sluice.time.Time;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link Transports} on Netty's embedded channel, with the leak detector at its strictest: the Bolt magic goes to
 * Bolt's handler whole; a plain HTTP GET is answered and closed; a WebSocket upgrade on {@code /} is accepted and
 * binary frames become Bolt's bytes, in order; a text frame, an upgrade to another path's frames, and bytes that are
 * neither Bolt nor HTTP close the connection.
 */
class TransportsTest {
    static ResourceLeakDetector.Level before;

    @BeforeAll
    static void paranoid() {
        before = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    }

    @AfterAll
    static void restore() {
        ResourceLeakDetector.setLevel(before);
    }

    /** What reaches Bolt's handler, as bytes. */
    static final class Received extends ChannelInboundHandlerAdapter {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            byte[] a = new byte[b.readableBytes()];
            b.readBytes(a);
            b.release();
            bytes.writeBytes(a);
        }
    }

    static EmbeddedChannel channel(Received bolt) {
        return new EmbeddedChannel(Transports.selector(() -> bolt, () -> new byte[0], Time.SYSTEM));
    }

    @Test
    void theBoltMagicIsRawBolt() {
        Received bolt = new Received();
        EmbeddedChannel ch = channel(bolt);
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0x60, 0x60}));
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {(byte) 0xB0, 0x17, 1, 2, 3}));
        assertThat(bolt.bytes.toByteArray()).containsExactly(0x60, 0x60, 0xB0, 0x17, 1, 2, 3);
        assertThat(ch.isOpen()).isTrue();
        ch.finishAndReleaseAll();
    }

    @Test
    void aPlainGetIsAnsweredAndClosed() {
        EmbeddedChannel ch = channel(new Received());
        ch.writeInbound(Unpooled.copiedBuffer("GET / HTTP/1.1\r\nHost: x\r\n\r\n", StandardCharsets.US_ASCII));
        assertThat(outbound(ch)).startsWith("HTTP/1.1 200 OK").contains("content-length: 0");
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }

    @Test
    void neitherBoltNorHttpIsClosed() {
        EmbeddedChannel ch = channel(new Received());
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5}));
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }

    @Test
    void binaryFramesAreBoltsBytesAndATextFrameCloses() {
        Received bolt = new Received();
        EmbeddedChannel ch = channel(bolt);
        ch.writeInbound(Unpooled.copiedBuffer("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                StandardCharsets.US_ASCII));
        assertThat(outbound(ch)).startsWith("HTTP/1.1 101 Switching Protocols");
        ch.writeInbound(clientFrame(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {0x60, 0x60}))));
        ch.writeInbound(clientFrame(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {(byte) 0xB0, 0x17}))));
        assertThat(bolt.bytes.toByteArray()).containsExactly(0x60, 0x60, 0xB0, 0x17);
        ch.writeOutbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 4, 5})); // Bolt's answer goes out as a frame
        assertThat(outbound(ch).getBytes(StandardCharsets.ISO_8859_1)).as("a binary frame: FIN, opcode 2, length 4")
                .startsWith(0x82, 4).endsWith(0, 0, 4, 5);
        ch.writeInbound(clientFrame(new TextWebSocketFrame("not bolt")));
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }

    /** A frame as a browser sends it: masked. */
    static ByteBuf clientFrame(WebSocketFrame frame) {
        EmbeddedChannel client = new EmbeddedChannel(new WebSocket13FrameEncoder(true));
        client.writeOutbound(frame);
        ByteBuf all = Unpooled.buffer();
        for (ByteBuf b; (b = client.readOutbound()) != null; ) {
            all.writeBytes(b);
            b.release();
        }
        client.finishAndReleaseAll();
        return all;
    }

    /** Everything written out so far, as text. */
    static String outbound(EmbeddedChannel ch) {
        StringBuilder s = new StringBuilder();
        for (Object o; (o = ch.readOutbound()) != null; ) {
            if (o instanceof ByteBuf b) {
                s.append(b.toString(StandardCharsets.ISO_8859_1));
            }
            ReferenceCountUtil.release(o); // a close frame the WebSocket handler sends as the channel closes
        }
        return s.toString();
    }
}
