package io.sluice.bolt;

import io.netty.channel.Channel;
import io.sluice.bolt.Handshake.Version;
import io.sluice.bolt.Messages.Goodbye;
import io.sluice.bolt.Messages.Request;
import io.sluice.bolt.Messages.Reset;
import io.sluice.vocab.GraphException;
import io.sluice.vocab.Neo4jError;
import io.sluice.write.Outcome;
import java.io.ByteArrayOutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One Bolt connection after its handshake: its inbox, its worker and its replies; what the messages mean is
 * {@link BoltProtocol}'s.
 *
 * <h2>Design</h2>
 * <ul>
 *   <li><b>Two threads, one queue.</b> The connection's Netty event loop {@link #received queues} each whole
 *       message; the worker (a virtual thread) decodes and handles them one at a time, in order, and may block (a
 *       credentials check, a statement in an explicit transaction, a write waiting for its batch's commit).
 *       Replies accumulate in one buffer that is written when the queue is empty: a driver's pipelined RUN and
 *       PULL are answered in one write. A queue past {@link #HIGH_WATER} messages or {@link #HIGH_WATER_BYTES}
 *       stops reading from the socket until it drains.</li>
 *   <li><b>Keep-alive.</b> While a reply waits longer than the keep-alive interval (a step on
 *       {@code sluice-bolt-write-N}, or an auto-commit write's future, which the applier completes), NOOP chunks
 *       keep the driver's read timeout (the {@code connection.recv_timeout_seconds} hint) from firing.</li>
 *   <li><b>RESET</b> is seen by the event loop first: every message queued before it is answered IGNORED (what
 *       Neo4j calls the interrupted state), then the protocol handles the RESET. A write already handed to the
 *       write path cannot be called back; its true outcome is answered.</li>
 *   <li><b>A bug</b> (an exception that is not the client's doing) is answered with a FAILURE before the
 *       connection closes, rather than a silent close; the connection's transaction is rolled back as its
 *       client's going.</li>
 * </ul>
 */
final class BoltConnection implements Runnable, Wire {
    /** Queued messages past which the socket is not read until the queue drains to {@link #LOW_WATER}. */
    static final int HIGH_WATER = 256;
    static final int LOW_WATER = 32;
    /**
     * Queued bytes past which the socket is not read either: with messages of up to {@code bolt.max_message}
     * each, a count alone would let one connection queue hundreds of them.
     */
    static final long HIGH_WATER_BYTES = 16L << 20;

    /** A message that could not be read: {@code fatal} closes the connection after the FAILURE. */
    record Unreadable(Neo4jError error, boolean fatal) {}

    private static final Object CLOSED = new Object();

    private final Channel channel;
    private final Version version;
    private final BoltServices services;
    private final String id;
    private final LinkedBlockingQueue<Queued> inbox = new LinkedBlockingQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicInteger interrupts = new AtomicInteger();
    private final Outbox outbox;
    /** Where replies are written (the outbox's buffer). */
    private final ByteArrayOutputStream out;
    private final PackStream.Limits limits;
    /** Messages received and not yet answered (queued, or being handled): what a drain waits for. */
    private final AtomicInteger unanswered = new AtomicInteger();
    private volatile boolean loggedIn;
    private volatile Runnable onLogin = () -> { };
    private final BoltProtocol protocol; // confined to the worker

    BoltConnection(Channel channel, Version version, BoltServices services, String id, String client,
            PackStream.Limits limits) {
        this.limits = limits;
        this.channel = channel;
        this.version = version;
        this.services = services;
        this.id = id;
        this.outbox = new Outbox(channel);
        this.out = outbox.buffer();
        this.protocol = new BoltProtocol(version, services, id, client, this);
    }

    /**
     * On the event loop: a whole message's bytes, in the order it arrived ({@code reset}: it is a RESET, which
     * interrupts what is queued before it). Decoded on the worker.
     */
    void received(byte[] message, boolean reset) {
        if (reset) {
            interrupts.incrementAndGet();
        }
        enqueue(message, message.length);
    }

    /** On the event loop: the bytes cannot be framed (a message over the limit): FAILURE, then closed. */
    void unreadable(Neo4jError error) {
        channel.config().setAutoRead(false);
        enqueue(new Unreadable(error, true), 0);
    }

    private void enqueue(Object message, int bytes) {
        unanswered.incrementAndGet();
        queuedBytes.addAndGet(bytes);
        inbox.add(new Queued(message, bytes));
        if (inbox.size() > HIGH_WATER || queuedBytes.get() > HIGH_WATER_BYTES) {
            channel.config().setAutoRead(false);
        }
    }

    /** Runs {@code action} (on the worker) once the connection has logged in: it may then send large messages. */
    void onLogin(Runnable action) {
        this.onLogin = action;
    }

    /** Whether the connection has logged in (its login timeout does not apply). */
    boolean loggedIn() {
        return loggedIn;
    }

    /** A message in the inbox, with its size on the wire (what the inbox's byte bound counts). */
    private record Queued(Object message, int bytes) {}

    /** Whether a message is being handled or waits: what a drain waits for. */
    boolean busy() {
        return unanswered.get() > 0;
    }

    /** On the event loop: the socket closed. The worker rolls back what is open and ends. */
    void closed() {
        inbox.add(new Queued(CLOSED, 0));
        signalWritable();
    }

    /** On the event loop: the socket's writability changed. */
    void signalWritable() {
        outbox.signalWritable();
    }

    @Override
    public void run() {
        try {
            while (protocol.state() != BoltProtocol.State.DEFUNCT) {
                Queued q = inbox.poll();
                if (q == null) {
                    flush();
                    // the queue is empty: whatever stopped the reading (its size, its bytes) is gone
                    if (!channel.config().isAutoRead()) {
                        channel.config().setAutoRead(true);
                    }
                    q = inbox.take();
                }
                Object m = q.message();
                if (m == CLOSED) {
                    break;
                }
                long bytes = queuedBytes.addAndGet(-q.bytes());
                if (!channel.config().isAutoRead() && inbox.size() <= LOW_WATER && bytes <= HIGH_WATER_BYTES / 4) {
                    channel.config().setAutoRead(true);
                }
                try {
                    handle(m);
                } finally {
                    unanswered.decrementAndGet();
                }
                if (out.size() > Wire.FLUSH_BYTES) {
                    flush();
                }
            }
            flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            // a bug of sluice's, not the client's: say so before the connection goes, rather than vanish
            services.log().warn("Bolt connection {} failed: {}", id, e.toString(), e);
            try {
                Messages.failure(Neo4jError.unknown("sluice failed on this connection: " + e), version, out);
                flush();
            } catch (InterruptedException | RuntimeException ignored) {
                Thread.currentThread().interrupt();
            }
        } finally {
            protocol.closed();
            channel.close();
            services.metrics().connectionClosed();
        }
    }

    private void handle(Object queued) throws InterruptedException {
        Object m = queued instanceof byte[] b ? decode(b) : queued;
        if (m instanceof Unreadable u) {
            services.metrics().message("UNREADABLE");
            protocol.unreadable(u.error(), u.fatal());
            return;
        }
        Request r = (Request) m;
        services.metrics().message(r.name());
        if (r instanceof Reset) {
            interrupts.decrementAndGet();
        } else if ((interrupts.get() > 0 && !protocol.loggingIn()) || protocol.state() == BoltProtocol.State.FAILED) {
            // a RESET queued behind this message interrupts it, but never the login: before it there is nothing to
            // interrupt, and a HELLO ignored would leave the connection with no way forward
            if (!(r instanceof Goodbye)) {
                Messages.ignored(out);
                return;
            }
        }
        protocol.handle(r);
    }

    /** A message's bytes as a request, or why they are not one. */
    private Object decode(byte[] bytes) {
        Object value;
        try {
            PackStream.Unpacker u = new PackStream.Unpacker(bytes, limits);
            value = u.unpack();
            if (!u.done()) {
                throw new PackStream.PackStreamException("a message is one value; bytes follow it");
            }
        } catch (PackStream.PackStreamException e) {
            return new Unreadable(Neo4jError.invalid("cannot read the message: " + e.getMessage()), true);
        }
        try {
            return Messages.read(value, version, bytes.length);
        } catch (Messages.Invalid e) {
            return new Unreadable(Neo4jError.invalid(e.getMessage()), e.fatal);
        }
    }

    @Override
    public ByteArrayOutputStream out() {
        return out;
    }

    @Override
    public void markLoggedIn() {
        if (!loggedIn) {
            loggedIn = true;
            onLogin.run();
        }
    }

    /** Waits for {@code f}, writing a NOOP each keep-alive interval it takes. */
    @Override
    public Outcome await(CompletableFuture<Outcome> f) throws InterruptedException {
        try {
            return waitWithNoops(f);
        } catch (ExecutionException e) {
            return new Outcome.Failed(Neo4jError.unknown(String.valueOf(e.getCause())));
        }
    }

    /**
     * Runs {@code call} where it may block, while this worker keeps the driver's read timeout from firing (a
     * NOOP each keep-alive interval): what is buffered goes out first.
     */
    @Override
    public <T> T blocking(Call<T> call) throws GraphException, InterruptedException {
        CompletableFuture<T> f = new CompletableFuture<>();
        services.blocking().execute(() -> {
            try {
                f.complete(call.call());
            } catch (GraphException | RuntimeException | Error e) {
                f.completeExceptionally(e);
            }
        });
        try {
            return waitWithNoops(f);
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case GraphException se -> throw se;
                case RuntimeException re -> throw re;
                case Error err -> throw err;
                default -> throw new IllegalStateException(e.getCause());
            }
        }
    }

    private <T> T waitWithNoops(CompletableFuture<T> f) throws InterruptedException, ExecutionException {
        if (!f.isDone()) {
            flush();
        }
        long every = services.keepAlive().toNanos();
        while (true) {
            try {
                return f.get(every, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                out.writeBytes(Chunks.NOOP);
                flush();
            }
        }
    }

    @Override
    public void flush() throws InterruptedException {
        outbox.flush();
    }
}
