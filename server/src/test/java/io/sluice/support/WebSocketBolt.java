package io.sluice.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * A {@link BoltWire} over Bolt's WebSocket transport ({@code ws://} or {@code wss://} to a Bolt port), as Neo4j
 * Browser and the JavaScript driver's browser build speak it: the JDK's WebSocket client, each flush of the Bolt
 * bytes one binary frame, frames received read as one byte stream. Reads time out after 10 s. Thread-confined, like
 * {@link BoltWire}.
 */
public final class WebSocketBolt {
    private static final byte[] CLOSED = new byte[0];

    private WebSocketBolt() {}

    /** Opens {@code uri} ({@code ws://host:port/}, or {@code wss://} with {@code tls} set) and wraps it. */
    public static BoltWire connect(URI uri, SSLContext tls) throws IOException {
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
        if (tls != null) {
            b.sslContext(tls);
        }
        HttpClient client = b.build();
        BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
        WebSocket ws;
        try {
            ws = client.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10)).buildAsync(uri,
                    new WebSocket.Listener() {
                        private final ByteArrayOutputStream partial = new ByteArrayOutputStream();

                        @Override
                        public CompletionStage<?> onBinary(WebSocket w, ByteBuffer data, boolean last) {
                            byte[] b = new byte[data.remaining()];
                            data.get(b);
                            partial.writeBytes(b);
                            if (last) {
                                frames.add(partial.toByteArray());
                                partial.reset();
                            }
                            w.request(1);
                            return null;
                        }

                        @Override
                        public CompletionStage<?> onClose(WebSocket w, int status, String reason) {
                            frames.add(CLOSED);
                            return null;
                        }

                        @Override
                        public void onError(WebSocket w, Throwable error) {
                            frames.add(CLOSED);
                        }
                    }).get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            client.close();
            throw new IOException("cannot open a WebSocket to " + uri + ": " + e, e);
        }
        InputStream in = new InputStream() {
            private byte[] current = new byte[0];
            private int at;
            private boolean ended;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(byte[] into, int off, int len) throws IOException {
                while (at == current.length) {
                    if (ended) {
                        return -1;
                    }
                    byte[] next;
                    try {
                        next = frames.poll(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException(e);
                    }
                    if (next == null) {
                        throw new SocketTimeoutException("nothing from the WebSocket in 10 s");
                    }
                    if (next == CLOSED) {
                        ended = true;
                        return -1;
                    }
                    current = next;
                    at = 0;
                }
                int n = Math.min(len, current.length - at);
                System.arraycopy(current, at, into, off, n);
                at += n;
                return n;
            }
        };
        OutputStream out = new OutputStream() {
            private final ByteArrayOutputStream pending = new ByteArrayOutputStream();

            @Override
            public void write(int b) {
                pending.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                pending.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                if (pending.size() == 0) {
                    return;
                }
                try {
                    ws.sendBinary(ByteBuffer.wrap(pending.toByteArray()), true).get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IOException("cannot send on the WebSocket: " + e, e);
                } finally {
                    pending.reset();
                }
            }
        };
        return BoltWire.over(in, out, () -> {
            ws.abort();
            client.close();
        });
    }
}
