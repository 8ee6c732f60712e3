package io.sluice.bolt;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.io.ByteArrayOutputStream;
import java.util.List;

/**
 * Bolt's message framing (the Bolt docs' "Message transfer encoding"): a message is a series of chunks, each a
 * 2-byte big-endian length and that many bytes, ended by an empty chunk ({@code 00 00}). An empty chunk where no
 * message has begun is a NOOP (a keep-alive) and is skipped. Both directions live here: {@link Decoder} turns
 * the connection's bytes into whole messages, {@link #frame} writes one.
 */
final class Chunks {
    private Chunks() {}

    static final int MAX_CHUNK = 0xFFFF;
    /** The NOOP chunk: keeps a connection's reader from timing out while a reply is held. */
    static final byte[] NOOP = {0, 0};

    /** Appends {@code message} to {@code out} as chunks of at most {@link #MAX_CHUNK} bytes and the end marker. */
    static void frame(byte[] message, ByteArrayOutputStream out) {
        int at = 0;
        while (at < message.length) {
            int n = Math.min(MAX_CHUNK, message.length - at);
            out.write(n >>> 8);
            out.write(n);
            out.write(message, at, n);
            at += n;
        }
        out.write(0);
        out.write(0);
    }

    /**
     * Whole messages out of a connection's bytes, each a {@code byte[]}; a message larger than {@code maxBytes}
     * is a {@link TooLongFrameException} (the connection is then failed and closed: its remaining bytes cannot be
     * trusted to be framed). Confined to its channel's event loop.
     */
    static final class Decoder extends ByteToMessageDecoder {
        private volatile int maxBytes;
        private ByteArrayOutputStream message;

        Decoder(int maxBytes) {
            this.maxBytes = maxBytes;
        }

        /** From now on messages of up to {@code maxBytes} (a connection that logged in may send large ones). */
        void limit(int maxBytes) {
            this.maxBytes = maxBytes;
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            while (in.readableBytes() >= 2) {
                int size = in.getUnsignedShort(in.readerIndex());
                if (size == 0) {
                    in.skipBytes(2);
                    if (message != null) {
                        out.add(message.toByteArray());
                        message = null;
                    }
                    continue; // else a NOOP
                }
                if (in.readableBytes() < 2 + size) {
                    return;
                }
                if (message == null) {
                    message = new ByteArrayOutputStream(Math.min(size, 1024));
                }
                if (message.size() + size > maxBytes) {
                    message = null;
                    in.skipBytes(in.readableBytes());
                    throw new TooLongFrameException("a message is larger than the limit of " + maxBytes + " bytes");
                }
                in.skipBytes(2);
                byte[] chunk = new byte[size];
                in.readBytes(chunk);
                message.write(chunk, 0, size);
            }
        }
    }
}
