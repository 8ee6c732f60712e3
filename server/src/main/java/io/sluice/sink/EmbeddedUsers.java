package io.sluice.sink;

import io.sluice.security.Credentials;
import io.sluice.security.UserStore;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.internal.kernel.api.connectioninfo.ClientConnectionInfo;
import org.neo4j.internal.kernel.api.security.LoginContext;
import org.neo4j.kernel.api.security.AuthManager;
import org.neo4j.kernel.api.security.AuthToken;
import org.neo4j.kernel.api.security.exception.InvalidAuthTokenException;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.storageengine.api.TransactionIdStore;

/**
 * The embedded DBMS's users, checked by Neo4j's own {@link AuthManager} (the one Bolt uses: its lockout after
 * repeated failures is shared). The version is the system database's last committed transaction: every change
 * of a user or password commits there, so a cache keyed on it sees the change at once. Thread-safe.
 */
final class EmbeddedUsers implements UserStore {
    /** Neo4j's HTTP wording for each outcome. */
    static final String INVALID = "Invalid credential.";
    static final String LOCKED = "Too many failed authentication requests. Please wait 5 seconds and try again.";
    static final String EXPIRED = "The credentials you provided were valid, but must be changed before you can use"
            + " this instance. To change your password, issue an `ALTER CURRENT USER SET PASSWORD FROM 'current"
            + " password' TO 'new password'` statement against the system database (over Bolt).";

    private final AuthManager auth;
    private final TransactionIdStore systemTransactions;

    EmbeddedUsers(DatabaseManagementService dbms) {
        var system = ((GraphDatabaseAPI) dbms.database("system")).getDependencyResolver();
        this.auth = system.resolveDependency(AuthManager.class);
        this.systemTransactions = system.resolveDependency(TransactionIdStore.class);
    }

    @Override
    public Verdict check(Credentials credentials) {
        LoginContext login;
        try {
            login = login(auth, credentials);
        } catch (InvalidAuthTokenException e) {
            return new Verdict.Rejected(e.getMessage()); // e.g. bearer tokens: Community has no SSO
        }
        String user = login.subject().executingUser();
        return switch (login.subject().getAuthenticationResult()) {
            case SUCCESS -> new Verdict.Accepted(user);
            case FAILURE -> new Verdict.Rejected(INVALID);
            case TOO_MANY_ATTEMPTS -> new Verdict.RateLimited(LOCKED);
            case PASSWORD_CHANGE_REQUIRED -> new Verdict.Expired(user, EXPIRED);
        };
    }

    /** Logs {@code credentials} in with Neo4j's own {@code auth}: the login context of a system statement too. */
    static LoginContext login(AuthManager auth, Credentials credentials) throws InvalidAuthTokenException {
        Map<String, Object> token = new HashMap<>(); // login() clears the credentials in it: one map per call
        switch (credentials) {
            case Credentials.Basic b -> {
                token.put(AuthToken.SCHEME_KEY, AuthToken.BASIC_SCHEME);
                token.put(AuthToken.PRINCIPAL, b.user());
                token.put(AuthToken.CREDENTIALS, b.password().getBytes(StandardCharsets.UTF_8));
            }
            case Credentials.Bearer b -> {
                token.put(AuthToken.SCHEME_KEY, "bearer");
                token.put(AuthToken.CREDENTIALS, b.token().getBytes(StandardCharsets.UTF_8));
            }
        }
        return auth.login(token, ClientConnectionInfo.EMBEDDED_CONNECTION);
    }

    @Override
    public long version() {
        // closed, not committed: a committed id is published before the store is updated, and a login in
        // between would see the old password under the new version
        return systemTransactions.getHighestGapFreeClosedTransactionId();
    }
}
