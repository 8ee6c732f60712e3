package io.sluice.http;

import io.sluice.front.Callers;
import io.sluice.security.Authenticator;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.write.Caller;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.AttachmentKey;
import io.undertow.util.Headers;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Authentication in front of the protected endpoints, before a byte of the body is read: the HTTP side of
 * {@link Callers}, which resolves who is calling for every front end. Credentials verified recently are
 * recognised on the I/O thread (a digest and a cache read, or, on a connection that sent the same header before,
 * a comparison: {@link Callers.Memo}); anything else is checked against Neo4j's users on a virtual thread, and the
 * request carries on back on the I/O thread. Refusals are Neo4j's: 401 with its challenge, 400 for a malformed
 * header, 429 after repeated failures, 400 {@code CredentialsExpired} when the password must be changed first.
 * Thread-safe.
 */
final class AuthGate {
    static final AttachmentKey<Caller> CALLER = AttachmentKey.create(Caller.class);

    /** The connection's memo of the header it was let in with (~9% of an I/O thread's time saved under small writes). */
    private static final AttachmentKey<Callers.Memo> MEMO = AttachmentKey.create(Callers.Memo.class);

    /** What Neo4j sends with a 401. */
    static final String CHALLENGE = "Basic realm=\"Neo4j\", Bearer realm=\"Neo4j\"";

    private final Callers callers;
    private final Executor blocking;

    AuthGate(Callers callers, Executor blocking) {
        this.callers = callers;
        this.blocking = blocking;
    }

    boolean enabled() {
        return callers.enabled();
    }

    /** Lets the request through to {@code next} (on the I/O thread) with its {@link Caller}, or answers it. */
    void check(HttpServerExchange ex, Consumer<HttpServerExchange> next) {
        String header = ex.getRequestHeaders().getFirst(Headers.AUTHORIZATION);
        long version = callers.version(); // read before the check: a change of users during it voids what it found
        Callers.Memo memo = ex.getConnection().getAttachment(MEMO);
        Caller seen = memo == null ? null : memo.recall(header);
        if (seen != null) {
            ex.putAttachment(CALLER, seen); // as last time on this connection, and the users have not changed
            next.accept(ex);
            return;
        }
        Authenticator.Result fast = callers.recognise(header);
        if (fast != null) {
            decide(ex, fast, next, version);
            return;
        }
        String client = clientOf(ex);
        ex.dispatch(blocking, () -> {
            Authenticator.Result r;
            try {
                r = callers.authenticate(header, client);
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
        return header != null
                && callers.authenticate(header, clientOf(ex)) instanceof Authenticator.Result.Authenticated;
    }

    private static String clientOf(HttpServerExchange ex) {
        return ex.getSourceAddress() == null ? "?" : ex.getSourceAddress().getAddress().getHostAddress();
    }

    /** The caller of a request on an open endpoint: known when its credentials are, else one who may read. */
    Caller callerOf(HttpServerExchange ex) {
        Caller c = ex.getAttachment(CALLER);
        return c != null ? c : Callers.unknown();
    }

    private void decide(HttpServerExchange ex, Authenticator.Result r, Consumer<HttpServerExchange> next,
            long version) {
        switch (r) {
            case Authenticator.Result.Authenticated a -> {
                Caller c = callers.callerOf(a);
                ex.putAttachment(CALLER, c);
                String header = ex.getRequestHeaders().getFirst(Headers.AUTHORIZATION);
                if (header != null && c.user() != null) {
                    Callers.Memo memo = ex.getConnection().getAttachment(MEMO);
                    if (memo == null) {
                        memo = callers.memo();
                        ex.getConnection().putAttachment(MEMO, memo);
                    }
                    memo.remember(header, version, c);
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
        Bodies.drainThenSend(ex, r.withContentType(REFUSAL_TYPE));
    }

    private static void unauthorized(HttpServerExchange ex, String message) {
        // a browser's own scripts ask not to be challenged (no login dialog), as Neo4j Browser does
        boolean quiet = "true".equalsIgnoreCase(ex.getRequestHeaders().getFirst("X-Ajax-Browser-Auth"));
        ex.getResponseHeaders().put(Headers.WWW_AUTHENTICATE, quiet ? "None" : CHALLENGE);
        refuse(ex, Reply.errorsOnly(401, new Neo4jError(Neo4jStatus.Security.UNAUTHORIZED, message)));
    }

}
