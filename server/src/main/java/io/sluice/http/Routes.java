package io.sluice.http;

import static io.sluice.http.Meter.param;

import io.sluice.metrics.History;
import io.sluice.metrics.Metrics;
import io.sluice.vocab.Neo4jError;
import io.sluice.write.Caller;
import io.sluice.write.Health;
import io.sluice.write.Operations;
import io.sluice.write.WritePath;
import io.undertow.Handlers;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.RoutingHandler;
import io.undertow.util.Headers;
import io.undertow.util.Methods;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API's routes: which endpoint answers which method and path, behind the authentication gate (all but
 * {@code /}, {@code /health}, the dashboard's files and, when open, {@code /metrics} and {@code /status}), and each
 * endpoint's glue from the exchange to {@link Api}, {@link QueryTransactionsApi}, {@link ClassicTransactionsApi} or
 * {@link Operations}. {@code POST /db/{db}/write/{template}} is matched by hand ahead of the router
 * ({@link #handleRequest}). Thread-safe.
 */
final class Routes implements HttpHandler {
    private static final Logger log = LoggerFactory.getLogger(Routes.class);

    private final Api api;
    private final OperationsApi operationsApi;
    private final QueryTransactionsApi transactions;
    private final ClassicTransactionsApi classic;
    private final WritePath writes;
    private final Operations operations;
    private final AuthGate gate;
    private final Meter meter;
    private final Bodies bodies;
    private final Supplier<String> scrape;
    private final History history;
    private final RoutingHandler router;
    /** {@code POST /db/{db}/write/{template}}: routed by hand ({@link #templateRoute}) and by the router alike. */
    private final HttpHandler templateWrite;

    Routes(Api api, QueryTransactionsApi transactions, ClassicTransactionsApi classic, WritePath writes,
            Operations operations, AuthGate gate, Meter meter, Bodies bodies, TemplateWrites templates,
            Discovery discovery, boolean metricsOpen, Supplier<String> scrape, History history) {
        this.api = api;
        this.operationsApi = new OperationsApi(operations, writes.database());
        this.transactions = transactions;
        this.classic = classic;
        this.writes = writes;
        this.operations = operations;
        this.gate = gate;
        this.meter = meter;
        this.bodies = bodies;
        this.scrape = scrape;
        this.history = history;
        this.templateWrite = guarded(bodies.receiving(templates::received));
        this.router = Handlers.routing()
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
                .get("/metrics", blocking(this::metrics, !metricsOpen))
                .get("/status", blocking(this::status, !metricsOpen))
                .get("/", blocking((ex, body) -> discovery.answer(ex), false))
                .get("/dashboard/{file}", blocking((ex, body) -> Dashboard.file(ex, param(ex, "file")), false))
                .setFallbackHandler(ex -> Bodies.send(ex, Reply.errorsOnly(404, Neo4jError.invalid(
                        "Not Found: no such endpoint: " + ex.getRequestMethod() + " " + ex.getRequestPath()))))
                .setInvalidMethodHandler(Routes::methodNotAllowed);
    }

    /** The writes are POST, everything else GET (see the routes above). */
    private static void methodNotAllowed(HttpServerExchange ex) {
        String path = ex.getRequestPath();
        boolean post = path.matches(".*/(tx|tx/[^/]+/commit|query/v2|query/v2/tx|query/v2/tx/[^/]+/commit|write/[^/]+)");
        boolean tx = path.matches(".*/(query/v2/)?tx/[^/]+") && !path.endsWith("/tx/commit");
        ex.getResponseHeaders().put(Headers.ALLOW, tx ? "POST, DELETE" : post ? "POST" : "GET");
        Bodies.send(ex, Reply.errorsOnly(405, Neo4jError.invalid("Method Not Allowed: " + ex.getRequestMethod()
                + " is not allowed on " + ex.getRequestPath())));
    }

    @Override
    public void handleRequest(HttpServerExchange ex) throws Exception {
        if (!templateRoute(ex)) {
            router.handleRequest(ex);
        }
    }

    /** {@code h} behind the body limits and, when {@code guarded}, the authentication gate. */
    private HttpHandler blocking(Bodies.BlockingHandler h, boolean guarded) {
        if (!guarded) {
            return bodies.ignoringBody(h); // the open endpoints read no body: nobody buffers one without credentials
        }
        return guarded(bodies.blocking(h));
    }

    /** {@code receive} behind the authentication gate. */
    private HttpHandler guarded(HttpHandler receive) {
        return ex -> gate.check(ex, e -> {
            try {
                receive.handleRequest(e);
            } catch (Exception bug) {
                log.error("bug receiving {} {}", e.getRequestMethod(), e.getRequestPath(), bug);
                Bodies.send(e, Reply.error(500, Neo4jError.unknown("internal error: " + bug)));
            }
        });
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

    private Reply txCommit(HttpServerExchange ex, byte[] body) {
        return meter.counted(ex, api.txCommit(param(ex, "db"), meter.mode(ex), body, gate.callerOf(ex)),
                Metrics.CYPHER);
    }

    private Reply queryV2(HttpServerExchange ex, byte[] body) {
        return meter.counted(ex, api.queryV2(param(ex, "db"), meter.mode(ex), body, gate.callerOf(ex), media(ex)),
                Metrics.CYPHER);
    }

    private Reply classicOpen(HttpServerExchange ex, byte[] body) {
        return meter.counted(ex, classic.open(param(ex, "db"), Discovery.base(ex), body,
                ex.getRequestHeaders().getFirst("access-mode"), gate.callerOf(ex)), Metrics.CYPHER);
    }

    private Reply classicRun(HttpServerExchange ex, byte[] body) {
        return meter.counted(ex, classic.run(param(ex, "db"), Discovery.base(ex), param(ex, "id"), body,
                gate.callerOf(ex)), Metrics.CYPHER);
    }

    private Reply classicCommit(HttpServerExchange ex, byte[] body) {
        return meter.counted(ex, classic.commit(param(ex, "db"), Discovery.base(ex), param(ex, "id"), body,
                gate.callerOf(ex)), Metrics.CYPHER);
    }

    private Reply classicRollback(HttpServerExchange ex, byte[] body) {
        return meter.counted(ex, classic.rollback(param(ex, "db"), param(ex, "id"), gate.callerOf(ex)),
                Metrics.CYPHER);
    }

    private Reply txOpen(HttpServerExchange ex, byte[] body) {
        Caller c = gate.callerOf(ex);
        return meter.counted(ex, transactions.open(param(ex, "db"), body, media(ex), c), Metrics.CYPHER);
    }

    private Reply txRun(HttpServerExchange ex, byte[] body) {
        return meter.counted(ex, transactions.run(param(ex, "db"), param(ex, "id"), body, media(ex),
                gate.callerOf(ex)), Metrics.CYPHER);
    }

    private Reply txCommitExplicit(HttpServerExchange ex, byte[] body) {
        return meter.counted(ex, transactions.commit(param(ex, "db"), param(ex, "id"), body, media(ex),
                gate.callerOf(ex)), Metrics.CYPHER);
    }

    private Reply txRollback(HttpServerExchange ex, byte[] body) {
        return meter.counted(ex, transactions.rollback(param(ex, "db"), param(ex, "id"), gate.callerOf(ex)),
                Metrics.CYPHER);
    }

    private static QueryMedia media(HttpServerExchange ex) {
        return QueryMedia.of(ex.getRequestHeaders().getFirst(Headers.CONTENT_TYPE),
                ex.getRequestHeaders().getFirst(Headers.ACCEPT));
    }

    private Reply applied(HttpServerExchange ex, byte[] body) {
        return meter.counted(ex, operationsApi.applied(param(ex, "db"), param(ex, "partition"), param(ex, "offset"),
                param(ex, "wait")), null);
    }

    /** {@code POST /db/{db}/warmup}: 202, the warm-up started (or already running), /health WARMING until done. */
    private Reply warmUp(HttpServerExchange ex, byte[] body) {
        if (!writes.database().equals(param(ex, "db"))) {
            return Reply.errorsOnly(404, Api.databaseNotFound(param(ex, "db"), writes.database()));
        }
        Operations.WarmUp w = operations.warmUp();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("started", w.started());
        out.put("warmup", w.state());
        return Reply.json(202, out);
    }

    private Reply deadLetters(HttpServerExchange ex, byte[] body) throws IOException {
        return operationsApi.deadLetters(param(ex, "db"), param(ex, "from"), param(ex, "limit"));
    }

    /**
     * Open, for load balancers: the status (200 when UP, else 503) to anyone; the whole snapshot only to a
     * caller whose credentials are good (or to everyone when authentication is off).
     */
    private Reply health(HttpServerExchange ex, byte[] body) {
        Health h = operations.health();
        int status = h.status().up() ? 200 : 503;
        if (!gate.enabled() || gate.knows(ex)) {
            return Reply.json(status, h.fields());
        }
        return Reply.json(status, Map.of("status", h.status().name()));
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
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("health", operations.health().fields());
        out.putAll(history.since(since));
        return Reply.json(200, out);
    }

    private Reply metrics(HttpServerExchange ex, byte[] body) {
        return new Reply(200, scrape.get().getBytes(StandardCharsets.UTF_8), "text/plain; version=0.0.4; charset=utf-8", 0);
    }
}
