package io.sluice.bolt;

import io.sluice.config.Access;
import io.sluice.config.Mode;
import io.sluice.front.Callers;
import io.sluice.security.Authenticator;
import io.sluice.security.Credentials;
import io.sluice.vocab.Neo4jError;
import io.sluice.vocab.Neo4jStatus;
import io.sluice.write.Caller;
import java.util.Map;

/**
 * What a LOGON's (or a 4.4/5.0 HELLO's) auth token amounts to, checked by the {@link Callers} every front end
 * shares: who is calling, the credentials kept for their statements on {@code system}, whether their password
 * must be changed first (Neo4j lets such a login in for {@code ALTER CURRENT USER} only: {@code expired} is the
 * message every other statement gets), or the refusal, in Neo4j's words (docs/reference/neo4j-bolt-behaviour.md,
 * section 2). Exactly one of {@code caller} and {@code refused} is set.
 */
record Login(Caller caller, Credentials credentials, String expired, Neo4jError refused) {
    private static final String FAILED = "The client is unauthorized due to authentication failure.";
    private static final String UNSUPPORTED = "Unsupported authentication token";

    /** Checks {@code auth} from {@code client} (its address); may block (a credentials check). */
    static Login check(Map<String, Object> auth, Callers callers, String client) {
        Object scheme = auth.getOrDefault("scheme", "none");
        Authenticator.Result result;
        Credentials presented = null;
        if ("basic".equals(scheme) && auth.get("principal") instanceof String user
                && auth.get("credentials") instanceof String password) {
            presented = new Credentials.Basic(user, password);
            result = callers.authenticate(presented, client);
        } else if ("bearer".equals(scheme) && auth.get("credentials") instanceof String token) {
            presented = new Credentials.Bearer(token);
            result = callers.authenticate(presented, client);
        } else if ("none".equals(scheme) && !callers.enabled()) {
            result = new Authenticator.Result.Authenticated(null);
        } else {
            result = new Authenticator.Result.Invalid("none".equals(scheme)
                    ? UNSUPPORTED + ", scheme 'none' is only allowed when auth is disabled."
                    : UNSUPPORTED + ", scheme '" + scheme + "' is not supported.");
        }
        return switch (result) {
            case Authenticator.Result.Authenticated a -> new Login(callers.callerOf(a),
                    a.user() == null ? null : presented, null, null);
            case Authenticator.Result.Expired e -> new Login(new Caller(presented instanceof Credentials.Basic b
                    ? b.user() : null, Access.READ, Mode.SYNC), presented, e.message(), null);
            case Authenticator.Result.Invalid i -> refused(Neo4jStatus.Security.UNAUTHORIZED,
                    i.message().startsWith(UNSUPPORTED) ? i.message() : FAILED);
            case Authenticator.Result.Missing m -> refused(Neo4jStatus.Security.UNAUTHORIZED, FAILED);
            case Authenticator.Result.Malformed m -> refused(Neo4jStatus.Security.UNAUTHORIZED, FAILED);
            case Authenticator.Result.RateLimited l -> refused(Neo4jStatus.Security.AUTHENTICATION_RATE_LIMIT,
                    l.message());
            case Authenticator.Result.Unavailable u -> refused(Neo4jStatus.Request.NO_THREADS_AVAILABLE,
                    "cannot check credentials now: " + u.message());
        };
    }

    private static Login refused(String code, String message) {
        return new Login(null, null, null, new Neo4jError(code, message));
    }
}
