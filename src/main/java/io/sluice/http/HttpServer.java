package io.sluice.http;

import io.sluice.config.SluiceConfig;
import io.sluice.metrics.History;
import io.sluice.metrics.Metrics;
import io.sluice.security.Authenticator;
import io.sluice.sink.EmbeddedNeo4j.HostPort;
import io.sluice.sink.Neo4jError;
import io.sluice.sink.Neo4jStatus;
import io.sluice.write.Mode;
import io.sluice.time.Time;
import io.sluice.write.Outcome;
import io.sluice.write.WritePath;
import io.undertow.Handlers;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.RoutingHandler;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.Methods;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API on Undertow. An I/O thread parses the request and receives its body without blocking; the
 * request is then dispatched to a virtual thread of its own, which blocks on the write path (code read top to
 * bottom, Helidon style) and produces a {@link Reply}; the reply is sent back on the connection's I/O thread.
 * Template writes take a shorter way (decoded and submitted on the I/O thread, answered from it: see
 * {@code templateOnIoThread}).
 * Reading and writing on the I/O thread matters: sending from the virtual thread cost a selector wake-up per
 * response, and Undertow's per-thread buffer caches never get reused by one-shot virtual threads (a fresh
 * zeroed direct buffer per request): together ~25% of the CPU in the sync-mode profile (docs/BENCHMARKS.md).
 * Owns the Undertow server and the virtual-thread executor; {@link #close} refuses new requests with 503,
 * waits (bounded) for in-flight ones, then stops.
 */
public final class HttpServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HttpServer.class);

    private final Undertow undertow;
    /** When the request's headers had been read ({@link Time#nanos}): its latency runs from here to its answer. */
    private static final io.undertow.util.AttachmentKey<Long> ARRIVED =
            io.undertow.util.AttachmentKey.create(Long.class);
    private final AtomicLong inFlight = new AtomicLong();
    private final Object idle = new Object();
    private volatile boolean stopping;
    private final ExecutorService handlers;
    private final IoReplies answers = new IoReplies();
    private final InetSocketAddress address;
    private final Api api;
    private final QueryTransactionsApi transactions;
    private final ClassicTransactionsApi classic;
    private final WritePath writes;
    private final Metrics metrics;
    private final Time time;
    private final long maxBodyBytes;
    private final Supplier<String> scrape;
    private final History history;
    private final AuthGate gate;
    private final InetSocketAddress httpsAddress;
    /** {@code POST /db/{db}/write/{template}}: routed by hand ({@link #templateRoute}) and by the router alike. */
    private final HttpHandler templateWrite;

    /**
     * Where to listen and who may come in. {@code http} and {@code https} (with its {@code tls} context) are
     * listeners, either may be null but not both; {@code auth} checks credentials on every endpoint but
     * {@code /} and {@code /health} (and {@code /metrics} when {@code metricsOpen}); {@code access} says what
     * each user may send. {@code bolt} ({@code host:port}, or null) and {@code neo4jVersion} go in the discovery
     * document at {@code /}. {@code ioThreads}: Undertow's I/O threads, which parse and answer (see
     * {@link SluiceConfig.Http}).
     */
    public record Options(HostPort http, HostPort https, SSLContext tls, long maxBodyBytes, Authenticator auth,
            SluiceConfig.Access access, SluiceConfig.Modes modes, boolean metricsOpen, String bolt,
            String neo4jVersion, int ioThreads) {
        public Options {
            if (ioThreads < 1) {
                throw new IllegalArgumentException("ioThreads must be >= 1, got " + ioThreads);
            }
            if (http == null && https == null) {
                throw new IllegalArgumentException("neither an HTTP nor an HTTPS listener");
            }
            if (https != null && tls == null) {
                throw new IllegalArgumentException("an HTTPS listener needs a TLS context");
            }
        }
    }

    public HttpServer(Options o, WritePath writes, Metrics metrics, Supplier<String> scrape, History history,
            Time time) {
        this.history = history;
        this.time = time;
        this.writes = writes;
        this.api = new Api(writes, time);
        this.transactions = new QueryTransactionsApi(writes, time);
        this.classic = new ClassicTransactionsApi(writes);
        this.metrics = metrics;
        this.scrape = scrape;
        this.maxBodyBytes = o.maxBodyBytes();
        this.handlers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sluice-http-", 0).factory());
        this.gate = new AuthGate(o.auth(), o.access(), o.modes(), handlers);
        String version = HttpServer.class.getPackage().getImplementationVersion();
        Discovery discovery = new Discovery(o.bolt(), o.neo4jVersion(), version == null ? "dev" : version);
        this.templateWrite = guarded(receiving(this::templateOnIoThread));
        RoutingHandler routes = Handlers.routing()
                .post("/db/{db}/tx/commit", blocking(this::txCommit, true))
                .post("/db/{db}/tx", blocking(this::classicOpen, true))
                .post("/db/{db}/tx/{id}", blocking(this::classicRun, true))
                .post("/db/{db}/tx/{id}/commit", blocking(this::classicCommit, true))
                .delete("/db/{db}/tx/{id}", blocking(this::classicRollback, true))
                .post("/db/{db}/query/v2", blocking(this::queryV2, true))
                .post("/db/{db}/query/v2/tx", blocking(this::txOpen, true))
                .post("/db/{db}/query/v2/tx/{id}", blocking(this::txRun, true))
                .post("/db/{db}/query/v2/tx/{id}/commit", blocking(this::txCommitExplicit, true))
                .delete("/db/{db}/query/v2/tx/{id}", blocking(this::txRollback, true))
                .post("/db/{db}/write/{template}", templateWrite)
                .get("/db/{db}/applied", blocking(this::applied, true))
                .post("/db/{db}/warmup", blocking(this::warmUp, true))
                .get("/db/{db}/dead-letters", blocking(this::deadLetters, true))
                .get("/health", blocking(this::health, false))
                .get("/metrics", blocking(this::metrics, !o.metricsOpen()))
                .get("/status", blocking(this::status, !o.metricsOpen()))
                .get("/", blocking((ex, body) -> discovery.answer(ex), false))
                .get("/dashboard/{file}", blocking((ex, body) -> Dashboard.file(ex, param(ex, "file")), false))
                .setFallbackHandler(ex -> send(ex, Reply.errorsOnly(404, Neo4jError.invalid(
                        "Not Found: no such endpoint: " + ex.getRequestMethod() + " " + ex.getRequestPath()))))
                .setInvalidMethodHandler(ex -> {
                    // the writes are POST, everything else GET (see the routes above)
                    String path = ex.getRequestPath();
                    boolean post = path.matches(".*/(tx|tx/[^/]+/commit|query/v2|query/v2/tx|query/v2/tx/[^/]+/commit|write/[^/]+)");
                    boolean tx = path.matches(".*/(query/v2/)?tx/[^/]+") && !path.endsWith("/tx/commit");
                    ex.getResponseHeaders().put(Headers.ALLOW, tx ? "POST, DELETE" : post ? "POST" : "GET");
                    send(ex, Reply.errorsOnly(405, Neo4jError.invalid("Method Not Allowed: " + ex.getRequestMethod()
                            + " is not allowed on " + ex.getRequestPath())));
                });
        HttpHandler root = ex -> admit(ex, routes);
        Undertow.Builder builder = Undertow.builder();
        if (o.http() != null) {
            builder.addHttpListener(o.http().port(), o.http().host());
        }
        if (o.https() != null) {
            builder.addHttpsListener(o.https().port(), o.https().host(), o.tls());
        }
        this.undertow = builder
                .setIoThreads(o.ioThreads())
                .setWorkerThreads(2) // unused: handlers run on virtual threads
                .setServerOption(UndertowOptions.ALWAYS_SET_KEEP_ALIVE, true)
                // above sluice's own limit, which answers 413 first, by the bound of what is drained after one
                // (Undertow's own limit resets the connection; a chunked request's is fixed when it arrives)
                .setServerOption(UndertowOptions.MAX_ENTITY_SIZE, o.maxBodyBytes() + DRAIN_BOUND)
                .setHandler(root)
                .build();
        try {
            undertow.start();
        } catch (RuntimeException e) { // the port is taken, say: leave no worker or executor behind
            try {
                undertow.stop();
            } catch (RuntimeException alsoFailed) {
                e.addSuppressed(alsoFailed);
            }
            handlers.shutdownNow();
            throw new IllegalStateException("cannot listen on " + (o.http() != null ? o.http() : "")
                    + (o.https() != null ? " " + o.https() : "") + ": " + e.getMessage(), e);
        }
        InetSocketAddress plain = null;
        InetSocketAddress secure = null;
        for (var listener : undertow.getListenerInfo()) {
            if (listener.getProtcol().equals("https")) {
                secure = (InetSocketAddress) listener.getAddress();
            } else {
                plain = (InetSocketAddress) listener.getAddress();
            }
        }
        this.address = plain;
        this.httpsAddress = secure;
        if (plain != null) {
            log.debug("HTTP API on http://{}:{}/ (authentication {})", plain.getHostString(), plain.getPort(),
                    gate.enabled() ? "on" : "OFF");
        }
        if (secure != null) {
            log.debug("HTTPS API on https://{}:{}/ (authentication {})", secure.getHostString(), secure.getPort(),
                    gate.enabled() ? "on" : "OFF");
        }
    }

    /** The plain HTTP listener's address, or null when there is none (HTTPS only). */
    public InetSocketAddress address() {
        return address;
    }

    /** The HTTPS listener's address, or null. */
    public InetSocketAddress httpsAddress() {
        return httpsAddress;
    }

    /** A request handler: runs on a virtual thread, may block, returns the complete reply. */
    @FunctionalInterface
    private interface BlockingHandler {
        Reply handle(HttpServerExchange ex, byte[] body) throws IOException;
    }

    /** What to do with a request's body once it has all been received, on the connection's I/O thread. */
    @FunctionalInterface
    private interface BodyHandler {
        void received(HttpServerExchange ex, byte[] body);
    }

    /** {@code h} behind the body limits and, when {@code guarded}, the authentication gate. */
    private HttpHandler blocking(BlockingHandler h, boolean guarded) {
        if (!guarded) {
            return ignoringBody(h); // the open endpoints read no body: nobody buffers one without credentials
        }
        return guarded(receiving((e, body) -> dispatch(e, h, body)));
    }

    /** {@code receive} behind the authentication gate. */
    private HttpHandler guarded(HttpHandler receive) {
        return ex -> gate.check(ex, e -> {
            try {
                receive.handleRequest(e);
            } catch (Exception bug) {
                log.error("bug receiving {} {}", e.getRequestMethod(), e.getRequestPath(), bug);
                send(e, Reply.error(500, Neo4jError.unknown("internal error: " + bug)));
            }
        });
    }

    /** For handlers that read no body: whatever is sent is read and thrown away (bounded), never buffered. */
    private HttpHandler ignoringBody(BlockingHandler h) {
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

    private HttpHandler receiving(BodyHandler h) {
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
                    (e, error) -> send(e, error instanceof io.undertow.server.RequestTooBigException
                            ? tooLarge("request body exceeds the limit of " + maxBodyBytes + " bytes")
                            : Reply.error(400, Neo4jError.invalid("cannot read the request: " + error.getMessage()))));
        };
    }

    /**
     * A body of unknown length (chunked): counted as it arrives, so one over the limit gets 413 in Neo4j's
     * format instead of Undertow's reset at its own entity limit; the rest is read and discarded (up to
     * {@link #DRAIN_BOUND}) before the answer, so a client that writes all before reading gets it.
     */
    private void receiveChunked(HttpServerExchange ex, BodyHandler h) {
        java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream();
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
    private void dispatch(HttpServerExchange ex, BlockingHandler h, byte[] body) {
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

    /** The most of a refused request's body that is read and thrown away so its client can read the answer. */
    static final long DRAIN_BOUND = 256L << 20;

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
    private static void discard(HttpServerExchange ex, java.util.function.Consumer<HttpServerExchange> read,
            java.util.function.Consumer<HttpServerExchange> tooMuch,
            io.undertow.io.Receiver.ErrorCallback failed) {
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

    private static Reply tooLarge(String message) {
        return Reply.error(413, new Neo4jError(Neo4jStatus.Sluice.ENTITY_TOO_LARGE, message));
    }

    private static String param(HttpServerExchange ex, String name) {
        Deque<String> v = ex.getQueryParameters().get(name);
        return v == null || v.isEmpty() ? null : v.getFirst();
    }

    private Reply txCommit(HttpServerExchange ex, byte[] body) {
        return counted(ex, api.txCommit(param(ex, "db"), mode(ex), body, gate.callerOf(ex).access()), Metrics.CYPHER);
    }

    private Reply queryV2(HttpServerExchange ex, byte[] body) {
        QueryMedia media = QueryMedia.of(ex.getRequestHeaders().getFirst(Headers.CONTENT_TYPE),
                ex.getRequestHeaders().getFirst(Headers.ACCEPT));
        return counted(ex, api.queryV2(param(ex, "db"), mode(ex), body, gate.callerOf(ex).access(), media),
                Metrics.CYPHER);
    }

    private Reply classicOpen(HttpServerExchange ex, byte[] body) {
        AuthGate.Caller c = gate.callerOf(ex);
        return counted(ex, classic.open(param(ex, "db"), Discovery.base(ex), body,
                ex.getRequestHeaders().getFirst("access-mode"), owner(c), c.access()), Metrics.CYPHER);
    }

    private Reply classicRun(HttpServerExchange ex, byte[] body) {
        return counted(ex, classic.run(param(ex, "db"), Discovery.base(ex), param(ex, "id"), body,
                owner(gate.callerOf(ex))), Metrics.CYPHER);
    }

    private Reply classicCommit(HttpServerExchange ex, byte[] body) {
        return counted(ex, classic.commit(param(ex, "db"), Discovery.base(ex), param(ex, "id"), body,
                owner(gate.callerOf(ex))), Metrics.CYPHER);
    }

    private Reply classicRollback(HttpServerExchange ex, byte[] body) {
        return counted(ex, classic.rollback(param(ex, "db"), param(ex, "id"), owner(gate.callerOf(ex))), Metrics.CYPHER);
    }

    private Reply txOpen(HttpServerExchange ex, byte[] body) {
        AuthGate.Caller c = gate.callerOf(ex);
        return counted(ex, transactions.open(param(ex, "db"), body, media(ex), owner(c), c.access()), Metrics.CYPHER);
    }

    private Reply txRun(HttpServerExchange ex, byte[] body) {
        return counted(ex, transactions.run(param(ex, "db"), param(ex, "id"), body, media(ex),
                owner(gate.callerOf(ex))), Metrics.CYPHER);
    }

    private Reply txCommitExplicit(HttpServerExchange ex, byte[] body) {
        return counted(ex, transactions.commit(param(ex, "db"), param(ex, "id"), body, media(ex),
                owner(gate.callerOf(ex))), Metrics.CYPHER);
    }

    private Reply txRollback(HttpServerExchange ex, byte[] body) {
        return counted(ex, transactions.rollback(param(ex, "db"), param(ex, "id"), owner(gate.callerOf(ex))),
                Metrics.CYPHER);
    }

    private static QueryMedia media(HttpServerExchange ex) {
        return QueryMedia.of(ex.getRequestHeaders().getFirst(Headers.CONTENT_TYPE),
                ex.getRequestHeaders().getFirst(Headers.ACCEPT));
    }

    /** Whose transaction it is: the authenticated user (everyone is one anonymous owner when auth is off). */
    private static Object owner(AuthGate.Caller c) {
        return c.user() == null ? "" : c.user();
    }

    /**
     * A template write, decoded on the I/O thread that received it (bodies up to {@link #INLINE_BODY}; larger ones
     * on a virtual thread), in every mode: a sync write admitted at once is queued from here and answered from the
     * I/O thread when its batch commits, and an async write the journal takes at once when its fsync returns, with
     * no thread waiting for either; anything that must wait (admission full, direct's transaction, Kafka's send)
     * runs on a virtual thread ({@link WritePath#submit}). The outcome comes
     * back to the I/O thread through {@link IoReplies} and is encoded and sent there. This saved two thread
     * hand-offs a sync write (docs/BENCHMARKS.md, "Close to the limit").
     */
    private void templateOnIoThread(HttpServerExchange ex, byte[] body) {
        if (body.length > INLINE_BODY) {
            dispatch(ex, this::template, body);
            return;
        }
        keepReadsRegistered(ex);
        ex.dispatch(io.undertow.util.SameThreadExecutor.INSTANCE, () -> {
            String name = param(ex, "template");
            String label = writes.template(name).isPresent() ? name : Metrics.UNKNOWN;
            java.util.concurrent.Executor onIoThread = task -> answers.execute(ex.getIoThread(), task);
            java.util.concurrent.CompletableFuture<Reply> reply;
            try {
                reply = api.templateSubmitted(param(ex, "db"), name, mode(ex), body, gate.callerOf(ex).access(),
                        handlers, onIoThread);
            } catch (RuntimeException | StackOverflowError e) {
                reply = java.util.concurrent.CompletableFuture.failedFuture(e);
            }
            // on the I/O thread, always: templateSubmitted hands an outcome over to it, but a failed future passes
            // thenApplyAsync by on the thread that failed it, and an answer sent from another thread would race
            // keepReadsRegistered's listener with Undertow's resuming reads (runs at once when already there)
            reply.whenCompleteAsync((r, e) -> {
                try {
                    if (e != null) {
                        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                                ? e.getCause() : e;
                        log.error("bug handling {} {}", ex.getRequestMethod(), ex.getRequestPath(), cause);
                        send(ex, counted(ex, Reply.error(500, Neo4jError.unknown("internal error: " + cause)), label));
                    } else {
                        send(ex, counted(ex, r, label));
                    }
                } catch (RuntimeException bug) { // never leave the exchange open: its client would wait, and stop too
                    log.error("bug answering {} {}", ex.getRequestMethod(), ex.getRequestPath(), bug);
                    if (!ex.isResponseStarted()) {
                        ex.setStatusCode(500);
                    }
                    ex.endExchange();
                }
            }, onIoThread);
        });
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
        if (ex.getConnection() instanceof io.undertow.server.protocol.http.HttpServerConnection c
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

    /** The largest template body decoded on an I/O thread; larger ones would hold up its other connections. */
    static final int INLINE_BODY = 16 * 1024;

    private Reply template(HttpServerExchange ex, byte[] body) {
        String name = param(ex, "template");
        return counted(ex, api.template(param(ex, "db"), name, mode(ex), body, gate.callerOf(ex).access()),
                writes.template(name).isPresent() ? name : Metrics.UNKNOWN);
    }

    /** The request's {@code ?mode=}, or its caller's default mode (config {@code modes}). */
    private String mode(HttpServerExchange ex) {
        String text = param(ex, "mode");
        return text == null || text.isEmpty() ? gate.callerOf(ex).mode().label() : text;
    }

    /** Reports the answered request to the metrics; {@code template} as {@link Metrics#request} takes it. */
    private Reply counted(HttpServerExchange ex, Reply r, String template) {
        Long start = ex.getAttachment(ARRIVED);
        metrics.request(modeLabel(mode(ex)), template, r.status(), r.rows(), start == null ? 0 : time.nanos() - start);
        return r;
    }

    /** The {@code mode} label: one of the modes, or {@code invalid}, never the client's text (bounded series). */
    static String modeLabel(String text) {
        try {
            return Mode.parse(text).label();
        } catch (IllegalArgumentException e) {
            return "invalid";
        }
    }

    private Reply applied(HttpServerExchange ex, byte[] body) {
        return counted(ex, api.applied(param(ex, "db"), param(ex, "partition"), param(ex, "offset"),
                param(ex, "wait")), null);
    }

    /** {@code POST /db/{db}/warmup}: 202, the warm-up started (or already running), /health WARMING until done. */
    private Reply warmUp(HttpServerExchange ex, byte[] body) {
        if (!writes.database().equals(param(ex, "db"))) {
            return Reply.errorsOnly(404, Api.databaseNotFound(param(ex, "db"), writes.database()));
        }
        return Reply.json(202, writes.warmUp());
    }

    private Reply deadLetters(HttpServerExchange ex, byte[] body) throws IOException {
        return api.deadLetters(param(ex, "db"), param(ex, "from"), param(ex, "limit"));
    }

    /**
     * Open, for load balancers: the status (200 when UP, else 503) to anyone; the whole snapshot only to a
     * caller whose credentials are good (or to everyone when authentication is off).
     */
    private Reply health(HttpServerExchange ex, byte[] body) {
        var h = writes.health();
        int status = "UP".equals(h.get("status")) ? 200 : 503;
        if (!gate.enabled() || gate.knows(ex)) {
            return Reply.json(status, h);
        }
        return Reply.json(status, Map.of("status", h.get("status")));
    }

    /**
     * {@code GET /status[?since=EPOCH_MILLIS]}: the health snapshot and the last minutes of this process's metrics
     * ({@link History}), for the dashboard and {@code sluice status}; credentials as for {@code /metrics}.
     */
    private Reply status(HttpServerExchange ex, byte[] body) {
        long since;
        String text = param(ex, "since");
        try {
            since = text == null || text.isBlank() ? 0 : Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            return Reply.errorsOnly(400, Neo4jError.invalid("since must be epoch milliseconds, got '" + text + "'"));
        }
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        out.put("health", writes.health());
        out.putAll(history.since(since));
        return Reply.json(200, out);
    }

    private Reply metrics(HttpServerExchange ex, byte[] body) {
        return new Reply(200, scrape.get().getBytes(StandardCharsets.UTF_8), "text/plain; version=0.0.4; charset=utf-8", 0);
    }

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

    /**
     * Counts the request in flight until its exchange completes, or, once stopping, answers 503 in Neo4j's
     * format with Retry-After (not counted: the wait is for admitted work only). Counting before the second
     * read of {@code stopping} (and {@link #stopAccepting} writing {@code stopping} before reading the count)
     * means no request is both admitted and missed by the wait.
     */
    private void admit(HttpServerExchange ex, HttpHandler routes) throws Exception {
        if (stopping) {
            refuse(ex);
            return;
        }
        ex.putAttachment(ARRIVED, time.nanos());
        inFlight.incrementAndGet();
        if (stopping) {
            done();
            refuse(ex);
            return;
        }
        ex.addExchangeCompleteListener((e, next) -> {
            done();
            next.proceed();
        });
        if (!templateRoute(ex)) {
            routes.handleRequest(ex);
        }
    }

    /**
     * {@code POST /db/{db}/write/{template}} matched by hand ahead of the router, with the same parameters: it is
     * the hot route, and the router tries each POST template in turn, building a map for each attempt (~11% of an
     * I/O thread's time under a stream of small writes). Any other shape goes to the router, as before.
     */
    private boolean templateRoute(HttpServerExchange ex) throws Exception {
        if (!Methods.POST.equals(ex.getRequestMethod())) {
            return false;
        }
        String path = ex.getRelativePath();
        int dbEnd = path.startsWith("/db/") ? path.indexOf('/', 4) : -1;
        if (dbEnd <= 4 || !path.startsWith("/write/", dbEnd)) {
            return false;
        }
        int name = dbEnd + "/write/".length();
        if (name >= path.length() || path.indexOf('/', name) >= 0) {
            return false;
        }
        ex.addQueryParam("db", path.substring(4, dbEnd));
        ex.addQueryParam("template", path.substring(name));
        templateWrite.handleRequest(ex);
        return true;
    }

    private void done() {
        if (inFlight.decrementAndGet() == 0 && stopping) {
            synchronized (idle) {
                idle.notifyAll();
            }
        }
    }

    private static void refuse(HttpServerExchange ex) {
        ex.setPersistent(false); // a client retrying on this connection would only be refused again
        send(ex, Reply.overloaded(Outcome.SHUTTING_DOWN));
    }

    /** Stops taking requests: new ones get 503 with Retry-After; in-flight ones go on. */
    public void stopAccepting() {
        stopping = true;
    }

    /** {@link #stopAccepting}, waits up to {@code wait} for in-flight requests, stops Undertow. */
    public void close(Duration wait) {
        stopAccepting();
        long deadline = time.nanos() + wait.toNanos();
        synchronized (idle) {
            try {
                long left;
                while (inFlight.get() > 0 && (left = deadline - time.nanos()) > 0) {
                    idle.wait(Math.max(1, left / 1_000_000));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (inFlight.get() > 0) {
            log.warn("HTTP: {} in-flight requests still running after {}", inFlight.get(), wait);
        }
        undertow.stop();
        // not shutdownNow: a handler still running may be inside embedded Neo4j, whose file I/O an interrupt
        // breaks; Neo4j's own shutdown, later, ends what is left
        handlers.shutdown();
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
