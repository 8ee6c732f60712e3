package io.sluice.sink;

import io.sluice.security.Credentials;
import io.sluice.security.UserStore;
import io.sluice.vocab.Neo4jStatus;
import java.util.UUID;
import org.neo4j.driver.AuthToken;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.exceptions.Neo4jException;

/**
 * A remote Neo4j's users, checked by that server over Bolt ({@link Driver#verifyAuthentication}): sluice keeps
 * no passwords. The server cannot say when a password changed, so {@link #version()} is constant and a cache of
 * verified credentials relies on its expiry. Thread-safe.
 */
final class RemoteUsers implements UserStore {
    private final Driver driver;

    RemoteUsers(Driver driver) {
        this.driver = driver;
    }

    @Override
    public Verdict check(Credentials credentials) {
        AuthToken token = switch (credentials) {
            case Credentials.Basic b -> AuthTokens.basic(b.user(), b.password());
            case Credentials.Bearer b -> AuthTokens.bearer(b.token());
        };
        String user = credentials instanceof Credentials.Basic b ? b.user() : "(bearer)";
        try {
            return driver.verifyAuthentication(token) ? new Verdict.Accepted(user)
                    : new Verdict.Rejected(EmbeddedUsers.INVALID);
        } catch (Neo4jException e) {
            return switch (e.code()) {
                case Neo4jStatus.Security.AUTHENTICATION_RATE_LIMIT -> new Verdict.RateLimited(e.getMessage());
                case Neo4jStatus.Security.CREDENTIALS_EXPIRED -> new Verdict.Expired(user, e.getMessage());
                case Neo4jStatus.Security.UNAUTHORIZED -> new Verdict.Rejected(e.getMessage());
                default -> throw e;
            };
        }
    }

    /**
     * Whether the server accepts credentials it cannot know (a random user and password): then its
     * authentication is off, and so, in effect, is sluice's for HTTP callers. An unknown user name is never
     * locked out by Neo4j, so asking costs nothing.
     */
    boolean acceptsAnything() {
        String random = UUID.randomUUID().toString();
        try {
            return driver.verifyAuthentication(AuthTokens.basic("sluice-probe-" + random, random));
        } catch (Neo4jException e) {
            return false;
        }
    }

    @Override
    public long version() {
        return Long.MIN_VALUE;
    }
}
