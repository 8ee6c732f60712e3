package io.sluice.bolt;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.OptionalSslHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.sluice.bolt.Handshake.Version;
import io.sluice.config.HostPort;
import io.sluice.front.Callers;
import io.sluice.front.Door;
import io.sluice.metrics.Metrics;
import io.sluice.session.Sessions;
import io.sluice.time.Time;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sluice's Bolt listener: the port the official drivers connect to ({@code bolt://}, {@code neo4j://}, with TLS
 * {@code bolt+s://}, {@code bolt+ssc://}). Netty reads and writes; each connection's handshake is answered on its
 * event loop ({@link Handshake}), then its messages are framed ({@link Chunks}), read ({@link PackStream},
 * {@link Messages}) and handed to its {@link BoltConnection}, whose worker (a virtual thread) runs the protocol
 * against the write path. Threads: {@code sluice-bolt-io-N} (the event loops, as many as configured), one
 * virtual {@code sluice-bolt-bolt-N} per connection, and virtual {@code sluice-bolt-write} threads for writes
 * waiting for admission. All are this front end's, stopped by {@link #close}.
 */
public final class BoltFrontEnd implements Door {
    private static final Logger log = LoggerFactory.getLogger(BoltFrontEnd.class);

    /**
     * Where and how to listen. {@code tls} null: plain Bolt only; else TLS, and plain Bolt too unless
     * {@code tlsRequired}. {@code maxMessageBytes}: the largest message (all its chunks) a client may send;
     * {@code limits}: PackStream's bounds on strings, collections and depth; {@code keepAlive}: how often a held
     * reply is interleaved with a NOOP.
     */
    public record Options(HostPort listen, SSLContext tls, boolean tlsRequired, int maxMessageBytes,
            PackStream.Limits limits, Duration keepAlive, int ioThreads) {}

    /** Every message name the metrics count, exported at zero from the start. */
    public static final List<String> MESSAGES = List.of("HELLO", "LOGON", "LOGOFF", "TELEMETRY", "GOODBYE", "RESET",
            "RUN", "PULL", "DISCARD", "BEGIN", "COMMIT", "ROLLBACK", "ROUTE", "UNREADABLE");

    /** The largest message before a connection has logged in: HELLO and LOGON are far smaller. */
    static final int LOGIN_MESSAGE_BYTES = 64 << 10;
    /**
     * The body of the answer to a plain HTTP {@code GET} on the Bolt port: Neo4j Community's, empty (its
     * {@code AuthConfigProvider} has no single sign-on to describe).
     */
    private static final byte[] DISCOVERY = new byte[0];
    /** How long a connection may take from its first byte to a successful login (Neo4j: no such bound). */
    static final Duration LOGIN_TIMEOUT = Duration.ofSeconds(30);

    private final Options options;
    private final BoltServices services;
    private final EventLoopGroup loops;
    private final ExecutorService workers;
    private final ExecutorService writes;
    private final SslContext ssl;
    private final Set<Channel> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong ids = new AtomicLong();
    private volatile Channel server;
    private volatile boolean accepting = true;

    BoltFrontEnd(Options options, BoltServices services, ExecutorService workers, ExecutorService writes) {
        this.options = options;
        this.services = services;
        this.workers = workers;
        this.writes = writes;
        this.loops = new MultiThreadIoEventLoopGroup(options.ioThreads(), new DefaultThreadFactory("sluice-bolt-io",
                true), NioIoHandler.newFactory());
        this.ssl = options.tls() == null ? null : new JdkSslContext(options.tls(), false, null,
                IdentityCipherSuiteFilter.INSTANCE, null, ClientAuth.NONE, null, false);
    }

    /**
     * A Bolt front end over {@code services}' parts; nothing listens until {@link #start}. {@code serverAgent}:
     * the Neo4j version behind sluice, as drivers require it ({@code Neo4j/2026.08.1}).
     */
    public static BoltFrontEnd create(Options options, Sessions sessions, Callers callers, Metrics metrics,
            String neo4jVersion, Time time) {
        ExecutorService workers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sluice-bolt-", 1)
                .factory());
        ExecutorService blocking = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sluice-bolt-write-", 1)
                .factory());
        String advertised = options.listen().host() + ":" + options.listen().port();
        BoltServices s = new BoltServices(sessions, callers, "Neo4j/" + neo4jVersion, options.keepAlive(), advertised,
                new Bookmarks(sessions::lastCommitted), time, blocking, new BoltServices.Meter(metrics), log);
        return new BoltFrontEnd(options, s, workers, blocking);
    }

    @Override
    public void start() {
        ServerBootstrap b = new ServerBootstrap().group(loops).channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 << 10, 1 << 20))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (!accepting) {
                            ch.close();
                            return;
                        }
                        open.add(ch);
                        ch.closeFuture().addListener(f -> open.remove(ch));
                        if (ssl != null) {
                            ch.pipeline().addLast("tls", options.tlsRequired() ? ssl.newHandler(ch.alloc())
                                    : new OptionalSslHandler(ssl));
                        }
                        // a connection that has not logged in by then goes, whatever it sent (a handshake, an HTTP
                        // request that never ends, a WebSocket upgrade to a path that is not Bolt's)
                        ch.eventLoop().schedule(() -> {
                            BoltConnection c = ch.attr(CONNECTION).get();
                            if (c == null || !c.loggedIn()) {
                                ch.close();
                            }
                        }, LOGIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                        // raw Bolt or Bolt over WebSocket, told apart by the first bytes, as Neo4j does
                        ch.pipeline().addLast("transport", Transports.selector(HandshakeDecoder::new,
                                () -> DISCOVERY, services.time()));
                    }
                });
        try {
            server = b.bind(options.listen().host(), options.listen().port()).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IllegalStateException("cannot listen for Bolt on " + options.listen() + ": " + e.getMessage(), e);
        }
    }

    /** Where it listens (its port, when 0 was asked for). */
    public InetSocketAddress address() {
        return server == null ? null : (InetSocketAddress) server.localAddress();
    }

    @Override
    public void stopAccepting() {
        accepting = false;
        Channel s = server;
        if (s != null) {
            s.close().syncUninterruptibly();
        }
    }

    @Override
    public boolean drain(Duration wait) {
        // connections stay open while the write path answers what they sent; a driver sees its writes answered
        // (or refused as the server shuts down) before the socket goes
        long deadline = services.time().nanos() + wait.toNanos();
        while (!open.isEmpty() && services.time().nanos() < deadline) {
            boolean busy = false;
            for (Channel c : open) {
                BoltConnection bc = c.attr(CONNECTION).get();
                busy |= bc != null && bc.busy();
            }
            if (!busy) {
                return true;
            }
            try {
                services.time().sleep(Duration.ofMillis(20));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return open.isEmpty();
    }

    @Override
    public void close() {
        stopAccepting();
        for (Channel c : List.copyOf(open)) {
            c.close();
        }
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdown();
        writes.shutdown();
        try {
            if (!workers.awaitTermination(5, TimeUnit.SECONDS)) {
                workers.shutdownNow();
            }
            writes.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String describe() {
        InetSocketAddress a = address();
        String where = a == null ? options.listen().toString() : a.getHostString() + ":" + a.getPort();
        return "Bolt " + (ssl == null ? "bolt://" : options.tlsRequired() ? "bolt+s://" : "bolt(+s)://") + where;
    }

    private static final AttributeKey<BoltConnection> CONNECTION =
            AttributeKey.valueOf("sluice.bolt.connection");

    /** Answers the handshake; then puts framing and the connection in its place. */
    private final class HandshakeDecoder extends ByteToMessageDecoder {
        private boolean manifest;

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            if (!manifest) {
                if (in.readableBytes() < Handshake.LENGTH) {
                    return;
                }
                byte[] b = new byte[Handshake.LENGTH];
                in.readBytes(b);
                switch (Handshake.answer(b)) {
                    case Handshake.Outcome.NotBolt n -> ctx.close();
                    case Handshake.Outcome.Chosen c when c.version() == null ->
                            ctx.writeAndFlush(Unpooled.wrappedBuffer(c.reply())).addListener(ChannelFutureListener.CLOSE);
                    case Handshake.Outcome.Chosen c -> {
                        ctx.writeAndFlush(Unpooled.wrappedBuffer(c.reply()));
                        upgrade(ctx, c.version());
                    }
                    case Handshake.Outcome.Manifest m -> {
                        ctx.writeAndFlush(Unpooled.wrappedBuffer(m.reply()));
                        manifest = true;
                    }
                }
                return;
            }
            int n = Math.min(in.readableBytes(), 14);
            if (n < 5) {
                return;
            }
            byte[] b = new byte[n];
            in.getBytes(in.readerIndex(), b);
            int[] consumed = {0};
            Version v;
            try {
                v = Handshake.choice(b, consumed);
            } catch (IndexOutOfBoundsException incomplete) {
                if (n == 14) {
                    ctx.close();
                }
                return;
            }
            in.skipBytes(consumed[0]);
            if (v == null) {
                ctx.close();
            } else {
                upgrade(ctx, v);
            }
        }

        private void upgrade(ChannelHandlerContext ctx, Version v) {
            Channel ch = ctx.channel();
            BoltConnection c = new BoltConnection(ch, v, services, "bolt-" + ids.incrementAndGet(),
                    String.valueOf(((InetSocketAddress) ch.remoteAddress()).getAddress().getHostAddress()),
                    options.limits());
            ch.attr(CONNECTION).set(c);
            // until its login, a connection may send small messages only (HELLO, LOGON): one that never logs in
            // holds at most that much, and is closed after LOGIN_TIMEOUT
            Chunks.Decoder chunks = new Chunks.Decoder(LOGIN_MESSAGE_BYTES);
            c.onLogin(() -> chunks.limit(options.maxMessageBytes()));
            ctx.pipeline().addAfter(ctx.name(), "chunks", chunks);
            ctx.pipeline().addAfter("chunks", "bolt", new MessageReader(c));
            try {
                workers.execute(c);
            } catch (RejectedExecutionException shuttingDown) {
                ch.close();
                return;
            }
            services.metrics().connectionOpened();
            ctx.pipeline().remove(this);
        }
    }

    /** Reads each whole message into a request and queues it on its connection. */
    private final class MessageReader extends ChannelInboundHandlerAdapter {
        private final BoltConnection connection;

        MessageReader(BoltConnection connection) {
            this.connection = connection;
        }

        /**
         * Queues the message's bytes: they are decoded on the connection's worker, not on this event loop that
         * other connections share, and a queue of bytes is bounded by what it holds. Only a RESET is recognised
         * here (its two bytes, {@code B0 0F}): it must interrupt what is queued before it.
         */
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            byte[] bytes = (byte[]) msg;
            connection.received(bytes, bytes.length == 2 && bytes[0] == (byte) 0xB0 && bytes[1] == Messages.RESET);
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            connection.signalWritable();
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            connection.closed();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof TooLongFrameException || cause.getCause() instanceof TooLongFrameException) {
                connection.unreadable(new Neo4jError(Neo4jStatus.Request.INVALID, cause.getMessage()));
                ctx.channel().config().setAutoRead(false);
                return;
            }
            ctx.close();
        }
    }
}
