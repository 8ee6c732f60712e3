package io.sluice.security;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.time.Time;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides who an HTTP request comes from, in front of every protected endpoint.
 *
 * <h2>Design</h2>
 * The users are Neo4j's ({@link UserStore}); this class adds what an HTTP gateway taking thousands of requests a
 * second needs around them:
 * <ul>
 *   <li><b>A cache of verified credentials.</b> Checking a password costs a salted hash and a read of the system
 *       database; a client sends the same header with every request. A verified (user, password) pair is kept,
 *       keyed by the user and a SHA-256 of a per-process random salt and the password (the password itself is not
 *       kept), bounded in size and expiring. Each entry remembers the store's {@link UserStore#version()} when it
 *       was verified; once the version moves (a password changed, a user dropped), entries are checked again.
 *       Only successes are cached: a wrong password always reaches the store, so its lockout keeps counting; and
 *       after a user's wrong password, that user's right one reaches the store again once, which resets Neo4j's
 *       count of the user's failures as a login to Neo4j would.</li>
 *   <li><b>A limit per client address.</b> Neo4j locks a user name after repeated failures but never an unknown
 *       one, so a client guessing names is never slowed. After {@code maxFailures} failures from one address,
 *       that address is refused (429) until {@code lockTime} has passed since its last failure; a success resets
 *       it. This mirrors Neo4j's own per-user rule, applied per address.</li>
 * </ul>
 * Thread-safe.
 */
public final class Authenticator {

    /** What the request's credentials amount to. */
    public sealed interface Result {
        /** {@code user} is who sent it; {@code null} only when authentication is off. */
        record Authenticated(String user) implements Result {}

        /** No {@code Authorization} header: 401 with a challenge. */
        record Missing() implements Result {}

        /** A header that does not parse: 400. */
        record Malformed() implements Result {}

        /** Wrong credentials: 401 with a challenge; {@code message} is Neo4j's. */
        record Invalid(String message) implements Result {}

        /** Too many failures (this client's, or Neo4j's lockout of the user name): 429. */
        record RateLimited(String message) implements Result {}

        /** Valid, but the password must be changed before anything else (Neo4j's {@code CredentialsExpired}). */
        record Expired(String message) implements Result {}

        /** The user store could not be asked (a remote Neo4j down): 503, try again. */
        record Unavailable(String message) implements Result {}
    }

    /** Authentication off: everyone is let in, anonymously. */
    public static final Authenticator OFF = new Authenticator(null, null, 0, Duration.ZERO, Duration.ZERO, 0);

    static final String RATE_LIMITED = "Too many failed authentication requests. Please wait %d seconds and try again.";

    private final UserStore store;
    private final Time time;
    private final long cacheNanos;
    private final Cache<Key, Verified> verified;
    private final Cache<String, Failures> failures;
    /**
     * User names refused since the store last accepted them: Neo4j counts a user's failed logins until a successful
     * one resets the count, so while a name is here its correct password goes to the store (not the cache), as a
     * login to Neo4j would, and resets it there.
     */
    private final Cache<ByteBuffer, Boolean> failed; // by a digest of the name: names may be long
    private final int maxFailures;
    private final long lockNanos;
    private final byte[] salt = new byte[16];

    private record Verified(String user, long version) {}

    /** A user and the salted digest of their secret (ByteBuffer: equality by content). */
    private record Key(String user, ByteBuffer digest) {}

