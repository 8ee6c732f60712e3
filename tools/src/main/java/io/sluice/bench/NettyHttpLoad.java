package io.sluice.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.sluice.bench.Scenario.RowSource;
import io.sluice.bench.Scenario.Workload;
import io.sluice.time.Time;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closed-loop HTTP load on Netty (already on sluice's class path through Neo4j): each client is one HTTP/1.1
 * keep-alive connection whose handler sends the next request when the response to the previous one arrives,
 * until the window ends. A few event-loop threads drive every connection, with no thread hand-off per request;
 * on a 2-core machine shared with the server this costs about half the CPU per request of the JDK client.
 *
 * <p>Each connection is pinned to one event loop, so its {@link Tally.Client} is only ever touched by that
 * thread. A connection that fails counts an error (status 0) for the request in flight, waits
 * {@link HttpTarget#TRANSPORT_ERROR_PAUSE} and reconnects; a response slower than
 * {@link HttpTarget#REQUEST_TIMEOUT} fails the connection. Owns its event-loop group, shut down by
 * {@link #awaitStop}.
 */
final class NettyHttpLoad implements Load {
    private static final Logger log = LoggerFactory.getLogger(NettyHttpLoad.class);
    /** Event-loop threads; two keep up with the server's peak on this machine kind with CPU to spare. */
    static final int IO_THREADS = 2;
    private static final int MAX_RESPONSE_BYTES = 1 << 20;

    private final HttpTarget target;
    private final Workload workload;
    private final Time time;
    private final AtomicReference<String> firstTransportError = new AtomicReference<>();
    private EventLoopGroup group;
    private CountDownLatch stopped;
    private Window window;

    NettyHttpLoad(HttpTarget target, Workload workload, Time time) {
        this.target = target;
        this.workload = workload;
        this.time = time;
    }

    @Override
    public void start(Tally tally) {
        window = tally.window();
        group = new MultiThreadIoEventLoopGroup(IO_THREADS,
                Thread.ofPlatform().name("sluice-bench-netty-", 0).daemon(true).factory(), NioIoHandler.newFactory());
        stopped = new CountDownLatch(target.clients());
        for (int i = 0; i < target.clients(); i++) {
            new Connection(group.next(), workload.stream(i), tally.newClient()).connect();
        }
    }

    @Override
    public void awaitStop() throws InterruptedException {
        try {
            long left = window.end() - time.nanos() + HttpTarget.REQUEST_TIMEOUT.toNanos() + 5_000_000_000L;
            if (!stopped.await(left, TimeUnit.NANOSECONDS)) {
                log.warn("{} bench connections still open {} after the end; closing them", stopped.getCount(),
                        HttpTarget.REQUEST_TIMEOUT);
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
        String err = firstTransportError.get();
        if (err != null) {
            log.warn("transport errors during the run; the first: {}", err);
        }
    }

    /**
     * Opens one connection on {@code loop} to {@code target}, with {@code handler} last in its pipeline (after a
     * read time-out of {@link HttpTarget#REQUEST_TIMEOUT} and the HTTP codec); {@code failed} gets the cause when
     * it cannot connect.
     */
    static void connect(EventLoop loop, HttpTarget target, ChannelHandler handler,
            Consumer<Throwable> failed) {
        new Bootstrap().group(loop).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(
                                new ReadTimeoutHandler(HttpTarget.REQUEST_TIMEOUT.toSeconds(), TimeUnit.SECONDS),
                                new HttpClientCodec(), new HttpObjectAggregator(MAX_RESPONSE_BYTES), handler);
                    }
                })
                .connect(target.uri().getHost(), target.uri().getPort())
                .addListener(f -> {
                    if (!f.isSuccess()) {
                        failed.accept(f.cause());
                    }
                });
    }

    /** A {@code POST} of the next rows of {@code rows} to {@code target}. */
    static FullHttpRequest request(HttpTarget target, RowSource rows) {
        byte[] body = target.body(rows);
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST,
                target.pathAndQuery(), Unpooled.wrappedBuffer(body));
        request.headers()
                .set(HttpHeaderNames.HOST, target.uri().getAuthority())
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        if (target.authorization() != null) {
            request.headers().set(HttpHeaderNames.AUTHORIZATION, target.authorization());
        }
        return request;
    }

    /** One client: a connection, its rows and its counts. Confined to {@code loop}. */
    private final class Connection extends SimpleChannelInboundHandler<FullHttpResponse> {
        private final EventLoop loop;
        private final RowSource rows;
        private final Tally.Client counts;
        private long sentAt = -1; // -1: no request in flight
        private boolean done;

        Connection(EventLoop loop, RowSource rows, Tally.Client counts) {
            this.loop = loop;
            this.rows = rows;
            this.counts = counts;
        }

        @Override
        public boolean isSharable() {
            return true; // reused across reconnects, always on the same event loop
        }

        void connect() {
            NettyHttpLoad.connect(loop, target, this, this::failed);
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            sendNext(ctx);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            long now = time.nanos();
            int status = response.status().code();
            boolean more = counts.record(status, status >= 200 && status < 300 && Answers.reportErrors(
                    response.content()), target.rowsPerRequest(), sentAt, now);
            sentAt = -1;
            if (!more) {
                log.warn("a bench client reached its bound of recorded requests; it stops early");
                finish();
                ctx.close();
            } else {
                sendNext(ctx);
            }
        }

        private void sendNext(ChannelHandlerContext ctx) {
            if (done || time.nanos() >= window.end()) {
                finish();
                ctx.close();
                return;
            }
            FullHttpRequest request = request(target, rows);
            sentAt = time.nanos();
            ctx.writeAndFlush(request);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            firstTransportError.compareAndSet(null, cause.toString());
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            failed(null);
        }

        /** The connection closed or never opened: count the request in flight, reconnect if time is left. */
        private void failed(Throwable cause) {
            if (cause != null) {
                firstTransportError.compareAndSet(null, cause.toString());
            }
            if (sentAt >= 0) {
                counts.record(0, target.rowsPerRequest(), sentAt, time.nanos());
                sentAt = -1;
            }
            if (done || time.nanos() >= window.end()) {
                finish();
                return;
            }
            try {
                loop.schedule(this::connect, HttpTarget.TRANSPORT_ERROR_PAUSE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                finish(); // the load is being shut down
            }
        }

        private void finish() {
            if (!done) {
                done = true;
                stopped.countDown();
            }
        }
    }
}
