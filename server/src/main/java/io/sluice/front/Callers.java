package io.sluice.front;

import io.sluice.config.Access;
import io.sluice.config.AccessLevels;
import io.sluice.config.Mode;
import io.sluice.config.Modes;
import io.sluice.security.Authenticator;
import io.sluice.security.Credentials;
import io.sluice.write.Caller;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Who is calling, resolved once for every front end: credentials (an HTTP {@code Authorization} header, Bolt's
 * LOGON token) checked by the {@link Authenticator} (its cache of verified credentials and its per-address failure
 * limit, shared by all front ends), then turned into a {@link Caller} with the user's access level and default mode
 * from the config. Each user's {@code Caller} is made once: the config does not change while sluice runs.
 *
 * <p>A front end that keeps connections open may also remember, per connection, the credentials it let in
 * ({@link Memo}): while the users are unchanged and within the cache's expiry, the same credentials on that
 * connection are recognised by a comparison, not a digest and a cache read. Thread-safe; a {@code Memo} is one
 * connection's.
 */
public final class Callers {
    private final Authenticator auth;
    private final AccessLevels access;
    private final Modes modes;
    private final ConcurrentHashMap<String, Caller> byUser = new ConcurrentHashMap<>();
    private final Caller anonymous;

    public Callers(Authenticator auth, AccessLevels access, Modes modes) {
        this.auth = auth;
        this.access = access;
        this.modes = modes;
        this.anonymous = make(null);
    }

    private Caller make(String user) {
        return new Caller(user, access.of(user), modes.of(user));
    }

    /** Whether credentials are asked for at all (off with {@code NEO4J_AUTH=none}). */
    public boolean enabled() {
        return auth.enabled();
    }

    /**
     * The users' version now: read it before a check, and give it to {@link Memo#remember} with the result, so
     * that a change of users during the check voids what it found.
     */
    public long version() {
        return auth.version();
    }

    /**
     * What can be told cheaply enough for an I/O thread (authentication off, no or a malformed header, credentials
     * verified recently); null: call {@link #authenticate(String, String)} on a thread that may block.
     */
    public Authenticator.Result recognise(String header) {
        return auth.recognise(header);
    }

    /** Checks an {@code Authorization} header from {@code client} (its address); may block. */
    public Authenticator.Result authenticate(String header, String client) {
        return auth.authenticate(header, client);
    }

    /** Checks parsed credentials from {@code client} (its address); may block. */
    public Authenticator.Result authenticate(Credentials credentials, String client) {
        return auth.authenticate(credentials, client);
    }

    /** The caller an accepted check names (the anonymous caller when authentication is off). */
    public Caller callerOf(Authenticator.Result.Authenticated accepted) {
        return accepted.user() == null ? anonymous : byUser.computeIfAbsent(accepted.user(), this::make);
    }

    private static final Caller UNKNOWN = new Caller(null, Access.READ, Mode.SYNC);

    /** The caller of an open endpoint's request that carried no good credentials: may read, nothing else. */
    public static Caller unknown() {
        return UNKNOWN;
    }

    /** A new, empty memo for one connection. */
    public Memo memo() {
        return new Memo();
    }

    /**
     * The last credentials a connection was let in with, and whom they named (the credentials live as long as
     * their connection, which sends them with every request anyway). Confined to its connection's thread.
     */
    public final class Memo {
        private Object credentials;
        private long version;
        private long until;
        private Caller caller;

        private Memo() {}

        /** The caller these credentials named last time, if the users and the cache's expiry still allow it. */
        public Caller recall(Object presented) {
            return caller != null && presented != null && presented.equals(credentials)
                    && auth.stillAccepted(version, until) ? caller : null;
        }

        /** Remembers that {@code presented} named {@code who}, checked while the users were at {@code version}. */
        public void remember(Object presented, long version, Caller who) {
            if (presented == null || who.user() == null) {
                return;
            }
            this.credentials = presented;
            this.version = version;
            this.until = auth.acceptedUntil();
            this.caller = who;
        }
    }
}
