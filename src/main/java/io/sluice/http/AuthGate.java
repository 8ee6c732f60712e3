package io.sluice.http;

import io.sluice.config.SluiceConfig;
import io.sluice.security.Authenticator;
import io.sluice.sink.Neo4jError;
import io.sluice.sink.Neo4jStatus;
import io.sluice.write.Access;
import io.sluice.write.Mode;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.AttachmentKey;
import io.undertow.util.Headers;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Authentication in front of the protected endpoints, before a byte of the body is read. Credentials the
 * {@link Authenticator} has verified recently are recognised on the I/O thread (a digest and a cache read);
 * anything else is checked against Neo4j's users on a virtual thread, and the request carries on back on the
 * I/O thread. Refusals are Neo4j's: 401 with its challenge, 400 for a malformed header, 429 after repeated
 * failures, 400 {@code CredentialsExpired} when the password must be changed first. Thread-safe.
 */
final class AuthGate {
    /**
     * Who sent the request, what they may send, and the mode their writes get when the request names none;
     * attached once the gate lets it through.
     */
    record Caller(String user, Access access, Mode mode) {}

    static final AttachmentKey<Caller> CALLER = AttachmentKey.create(Caller.class);

    /**
     * The last credentials a connection's request was let through with, and whom they named: while the users are
     * as they were ({@code version}) and for no longer than the authenticator's cache keeps them ({@code until}),
     * the next request with the same header on that connection is recognised by a string comparison, not a
     * digest and a cache read (~9% of an HTTP I/O thread's time under a stream of small writes). The header lives
     * as long as its connection, which sends it with every request anyway.
     */
    private record Recognised(String header, long version, long until, Caller caller) {}

    private static final AttachmentKey<Recognised> RECOGNISED = AttachmentKey.create(Recognised.class);

    /** What Neo4j sends with a 401. */
    static final String CHALLENGE = "Basic realm=\"Neo4j\", Bearer realm=\"Neo4j\"";

    private final Authenticator auth;
    private final SluiceConfig.Access access;
    private final SluiceConfig.Modes modes;
    private final Executor blocking;

    /** Each user's {@link Caller}, made once (the config does not change while sluice runs). */
    private final java.util.concurrent.ConcurrentHashMap<String, Caller> callers = new java.util.concurrent.ConcurrentHashMap<>();
    private final Caller anonymous;

    AuthGate(Authenticator auth, SluiceConfig.Access access, SluiceConfig.Modes modes, Executor blocking) {
        this.auth = auth;
        this.access = access;
        this.modes = modes;
        this.blocking = blocking;
        this.anonymous = caller(null);
    }

    private Caller caller(String user) {
        return new Caller(user, Access.parse(access.of(user)), Mode.parse(modes.of(user)));
    }

    boolean enabled() {
        return auth.enabled();
    }

    /** Lets the request through to {@code next} (on the I/O thread) with its {@link Caller}, or answers it. */
    void check(HttpServerExchange ex, Consumer<HttpServerExchange> next) {
        String header = ex.getRequestHeaders().getFirst(Headers.AUTHORIZATION);
        long version = auth.version(); // read before the check: a change of users during it voids what it found
        Recognised seen = ex.getConnection().getAttachment(RECOGNISED);
        if (seen != null && header != null && seen.header().equals(header)
                && auth.stillAccepted(seen.version(), seen.until())) {
            ex.putAttachment(CALLER, seen.caller()); // as last time on this connection, and the users have not changed
            next.accept(ex);
            return;
        }
        Authenticator.Result fast = auth.recognise(header);
        if (fast != null) {
            decide(ex, fast, next, version);
            return;
        }
        String client = clientOf(ex);
        ex.dispatch(blocking, () -> {
            Authenticator.Result r;
            try {
                r = auth.authenticate(header, client);
            } catch (RuntimeException | Error e) { // still answer: no request is left hanging
                ex.getIoThread().execute(() -> decide(ex, new Authenticator.Result.Unavailable(
                        "cannot check credentials: " + e), next, version));
                throw e;
            }
            ex.getIoThread().execute(() -> decide(ex, r, next, version));
        });
    }

    /** Whether an open endpoint's request carries good credentials (may block: call off the I/O thread). */
    boolean knows(HttpServerExchange ex) {
        String header = ex.getRequestHeaders().getFirst(Headers.AUTHORIZATION);
        return header != null && auth.authenticate(header, clientOf(ex)) instanceof Authenticator.Result.Authenticated;
    }

    private static String clientOf(HttpServerExchange ex) {
        return ex.getSourceAddress() == null ? "?" : ex.getSourceAddress().getAddress().getHostAddress();
    }

    /** The caller of a request on an open endpoint: known when its credentials are, else anonymous. */
    Caller callerOf(HttpServerExchange ex) {
        Caller c = ex.getAttachment(CALLER);
        return c != null ? c : new Caller(null, Access.READ, Mode.SYNC);
    }

    private void decide(HttpServerExchange ex, Authenticator.Result r, Consumer<HttpServerExchange> next,
            long version) {
        switch (r) {
            case Authenticator.Result.Authenticated a -> {
                Caller c = a.user() == null ? anonymous : callers.computeIfAbsent(a.user(), this::caller);
                ex.putAttachment(CALLER, c);
                String header = ex.getRequestHeaders().getFirst(Headers.AUTHORIZATION);
                if (header != null && a.user() != null) {
                    ex.getConnection().putAttachment(RECOGNISED,
                            new Recognised(header, version, auth.acceptedUntil(), c));
                }
                next.accept(ex);
            }
            case Authenticator.Result.Missing m -> unauthorized(ex, "No authentication header supplied.");
            case Authenticator.Result.Invalid i -> unauthorized(ex, i.message());
            case Authenticator.Result.Malformed m -> refuse(ex, Reply.errorsOnly(400,
                    Neo4jError.invalidFormat("Invalid authentication header.")));
            case Authenticator.Result.RateLimited l -> refuse(ex, Reply.errorsOnly(429,
                    new Neo4jError(Neo4jStatus.Security.AUTHENTICATION_RATE_LIMIT, l.message())));
            case Authenticator.Result.Expired e -> refuse(ex, Reply.errorsOnly(400, // as Neo4j's Query API answers it
                    new Neo4jError(Neo4jStatus.Security.CREDENTIALS_EXPIRED, e.message())));
            case Authenticator.Result.Unavailable u -> refuse(ex, Reply.errorsOnly(503,
                    new Neo4jError(Neo4jStatus.General.DATABASE_UNAVAILABLE, u.message())).retryAfter(1));
        }
    }

    /** Neo4j's authentication filter answers with this type, where its APIs say {@code application/json}. */
    static final String REFUSAL_TYPE = "application/json;charset=utf-8";

    private static void refuse(HttpServerExchange ex, Reply r) {
        HttpServer.drainThenSend(ex, r.withContentType(REFUSAL_TYPE));
    }

    private static void unauthorized(HttpServerExchange ex, String message) {
        // a browser's own scripts ask not to be challenged (no login dialog), as Neo4j Browser does
        boolean quiet = "true".equalsIgnoreCase(ex.getRequestHeaders().getFirst("X-Ajax-Browser-Auth"));
        ex.getResponseHeaders().put(Headers.WWW_AUTHENTICATE, quiet ? "None" : CHALLENGE);
        refuse(ex, Reply.errorsOnly(401, new Neo4jError(Neo4jStatus.Security.UNAUTHORIZED, message)));
    }

}
