package io.sluice.http;

import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.undertow.io.Receiver;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.RequestTooBigException;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Request bodies and their limits, and answers: a body is received on the connection's I/O thread without
 * blocking, counted against {@code maxBodyBytes} as it arrives (413 in Neo4j's format, the rest read and thrown
 * away up to {@link #DRAIN_BOUND} so the client can read the answer), then handed to a {@link BodyHandler} on the
 * I/O thread or to a {@link BlockingHandler} on a virtual thread of its own, whose {@link Reply} goes back to the
 * I/O thread. Whatever a handler throws becomes an error reply: no request is left unanswered. Thread-safe.
 */
final class Bodies {
    private static final Logger log = LoggerFactory.getLogger(Bodies.class);

    /** The most of a refused request's body that is read and thrown away so its client can read the answer. */
    static final long DRAIN_BOUND = 256L << 20;

    /** A request handler: runs on a virtual thread, may block, returns the complete reply. */
    @FunctionalInterface
    interface BlockingHandler {
        Reply handle(HttpServerExchange ex, byte[] body) throws IOException;
    }

    /** What to do with a request's body once it has all been received, on the connection's I/O thread. */
    @FunctionalInterface
    interface BodyHandler {
        void received(HttpServerExchange ex, byte[] body);
    }

    private final long maxBodyBytes;
    private final Executor handlers;

    /** {@code handlers}: where blocking handlers run (a virtual thread per task). */
    Bodies(long maxBodyBytes, Executor handlers) {
        this.maxBodyBytes = maxBodyBytes;
        this.handlers = handlers;
    }

    /** For handlers that read no body: whatever is sent is read and thrown away (bounded), never buffered. */
    HttpHandler ignoringBody(BlockingHandler h) {
        return ex -> {
            if (ex.getRequestContentLength() == 0 || ex.isRequestComplete()) {
                dispatch(ex, h, new byte[0]);
                return;
            }
            discard(ex, e -> dispatch(e, h, new byte[0]), e -> {
                e.setPersistent(false);
                send(e, tooLarge("request body exceeds " + DRAIN_BOUND + " bytes"));
            }, (e, error) -> send(e, Reply.error(400, Neo4jError.invalid("cannot read the request: " + error.getMessage()))));
        };
    }

    /** Receives the whole body (within the limit), then {@code h} on the I/O thread. */
    HttpHandler receiving(BodyHandler h) {
        return ex -> {
            long declared = ex.getRequestContentLength();
            if (declared > maxBodyBytes) {
                drainThenSend(ex, tooLarge("request body of " + declared + " bytes exceeds the limit of " + maxBodyBytes));
                return;
            }
            if (declared < 0) {
                receiveChunked(ex, h);
                return;
            }
            ex.getRequestReceiver().receiveFullBytes(
                    h::received,
                    (e, error) -> send(e, error instanceof RequestTooBigException
                            ? tooLarge("request body exceeds the limit of " + maxBodyBytes + " bytes")
                            : Reply.error(400, Neo4jError.invalid("cannot read the request: " + error.getMessage()))));
        };
    }

    /** Receives the whole body, then runs {@code h} on a virtual thread. */
    HttpHandler blocking(BlockingHandler h) {
        return receiving((e, body) -> dispatch(e, h, body));
    }

    /**
     * A body of unknown length (chunked): counted as it arrives, so one over the limit gets 413 in Neo4j's
     * format instead of Undertow's reset at its own entity limit; the rest is read and discarded (up to
     * {@link #DRAIN_BOUND}) before the answer, so a client that writes all before reading gets it.
     */
    private void receiveChunked(HttpServerExchange ex, BodyHandler h) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        long[] discarded = {-1};
        ex.getRequestReceiver().receivePartialBytes((e, chunk, last) -> {
            if (discarded[0] >= 0 || body.size() + (long) chunk.length > maxBodyBytes) {
                discarded[0] = Math.max(0, discarded[0]) + chunk.length;
                if (last || discarded[0] > DRAIN_BOUND) {
                    e.getRequestReceiver().pause();
                    e.setPersistent(false);
                    send(e, tooLarge("request body exceeds the limit of " + maxBodyBytes + " bytes"));
                }
                return;
            }
            body.write(chunk, 0, chunk.length);
            if (last) {
                h.received(e, body.toByteArray());
            }
        }, (e, error) -> send(e, Reply.error(400, Neo4jError.invalid("cannot read the request: " + error.getMessage()))));
    }

    /** Runs the handler on a virtual thread of its own; its reply goes back on the connection's I/O thread. */
    void dispatch(HttpServerExchange ex, BlockingHandler h, byte[] body) {
        ex.dispatch(handlers, () -> {
            Reply r = run(h, ex, body);
            ex.getIoThread().execute(() -> send(ex, r));
        });
    }

    /** The handler's reply; whatever it throws becomes an error reply, so no request is left unanswered. */
    private static Reply run(BlockingHandler h, HttpServerExchange ex, byte[] body) {
        try {
            return h.handle(ex, body);
        } catch (IOException | UncheckedIOException e) {
            return Reply.error(400, Neo4jError.invalid("cannot process the request: " + e.getMessage()));
        } catch (RuntimeException | StackOverflowError e) {
            log.error("bug handling {} {}", ex.getRequestMethod(), ex.getRequestPath(), e);
            return Reply.error(500, Neo4jError.unknown("internal error: " + e));
        } catch (Error e) { // OutOfMemoryError and worse: still answer, then let it propagate
            ex.getIoThread().execute(() -> send(ex, Reply.error(500,
                    Neo4jError.unknown("internal error: " + e))));
            throw e;
        }
    }

    /**
     * Answers a request whose body has not been read, after reading and discarding that body (at most
     * {@link #DRAIN_BOUND} bytes), then closes the connection. A client that writes its whole body before it
     * reads (most do) would otherwise get a reset, not the answer. Past the bound it is closed at once.
     */
    static void drainThenSend(HttpServerExchange ex, Reply r) {
        ex.setPersistent(false);
        long declared = ex.getRequestContentLength();
        if (declared == 0 || declared > DRAIN_BOUND || ex.isRequestComplete()) {
            send(ex, r);
            return;
        }
        discard(ex, e -> send(e, r), e -> send(e, r), (e, error) -> send(e, r));
    }

    /**
     * Reads the request body and throws it away: {@code read} once it has all been read, {@code tooMuch} (reading
     * paused) past {@link #DRAIN_BOUND}, {@code failed} when it cannot be read.
     */
    private static void discard(HttpServerExchange ex, Consumer<HttpServerExchange> read,
            Consumer<HttpServerExchange> tooMuch, Receiver.ErrorCallback failed) {
        long[] seen = {0};
        ex.getRequestReceiver().receivePartialBytes((e, chunk, last) -> {
            seen[0] += chunk.length;
            if (last) {
                read.accept(e);
            } else if (seen[0] > DRAIN_BOUND) {
                e.getRequestReceiver().pause();
                tooMuch.accept(e);
            }
        }, failed);
    }

    static Reply tooLarge(String message) {
        return Reply.error(413, new Neo4jError(Neo4jStatus.Sluice.ENTITY_TOO_LARGE, message));
    }

    /** Sends {@code r} on the exchange (call on its I/O thread). */
    static void send(HttpServerExchange ex, Reply r) {
        ex.setStatusCode(r.status());
        ex.getResponseHeaders().put(Headers.CONTENT_TYPE, r.contentType());
        ex.getResponseHeaders().put(Headers.CONTENT_LENGTH, r.body().length);
        if (r.location() != null) {
            ex.getResponseHeaders().put(Headers.LOCATION, r.location());
        }
        if (r.retryAfterSeconds() > 0) {
            ex.getResponseHeaders().put(HttpString.tryFromString("Retry-After"), Long.toString(r.retryAfterSeconds()));
        }
        ex.getResponseSender().send(ByteBuffer.wrap(r.body()));
    }
}
