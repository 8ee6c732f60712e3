package io.sluice.http;

import io.sluice.config.HostPort;
import io.sluice.config.Http;
import io.sluice.front.Callers;
import io.sluice.front.Door;
import io.sluice.metrics.History;
import io.sluice.metrics.Metrics;
import io.sluice.time.Time;
import io.sluice.write.ExplicitTransactions;
import io.sluice.write.Operations;
import io.sluice.write.Outcome;
import io.sluice.write.WritePath;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP front end: Undertow's listeners and their lifecycle. An I/O thread parses a request and receives its
 * body without blocking ({@link Bodies}); the request is then dispatched to a virtual thread of its own, which
 * blocks on the write path (code read top to bottom, Helidon style) and produces a {@link Reply}, sent back on the
 * connection's I/O thread; template writes take a shorter way ({@link TemplateWrites}). Which endpoint answers
 * what is {@link Routes}'; {@link #create} assembles the parts.
 * Reading and writing on the I/O thread matters: sending from the virtual thread cost a selector wake-up per
 * response, and Undertow's per-thread buffer caches never get reused by one-shot virtual threads (a fresh
 * zeroed direct buffer per request): together ~25% of the CPU in the sync-mode profile (docs/BENCHMARKS.md).
 *
 * <p>Owns the Undertow server and the virtual-thread executor. Built closed; {@link #start} listens;
 * {@link #stopAccepting} answers new requests 503 in Neo4j's format, {@link #drain} waits (bounded) for those in
 * flight, {@link #close} stops.
 */
public final class HttpServer implements Door {
    private static final Logger log = LoggerFactory.getLogger(HttpServer.class);

    /**
     * Where to listen. {@code http} and {@code https} (with its {@code tls} context) are listeners, either may be null
     * but not both; bodies above {@code maxBodyBytes} get 413; {@code metricsOpen}: {@code /metrics} and
     * {@code /status} without credentials. {@code bolt} ({@code host:port}, or null) and {@code neo4jVersion} go in
     * the discovery document at {@code /}. {@code ioThreads}: Undertow's I/O threads, which parse and answer (see
     * {@link Http}).
     */
    public record Options(HostPort http, HostPort https, SSLContext tls, long maxBodyBytes, boolean metricsOpen,
            String bolt, String neo4jVersion, int ioThreads) {
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

    /**
     * What the endpoints serve: the write path and the operator's questions, the explicit transactions of the Query
     * API and of the classic API (each with its own ids, sharing one bound), who is calling, and the metrics.
     */
    public record Services(WritePath writes, Operations operations, ExplicitTransactions queryTransactions,
            ExplicitTransactions classicTransactions, Callers callers, Metrics metrics, Supplier<String> scrape,
            History history) {
        public Services {
            Objects.requireNonNull(writes, "writes");
            Objects.requireNonNull(operations, "operations");
            Objects.requireNonNull(queryTransactions, "queryTransactions");
            Objects.requireNonNull(classicTransactions, "classicTransactions");
            Objects.requireNonNull(callers, "callers");
        }
    }

    private final Undertow undertow;
    private final Options options;
    private final Time time;
    private final ExecutorService handlers;
    private final Meter meter;
    private final HttpHandler routes;
    private final AtomicLong inFlight = new AtomicLong();
    private final Object idle = new Object();
    private volatile boolean stopping;
    private volatile InetSocketAddress address;
    private volatile InetSocketAddress httpsAddress;

    /** The HTTP front end over {@code s}, listening as {@code o} says once started. */
    public static HttpServer create(Options o, Services s, Time time) {
        ExecutorService handlers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sluice-http-", 0).factory());
        AuthGate gate = new AuthGate(s.callers(), handlers);
        Bodies bodies = new Bodies(o.maxBodyBytes(), handlers);
        Meter meter = new Meter(s.metrics(), time, gate);
        Api api = new Api(s.writes(), time);
        String version = HttpServer.class.getPackage().getImplementationVersion();
        Routes routes = new Routes(api, new QueryTransactionsApi(s.writes(), s.queryTransactions(), time),
                new ClassicTransactionsApi(s.writes(), s.classicTransactions()), s.writes(), s.operations(), gate,
                meter, bodies, new TemplateWrites(api, s.writes(), gate, meter, bodies, handlers),
                new Discovery(o.bolt(), o.neo4jVersion(), version == null ? "dev" : version), o.metricsOpen(),
                s.scrape(), s.history());
        return new HttpServer(o, routes, meter, handlers, time);
    }

    /** Listens (once started) as {@code o} says, answering with {@code routes}; owns {@code handlers}. */
    HttpServer(Options o, HttpHandler routes, Meter meter, ExecutorService handlers, Time time) {
        this.options = o;
        this.routes = routes;
        this.meter = meter;
        this.handlers = handlers;
        this.time = time;
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
                .setServerOption(UndertowOptions.MAX_ENTITY_SIZE, o.maxBodyBytes() + Bodies.DRAIN_BOUND)
                .setHandler(this::admit)
                .build();
    }

    @Override
    public void start() {
        try {
            undertow.start();
        } catch (RuntimeException e) { // the port is taken, say: leave no worker or executor behind
            try {
                undertow.stop();
            } catch (RuntimeException alsoFailed) {
                e.addSuppressed(alsoFailed);
            }
            handlers.shutdownNow();
            throw new IllegalStateException("cannot listen on " + (options.http() != null ? options.http() : "")
                    + (options.https() != null ? " " + options.https() : "") + ": " + e.getMessage(), e);
        }
        for (var listener : undertow.getListenerInfo()) {
            if (listener.getProtcol().equals("https")) {
                httpsAddress = (InetSocketAddress) listener.getAddress();
            } else {
                address = (InetSocketAddress) listener.getAddress();
            }
        }
        log.debug("{}", describe());
    }

    /** The plain HTTP listener's address, or null when there is none (HTTPS only) or before {@link #start}. */
    public InetSocketAddress address() {
        return address;
    }

    /** The HTTPS listener's address, or null. */
    public InetSocketAddress httpsAddress() {
        return httpsAddress;
    }

    @Override
    public String describe() {
        String plain = address == null ? "" : "HTTP http://" + address.getHostString() + ":" + address.getPort();
        String secure = httpsAddress == null ? ""
                : "HTTPS https://" + httpsAddress.getHostString() + ":" + httpsAddress.getPort();
        return (plain + "  " + secure).strip();
    }

    /**
     * Counts the request in flight until its exchange completes, or, once stopping, answers 503 in Neo4j's
     * format with Retry-After (not counted: the wait is for admitted work only). Counting before the second
     * read of {@code stopping} (and {@link #stopAccepting} writing {@code stopping} before reading the count)
     * means no request is both admitted and missed by the wait.
     */
    private void admit(HttpServerExchange ex) throws Exception {
        if (stopping) {
            refuse(ex);
            return;
        }
        meter.arrived(ex);
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
        routes.handleRequest(ex);
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
        Bodies.send(ex, Reply.overloaded(Outcome.SHUTTING_DOWN));
    }

    /** Stops taking requests: new ones get 503 with Retry-After; in-flight ones go on. */
    @Override
    public void stopAccepting() {
        stopping = true;
    }

    @Override
    public boolean drain(Duration wait) {
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
            return false;
        }
        return true;
    }

    /** {@link #drain}s up to {@code wait}, then {@link #close}s. */
    public void close(Duration wait) {
        drain(wait);
        close();
    }

    @Override
    public void close() {
        stopAccepting();
        undertow.stop();
        // not shutdownNow: a handler still running may be inside embedded Neo4j, whose file I/O an interrupt
        // breaks; Neo4j's own shutdown, later, ends what is left
        handlers.shutdown();
    }
}
