package io.sluice.bench;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.timeout.ReadTimeoutException;
import io.sluice.bench.Scenario.RowSource;
import io.sluice.bench.Scenario.Workload;
import io.sluice.time.Time;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Open-loop HTTP load on Netty ({@code --rate}): requests due at a constant rate ({@link OpenLoop}, paced by one
 * named thread), sent on a pool of {@code clients} keep-alive connections, each latency from the request's due
 * time. The connections are {@link NettyHttpLoad}'s (same pipeline, same read time-out, same reconnect after a
 * transport failure), but send only what the pool hands them.
 *
 * <p>Each connection is pinned to one event loop, which alone touches its fields and its {@link Tally.Client};
 * the pacing thread reaches it only through {@link EventLoop#execute}. Owns its event-loop group and the pacing
 * thread, stopped by {@link #awaitStop} (pacer first, then the group), every wait bounded.
 */
final class OpenLoopLoad implements Load {
    private static final Logger log = LoggerFactory.getLogger(OpenLoopLoad.class);

    private final HttpTarget target;
    private final Workload workload;
    private final double ratePerSecond;
    private final Time time;
    private final AtomicReference<String> firstTransportError = new AtomicReference<>();
    private EventLoopGroup group;
    private CountDownLatch stopped;
    private Window window;
    private OpenLoop open;
    private Thread pacer;

    OpenLoopLoad(HttpTarget target, Workload workload, double ratePerSecond, Time time) {
        this.target = target;
        this.workload = workload;
        this.ratePerSecond = ratePerSecond;
        this.time = time;
    }

    @Override
    public void start(Tally tally) {
        window = tally.window();
        open = new OpenLoop(window, ratePerSecond, tally);
        group = new MultiThreadIoEventLoopGroup(NettyHttpLoad.IO_THREADS,
                Thread.ofPlatform().name("sluice-bench-open-netty-", 0).daemon(true).factory(),
                NioIoHandler.newFactory());
        stopped = new CountDownLatch(target.clients());
        for (int i = 0; i < target.clients(); i++) {
            new Connection(group.next(), workload.stream(i), tally.newClient()).connect();
        }
        pacer = Thread.ofPlatform().name("sluice-bench-open-loop").daemon(true).start(() -> open.pace(time));
    }

    @Override
    public void awaitStop() throws InterruptedException {
        try {
            long deadline = window.end() + HttpTarget.REQUEST_TIMEOUT.toNanos() + 5_000_000_000L;
            pacer.join(Duration.ofNanos(Math.max(1, deadline - time.nanos())));
            if (!stopped.await(Math.max(0, deadline - time.nanos()), TimeUnit.NANOSECONDS)) {
                log.warn("{} open-loop connections still open {} after the end; closing them", stopped.getCount(),
                        HttpTarget.REQUEST_TIMEOUT);
            }
        } finally {
            pacer.interrupt(); // a no-op unless it overran: then it stops and counts its backlog as not sent
            pacer.join(Duration.ofSeconds(5));
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
        String err = firstTransportError.get();
        if (err != null) {
            log.warn("transport errors during the run; the first: {}", err);
        }
    }

    /** One connection of the pool, its rows and its counts. Confined to {@code loop}, but for the two Slot calls. */
    private final class Connection extends SimpleChannelInboundHandler<FullHttpResponse> implements OpenLoop.Slot {
        private final EventLoop loop;
        private final RowSource rows;
        private final Tally.Client counts;
        private Channel channel; // null while not connected
        private boolean inFlight;
        private long intended;
        private long sentAt;
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
        public void send(long due) {
            try {
                loop.execute(() -> write(due));
            } catch (RejectedExecutionException e) {
                open.requeue(due); // the group is shutting down
            }
        }

        @Override
        public void close() {
            try {
                loop.execute(this::end);
            } catch (RejectedExecutionException e) {
                // the group is shutting down: the connection closes with it
            }
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            channel = ctx.channel();
            next(open.free(this));
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            if (!inFlight) {
                return; // nothing asked: ignore (a server does not answer unasked)
            }
            inFlight = false;
            long now = time.nanos();
            int status = response.status().code();
            long r = open.answered(this, counts, status, status >= 200 && status < 300
                    && Answers.reportErrors(response.content()), target.rowsPerRequest(), intended, sentAt, now);
            if (r == OpenLoop.STOP && !open.isOver()) {
                log.warn("an open-loop connection reached its bound of recorded requests; it stops early");
            }
            next(r);
        }

        private void next(long r) {
            if (r == OpenLoop.STOP) {
                end();
            } else if (r != OpenLoop.IDLE) {
                write(r);
            }
        }

        private void write(long due) {
            if (done || inFlight || channel == null || !channel.isActive()) {
                open.requeue(due); // closed under the pool's feet: another connection takes it
                return;
            }
            inFlight = true;
            intended = due;
            var request = NettyHttpLoad.request(target, rows);
            sentAt = time.nanos();
            channel.writeAndFlush(request);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (inFlight || !(cause instanceof ReadTimeoutException)) { // an idle connection timing out is no error
                firstTransportError.compareAndSet(null, cause.toString());
            }
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            failed(null);
        }

        /** Closed, or never connected: counts the request in flight (status 0), reconnects unless the run is over. */
        private void failed(Throwable cause) {
            if (cause != null) {
                firstTransportError.compareAndSet(null, cause.toString());
            }
            channel = null;
            open.gone(this);
            if (inFlight) {
                inFlight = false;
                counts.recordOpen(0, target.rowsPerRequest(), intended, sentAt, time.nanos());
            }
            if (done || open.isOver()) {
                finish();
                return;
            }
            try {
                loop.schedule(this::connect, HttpTarget.TRANSPORT_ERROR_PAUSE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                finish();
            }
        }

        private void end() {
            finish();
            if (channel != null) {
                channel.close();
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