    /** One digest per thread: {@code getInstance} costs a provider look-up, and the I/O threads are few. */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    });

    /** An address's failed attempts, its checks in flight (reserved before asking the store), its last failure. */
    private record Failures(int count, int inFlight, long lastNanos) {}

    /**
     * {@code cacheSize} verified credentials are kept for at most {@code cacheExpiry}; an address with
     * {@code maxFailures} failures (0: no limit) is refused for {@code lockTime} after its last one.
     */
    public Authenticator(UserStore store, Time time, int maxFailures, Duration lockTime, Duration cacheExpiry,
            long cacheSize) {
        this.store = store;
        this.time = time;
        this.maxFailures = maxFailures;
        this.lockNanos = lockTime.toNanos();
        this.cacheNanos = cacheExpiry.toNanos();
        new SecureRandom().nextBytes(salt);
        this.verified = store == null ? null : Caffeine.newBuilder().maximumSize(cacheSize)
                .expireAfterWrite(cacheExpiry).ticker(time::nanos).build();
        this.failures = store == null ? null : Caffeine.newBuilder().maximumSize(100_000)
                .expireAfterWrite(lockTime.plusSeconds(60)).ticker(time::nanos).build();
        this.failed = store == null ? null : Caffeine.newBuilder().maximumSize(100_000)
                .expireAfterWrite(Duration.ofHours(1)).ticker(time::nanos).build();
    }

    /** Checks in flight, by credentials and client address; a second identical one waits for the first's result. */
    private final ConcurrentHashMap<List<Object>, CompletableFuture<Result>> checking =
            new ConcurrentHashMap<>();

    public boolean enabled() {
        return store != null;
    }

    /** Changes whenever the users do (a password set, a user added or removed); 0 with authentication off. */
    public long version() {
        return store == null ? 0 : store.version();
    }

    /**
     * For a caller that remembers credentials it saw accepted (the HTTP gate, per connection): until when, on this
     * class's clock, credentials accepted now may be taken again without a check (its cache's expiry).
     */
    public long acceptedUntil() {
        return time.nanos() + cacheNanos;
    }

    /**
     * Whether credentials accepted while the users were at {@code version} ({@link #version()}, read before the
     * check) may still be taken without a check: the users have not changed since, and {@code until}
     * ({@link #acceptedUntil()}) has not passed. Counted from a check the cache answered, {@code until} may
     * outlast that cache entry by up to one expiry; the version is what refuses a changed password at once, and a
     * store that cannot tell its version ({@link Long#MIN_VALUE}: a remote server) is never trusted here.
     */
    public boolean stillAccepted(long version, long until) {
        return version != Long.MIN_VALUE && version == version() && time.nanos() - until < 0;
    }

    /**
     * What can be told without asking the store, cheaply enough for an I/O thread: authentication off, no header,
     * a malformed one, or credentials verified recently (and no user changed since). Null: ask
     * {@link #authenticate}.
     */
    public Result recognise(String header) {
        if (store == null) {
            return new Result.Authenticated(null);
        }
        return switch (Credentials.parse(header)) {
            case Credentials.Header.Missing m -> new Result.Missing();
            case Credentials.Header.Malformed m -> new Result.Malformed();
            case Credentials.Header.Present p -> {
                Key key = cacheKey(p.credentials());
                Verified v = verified.getIfPresent(key);
                yield v != null && v.version() == store.version() && unfailed(key)
                        ? new Result.Authenticated(v.user()) : null;
            }
        };
    }

    /** Who sent a request with this {@code Authorization} header, from {@code client} (its address); may block. */
    public Result authenticate(String header, String client) {
        if (store == null) {
            return new Result.Authenticated(null);
        }
        Credentials.Header h = Credentials.parse(header);
        return switch (h) {
            case Credentials.Header.Missing m -> new Result.Missing();
            case Credentials.Header.Malformed m -> new Result.Malformed();
            case Credentials.Header.Present p -> check(p.credentials(), client);
        };
    }

    /**
     * Who presents {@code credentials} from {@code client} (its address), for a protocol that carries them parsed
     * (Bolt's LOGON); the same cache, rate limit and store as {@link #authenticate(String, String)}; may block.
     */
    public Result authenticate(Credentials credentials, String client) {
        return store == null ? new Result.Authenticated(null) : check(credentials, client);
    }

    private Result check(Credentials c, String client) {
        Key key = cacheKey(c);
        long version = store.version();
        Verified v = verified.getIfPresent(key);
        boolean spare = v != null && v.version() == version; // verified before: never locked out (below)
        if (spare && unfailed(key)) {
            return new Result.Authenticated(v.user());
        }
        // one check per credentials and address at a time: a client's pool of connections arriving together with
        // one password asks the store once (and is not refused for having too many checks in flight)
        List<Object> flight = List.of(key, client);
        CompletableFuture<Result> mine = new CompletableFuture<>();
        CompletableFuture<Result> running = checking.putIfAbsent(flight, mine);
        if (running != null) {
            return running.join();
        }
        try {
            Result r = checkAlone(c, key, version, client);
            if (spare && r instanceof Result.RateLimited) {
                // the user's name is locked after someone's wrong passwords: credentials verified before are
                // spared (a guesser cannot lock out the clients that know the password); the store sees them
                // again next time, until it accepts them and its count starts again
                r = new Result.Authenticated(v.user());
            }
            mine.complete(r);
            return r;
        } catch (RuntimeException | Error e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            checking.remove(flight, mine);
        }
    }

    private Result checkAlone(Credentials c, Key key, long version, String client) {
        if (!reserve(client)) {
            return new Result.RateLimited(RATE_LIMITED.formatted(Math.max(1, Duration.ofNanos(lockNanos).toSeconds())));
        }
        UserStore.Verdict verdict;
        try {
            verdict = store.check(c);
        } catch (RuntimeException e) {
            settle(client, false, false);
            return new Result.Unavailable("cannot check credentials now: " + e.getMessage());
        }
        return switch (verdict) {
            case UserStore.Verdict.Accepted a -> {
                settle(client, true, false);
                if (key.user() != null) {
                    failed.invalidate(nameKey(key.user()));
                }
                verified.put(key, new Verified(a.user(), version));
                yield new Result.Authenticated(a.user());
            }
            case UserStore.Verdict.Rejected r -> {
                settle(client, false, true);
                if (key.user() != null) {
                    failed.put(nameKey(key.user()), Boolean.TRUE);
                    verified.invalidate(key); // a password verified before and refused now: changed on the store
                }
                yield new Result.Invalid(r.message());
            }
            case UserStore.Verdict.RateLimited r -> {
                settle(client, false, false);
                yield new Result.RateLimited(r.message());
            }
            case UserStore.Verdict.Expired e -> {
                settle(client, false, false);
                yield new Result.Expired(e.message());
            }
        };
    }

    /**
     * Reserves one check for {@code client}, atomically, or refuses: failures plus checks in flight may not pass
     * the limit (so a thousand concurrent guesses cannot all slip in before the first failure is counted); once
     * {@code lockTime} has passed since the last failure, one check at a time is let through, as Neo4j does.
     */
    private boolean reserve(String client) {
        if (maxFailures <= 0) {
            return true;
        }
        long now = time.nanos();
        boolean[] granted = {false};
        failures.asMap().compute(client, (k, f) -> {
            Failures old = f == null ? new Failures(0, 0, now) : f;
            boolean underLimit = old.count() + old.inFlight() < maxFailures;
            boolean lockOver = now - old.lastNanos() >= lockNanos && old.inFlight() == 0;
            if (!underLimit && !lockOver) {
                return old;
            }
            granted[0] = true;
            return new Failures(old.count(), old.inFlight() + 1, old.lastNanos());
        });
        return granted[0];
    }

    /** Ends a reserved check: a success clears the address, a failure counts. */
    private void settle(String client, boolean success, boolean failure) {
        if (maxFailures <= 0) {
            return;
        }
        long now = time.nanos();
        failures.asMap().compute(client, (k, f) -> {
            if (success || f == null) {
                return null;
            }
            return new Failures(f.count() + (failure ? 1 : 0), Math.max(0, f.inFlight() - 1),
                    failure ? now : f.lastNanos());
        });
    }


    /** Whether {@code key}'s user has had no failure since the store last accepted it ({@link #failed}). */
    private boolean unfailed(Key key) {
        return key.user() == null || failed.getIfPresent(nameKey(key.user())) == null;
    }

    /** A user name's key in {@link #failed}: its salted digest, 32 bytes whatever the name's length. */
    private ByteBuffer nameKey(String user) {
        MessageDigest sha = SHA256.get();
        sha.update(salt);
        sha.update((byte) 1); // apart from the secrets' digests
        sha.update(user.getBytes(StandardCharsets.UTF_8));
        return ByteBuffer.wrap(sha.digest());
    }

    /** The user and a salted digest of the secret: equal credentials, equal keys; the secret is not kept. */
    private Key cacheKey(Credentials c) {
        String user;
        String secret;
        switch (c) {
            case Credentials.Basic b -> {
                user = b.user();
                secret = b.password();
            }
            case Credentials.Bearer b -> {
                user = null; // a token names its user itself
                secret = b.token();
            }
        }
        MessageDigest sha = SHA256.get();
        sha.update(salt);
        sha.update(secret.getBytes(StandardCharsets.UTF_8));
        return new Key(user, ByteBuffer.wrap(sha.digest()));
    }
}
