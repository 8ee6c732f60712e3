package io.sluice.http;

import static io.sluice.http.Meter.param;

import io.sluice.metrics.Metrics;
import io.sluice.vocab.Neo4jError;
import io.sluice.write.WritePath;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.protocol.http.HttpServerConnection;
import io.undertow.util.SameThreadExecutor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /db/{db}/write/{template}}, the hot route: decoded on the I/O thread that received it (bodies up to
 * {@link #INLINE_BODY}; larger ones on a virtual thread), in every mode. A sync write admitted at once is queued from
 * here and answered from the I/O thread when its batch commits, and an async write the journal takes at once when
 * its fsync returns, with no thread waiting for either; anything that must wait (admission full, direct's
 * transaction, Kafka's send) runs on a virtual thread ({@link WritePath#submit}). The outcome comes back to the I/O
 * thread through {@link IoReplies} and is encoded and sent there. This saved two thread hand-offs a sync write
 * (docs/BENCHMARKS.md, "Close to the limit"). Thread-safe.
 */
final class TemplateWrites {
    private static final Logger log = LoggerFactory.getLogger(TemplateWrites.class);

    /** The largest template body decoded on an I/O thread; larger ones would hold up its other connections. */
    static final int INLINE_BODY = 16 * 1024;

    private final Api api;
    private final WritePath writes;
    private final AuthGate gate;
    private final Meter meter;
    private final Bodies bodies;
    private final Executor blocking;
    private final IoReplies answers = new IoReplies();

    TemplateWrites(Api api, WritePath writes, AuthGate gate, Meter meter, Bodies bodies, Executor blocking) {
        this.api = api;
        this.writes = writes;
        this.gate = gate;
        this.meter = meter;
        this.bodies = bodies;
        this.blocking = blocking;
    }

    /** The body has all been received, on the I/O thread. */
    void received(HttpServerExchange ex, byte[] body) {
        if (body.length > INLINE_BODY) {
            bodies.dispatch(ex, this::blocking, body);
            return;
        }
        keepReadsRegistered(ex);
        ex.dispatch(SameThreadExecutor.INSTANCE, () -> {
            String name = param(ex, "template");
            String label = writes.template(name).isPresent() ? name : Metrics.UNKNOWN;
            Executor onIoThread = task -> answers.execute(ex.getIoThread(), task);
            CompletableFuture<Reply> reply;
            try {
                reply = api.templateSubmitted(param(ex, "db"), name, meter.mode(ex), body, gate.callerOf(ex),
                        blocking, onIoThread);
            } catch (RuntimeException | StackOverflowError e) {
                reply = CompletableFuture.failedFuture(e);
            }
            // on the I/O thread, always: templateSubmitted hands an outcome over to it, but a failed future passes
            // thenApplyAsync by on the thread that failed it, and an answer sent from another thread would race
            // keepReadsRegistered's listener with Undertow's resuming reads (runs at once when already there)
            reply.whenCompleteAsync((r, e) -> answer(ex, r, e, label), onIoThread);
        });
    }

    private void answer(HttpServerExchange ex, Reply r, Throwable e, String label) {
        try {
            if (e != null) {
                Throwable cause = e instanceof CompletionException && e.getCause() != null
                        ? e.getCause() : e;
                log.error("bug handling {} {}", ex.getRequestMethod(), ex.getRequestPath(), cause);
                Bodies.send(ex, meter.counted(ex, Reply.error(500, Neo4jError.unknown("internal error: " + cause)),
                        label));
            } else {
                Bodies.send(ex, meter.counted(ex, r, label));
            }
        } catch (RuntimeException bug) { // never leave the exchange open: its client would wait, and stop too
            log.error("bug answering {} {}", ex.getRequestMethod(), ex.getRequestPath(), bug);
            if (!ex.isResponseStarted()) {
                ex.setStatusCode(500);
            }
            ex.endExchange();
        }
    }

    /**
     * Keeps a connection in epoll while its template write is pending. Undertow takes a connection's socket out
     * of the selector once it has parsed a request's head ({@code suspendReads}, for a request with a body) and
     * puts it back when the exchange completes; a closed-loop client sends nothing in between, so for a write
     * answered after the I/O thread's next select (every write is: it waits for a commit or a force) that is two
     * {@code epoll_ctl} calls a request, 1.2-1.5 a request under the bench's load (docs/BENCHMARKS.md). Here, once
     * the body has all been read, reads are resumed with a listener that suspends them again if the socket
     * becomes readable before the answer (a pipelining client, or a close): then Undertow's own suspended state
     * is back, and the exchange's end resumes reads with Undertow's read listener, as it always does. Only on
     * plain HTTP connections with nothing buffered ahead; TLS keeps Undertow's handling (its channel does not
     * take reads resumed under it).
     */
    private static void keepReadsRegistered(HttpServerExchange ex) {
        if (ex.getConnection() instanceof HttpServerConnection c
                && c.getSslSession() == null && c.getExtraBytes() == null && ex.isRequestComplete()) {
            var source = c.getChannel().getSourceChannel();
            if (source.getReadListener() == null) {
                var socket = c.getOriginalSourceConduit();
                // whatever becomes readable waits for the exchange's end: reads suspended, as Undertow had them
                source.setReadListener(readable -> socket.suspendReads());
                socket.resumeReads();
            }
        }
    }

    /** A body too large for the I/O thread, on a virtual thread. */
    private Reply blocking(HttpServerExchange ex, byte[] body) {
        String name = param(ex, "template");
        return meter.counted(ex, api.template(param(ex, "db"), name, meter.mode(ex), body, gate.callerOf(ex)),
                writes.template(name).isPresent() ? name : Metrics.UNKNOWN);
    }
}
