package io.sluice.bolt;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.MessageToMessageCodec;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.sluice.time.Time;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.function.Supplier;

/**
 * Which transport a connection to the Bolt port speaks, chosen from its first bytes as Neo4j's own Bolt connector
 * chooses ({@code TransportSelectionHandler}): the Bolt magic {@code 60 60 B0 17} is raw Bolt; {@code "GET "} is
 * HTTP, either a WebSocket upgrade (Neo4j Browser, Bloom, NeoDash and every web page using the JavaScript driver,
 * which always opens a WebSocket) after which the same handshake and chunks travel in binary frames, or a plain
 * {@code GET}, answered as Neo4j answers it; anything else is closed. TLS is told apart before this, by the
 * listener's TLS handler, so both transports work with and without it.
 *
 * <p>Neo4j's limits for the WebSocket part are kept: an upgrade request of at most 64 KiB, frames of at most 64 KiB
 * (a client splits larger writes; the JavaScript driver writes chunks of some 1,400 bytes), on the path {@code /}.
 * Past the selection, a WebSocket connection is a Bolt connection like any other: the same handshake, login, message
 * limits, metrics and worker. Runs on the connection's event loop; a selector removes itself once it has chosen.
 */
final class Transports {
    /** The most an HTTP upgrade request, and a WebSocket frame, may hold (Neo4j's own bound for both). */
    static final int MAX_HTTP_BYTES = 65_536;
    private static final byte[] GET = {'G', 'E', 'T', ' '};

    private Transports() {}

    /**
     * The handler to put first on a connection (after TLS): it picks the transport and then puts {@code bolt}'s
     * handshake handler behind it, with the WebSocket codec between them when the connection is a WebSocket.
     * {@code discovery}: the body of the answer to a plain HTTP {@code GET} (Neo4j Community's is empty), dated by
     * {@code time}.
     */
    static ChannelHandler selector(Supplier<ChannelHandler> bolt, Supplier<byte[]> discovery, Time time) {
        return new Selector(bolt, discovery, time);
    }

    private static final class Selector extends ByteToMessageDecoder {
        private final Supplier<ChannelHandler> bolt;
        private final Supplier<byte[]> discovery;
        private final Time time;

        Selector(Supplier<ChannelHandler> bolt, Supplier<byte[]> discovery, Time time) {
            this.bolt = bolt;
            this.discovery = discovery;
            this.time = time;
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            if (in.readableBytes() < 4) {
                return;
            }
            String name = ctx.name();
            if (in.getInt(in.readerIndex()) == Handshake.MAGIC) {
                ctx.pipeline().addAfter(name, "handshake", bolt.get());
            } else if (startsWith(in, GET)) {
                ctx.pipeline().addAfter(name, "http", new HttpServerCodec())
                        .addAfter("http", "http-aggregator", new HttpObjectAggregator(MAX_HTTP_BYTES))
                        .addAfter("http-aggregator", "discovery", new Discovery(discovery, time))
                        .addAfter("discovery", "websocket", new WebSocketServerProtocolHandler("/", null, false,
                                MAX_HTTP_BYTES))
                        .addAfter("websocket", "websocket-aggregator", new WebSocketFrameAggregator(MAX_HTTP_BYTES))
                        .addAfter("websocket-aggregator", "websocket-bolt", new Frames())
                        .addAfter("websocket-bolt", "handshake", bolt.get());
            } else {
                in.skipBytes(in.readableBytes());
                ctx.close();
                return;
            }
            ctx.pipeline().remove(this); // what it has read so far goes on to the handler chosen
        }

        private static boolean startsWith(ByteBuf in, byte[] prefix) {
            for (int i = 0; i < prefix.length; i++) {
                if (in.getByte(in.readerIndex() + i) != prefix[i]) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * A plain HTTP request (no WebSocket upgrade) is answered {@code 200} with the discovery body and closed, as
     * Neo4j's {@code DiscoveryResponseHandler} does; an upgrade goes on to the WebSocket handshake, and this handler
     * leaves.
     */
    private static final class Discovery extends ChannelInboundHandlerAdapter {
        private final Supplier<byte[]> body;
        private final Time time;

        Discovery(Supplier<byte[]> body, Time time) {
            this.body = body;
            this.time = time;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            FullHttpRequest request = (FullHttpRequest) msg;
            if (upgrade(request.headers())) {
                ctx.pipeline().remove(this);
                ctx.fireChannelRead(msg);
                return;
            }
            FullHttpResponse response = new DefaultFullHttpResponse(request.protocolVersion(), HttpResponseStatus.OK,
                    Unpooled.wrappedBuffer(body.get()));
            request.release();
            HttpHeaders h = response.headers();
            h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
            h.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
            h.set(HttpHeaderNames.VARY, "Accept");
            h.set(HttpHeaderNames.DATE, DateTimeFormatter.RFC_1123_DATE_TIME.format(time.now().atZone(ZoneOffset.UTC)));
            h.set(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }

        private static boolean upgrade(HttpHeaders h) {
            return h.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true)
                    && h.contains(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true);
        }
    }

    /**
     * Bolt's bytes in binary WebSocket frames: a frame in is its payload (text frames are not Bolt, and close the
     * connection); bytes out are one frame.
     */
    private static final class Frames extends MessageToMessageCodec<WebSocketFrame, ByteBuf> {
        @Override
        protected void encode(ChannelHandlerContext ctx, ByteBuf bytes, List<Object> out) {
            out.add(new BinaryWebSocketFrame(bytes.retain()));
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, WebSocketFrame frame, List<Object> out) {
            if (!(frame instanceof BinaryWebSocketFrame)) {
                ctx.close();
                return;
            }
            out.add(frame.content().retain());
        }
    }
}
