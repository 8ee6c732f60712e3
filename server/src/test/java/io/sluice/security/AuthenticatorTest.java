package io.sluice.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.support.TestServer;
import io.sluice.time.ManualTime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The authenticator over the embedded DBMS's real users (Neo4j's AuthManager), counting how often it is asked:
 * verified credentials are answered from the cache until a user changes, wrong ones always reach Neo4j, and one
 * client address is slowed after repeated failures.
 */
@Timeout(120)
class AuthenticatorTest {
    static final String PASSWORD = "first-password-1";
    static Path dir;
    static EmbeddedNeo4j neo4j;

    final ManualTime time = new ManualTime();
    final AtomicInteger asked = new AtomicInteger();
    Authenticator auth;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("sluice-auth-");
        neo4j = EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(dir, null, 32L << 20, 0, "neo4j", null,
                new EmbeddedNeo4j.Security(true, PASSWORD, false, null), null));
        neo4j.system().executeTransactionally("CREATE USER alice SET PASSWORD 'alice-password-1' CHANGE NOT REQUIRED");
        neo4j.system().executeTransactionally("CREATE USER fresh SET PASSWORD 'fresh-password-1' CHANGE REQUIRED");
    }

    @AfterAll
    static void stop() {
        neo4j.close();
        TestServer.deleteRecursively(dir);
    }

    @BeforeEach
    void setUp() {
        UserStore real = neo4j.users();
        UserStore counting = new UserStore() {
            @Override
            public Verdict check(Credentials c) {
                asked.incrementAndGet();
                return real.check(c);
            }

            @Override
            public long version() {
                return real.version();
            }
        };
        auth = new Authenticator(counting, time, 3, Duration.ofSeconds(5), Duration.ofMinutes(1), 100);
    }

    Authenticator.Result as(String user, String password, String client) {
        return auth.authenticate(CredentialsTest.basic(user + ":" + password), client);
    }

    @Test
    void whatACallerRemembersIsValidAsLongAsTheCacheWouldBe() {
        long version = auth.version();
        assertThat(as("alice", "alice-password-1", "10.0.0.1")).isEqualTo(new Authenticator.Result.Authenticated("alice"));
        long until = auth.acceptedUntil();
        assertThat(auth.stillAccepted(version, until)).isTrue();
        time.advance(Duration.ofSeconds(59));
        assertThat(auth.stillAccepted(version, until)).isTrue();
        time.advance(Duration.ofSeconds(2));
        assertThat(auth.stillAccepted(version, until)).as("past the cache's expiry").isFalse();
        assertThat(auth.stillAccepted(version, auth.acceptedUntil())).isTrue();
        neo4j.system().executeTransactionally("CREATE USER remembered SET PASSWORD 'remembered-pw-1' CHANGE NOT REQUIRED");
        try {
            assertThat(auth.stillAccepted(version, auth.acceptedUntil())).as("the users changed").isFalse();
        } finally {
            neo4j.system().executeTransactionally("DROP USER remembered");
        }
        assertThat(auth.stillAccepted(Long.MIN_VALUE, auth.acceptedUntil())).as("a store that cannot tell").isFalse();
    }

    @Test
    void verifiedCredentialsAreCachedUntilAUserChanges() {
        for (int i = 0; i < 50; i++) {
            assertThat(as("alice", "alice-password-1", "10.0.0.1"))
                    .isEqualTo(new Authenticator.Result.Authenticated("alice"));
        }
        assertThat(asked).as("Neo4j asked once for 50 requests").hasValue(1);
        assertThat(auth.recognise(CredentialsTest.basic("alice:alice-password-1")))
                .as("the I/O thread's fast path knows them").isEqualTo(new Authenticator.Result.Authenticated("alice"));

        neo4j.system().executeTransactionally("ALTER USER alice SET PASSWORD 'alice-password-2'");
        assertThat(auth.recognise(CredentialsTest.basic("alice:alice-password-1"))).as("the cache saw the change").isNull();
        assertThat(as("alice", "alice-password-1", "10.0.0.1")).isInstanceOf(Authenticator.Result.Invalid.class);
        assertThat(as("alice", "alice-password-2", "10.0.0.1")).isEqualTo(new Authenticator.Result.Authenticated("alice"));
        neo4j.system().executeTransactionally("ALTER USER alice SET PASSWORD 'alice-password-1'");
    }

    /**
     * Neo4j counts a user's failed logins until a successful one: after a wrong password, the right one (cached)
     * reaches Neo4j once, so that its count starts again, as a login to Neo4j's own server would make it. Without
     * that, three wrong passwords spread among cached right ones locked the user out where Neo4j would not.
     */
    @Test
    void aUsersRightPasswordAfterAWrongOneReachesNeo4jOnceAndResetsItsCount() {
        assertThat(as("alice", "alice-password-1", "10.0.0.5")).isEqualTo(new Authenticator.Result.Authenticated("alice"));
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 2; i++) { // two wrong: under Neo4j's three, if the right one in between resets them
                assertThat(as("alice", "wrong-" + i, "10.0.0.5" + round))
                        .isEqualTo(new Authenticator.Result.Invalid("Invalid credential."));
            }
            int before = asked.get();
            assertThat(auth.recognise(CredentialsTest.basic("alice:alice-password-1"))).as("not from the cache now")
                    .isNull();
            assertThat(as("alice", "alice-password-1", "10.0.0.5")).as("round %d", round)
                    .isEqualTo(new Authenticator.Result.Authenticated("alice"));
            assertThat(asked.get() - before).as("Neo4j asked").isEqualTo(1);
            assertThat(as("alice", "alice-password-1", "10.0.0.5")).isEqualTo(new Authenticator.Result.Authenticated("alice"));
            assertThat(asked.get() - before).as("from the cache again").isEqualTo(1);
        }
    }

    @Test
    void cachedEntriesExpire() {
        as("alice", "alice-password-1", "10.0.0.2");
        time.advance(Duration.ofMinutes(2));
        assertThat(auth.recognise(CredentialsTest.basic("alice:alice-password-1"))).isNull();
        as("alice", "alice-password-1", "10.0.0.2");
        assertThat(asked).hasValue(2);
    }

    @Test
    void wrongCredentialsAlwaysReachNeo4jAndOneAddressIsSlowedDown() {
        for (int i = 0; i < 3; i++) {
            assertThat(as("nobody", "guess-" + i, "10.0.0.3")).isEqualTo(
                    new Authenticator.Result.Invalid("Invalid credential."));
        }
        assertThat(asked).hasValue(3);
        assertThat(as("alice", "alice-password-1", "10.0.0.3")).as("locked: even the right password waits")
                .isInstanceOf(Authenticator.Result.RateLimited.class);
        assertThat(as("alice", "alice-password-1", "10.0.0.4")).as("another address is not locked")
                .isEqualTo(new Authenticator.Result.Authenticated("alice"));
        time.advance(Duration.ofSeconds(6));
        assertThat(as("alice", "alice-password-1", "10.0.0.3")).as("after the lock time")
                .isEqualTo(new Authenticator.Result.Authenticated("alice"));
    }

    /** Neo4j's users, each check counted and held until {@code gate} opens. */
    static UserStore held(java.util.concurrent.CountDownLatch gate, AtomicInteger reached) {
        UserStore real = neo4j.users();
        return new UserStore() {
            @Override
            public Verdict check(Credentials c) {
                reached.incrementAndGet();
                try {
                    gate.await(30, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return real.check(c);
            }

            @Override
            public long version() {
                return real.version();
            }
        };
    }

    @Test
    void concurrentGuessesFromOneAddressCannotOutrunTheLimit() throws Exception {
        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        AtomicInteger reached = new AtomicInteger();
        UserStore slow = held(gate, reached); // every reserved check in flight at once
        Authenticator limited = new Authenticator(slow, time, 3, Duration.ofSeconds(5), Duration.ofMinutes(1), 100);
        java.util.List<java.util.concurrent.Future<Authenticator.Result>> results = new java.util.ArrayList<>();
        try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 20; i++) {
                int n = i;
                results.add(pool.submit(() -> limited.authenticate(CredentialsTest.basic("nobody:guess-" + n), "10.9.9.9")));
            }
            io.sluice.support.Await.until("the other 17 are refused at once", Duration.ofSeconds(30),
                    () -> results.stream().filter(java.util.concurrent.Future::isDone).count() == 17);
            assertThat(reached).as("only the limit's worth reached Neo4j").hasValue(3);
            gate.countDown();
        }
        assertThat(results.stream().map(f -> f.resultNow().getClass().getSimpleName()).toList())
                .containsOnly("Invalid", "RateLimited").filteredOn("Invalid"::equals).hasSize(3);
    }

    /** A client's pool of connections arriving at once with one good password: one check, none refused. */
    @Test
    void concurrentChecksOfTheSameCredentialsFromOneAddressAskNeo4jOnce() throws Exception {
        neo4j.system().executeTransactionally("CREATE USER pool IF NOT EXISTS SET PASSWORD 'pool-password-1' CHANGE NOT REQUIRED");
        java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        AtomicInteger reached = new AtomicInteger();
        UserStore slow = held(gate, reached);
        Authenticator limited = new Authenticator(slow, time, 3, Duration.ofSeconds(5), Duration.ofMinutes(1), 100);
        java.util.List<java.util.concurrent.Future<Authenticator.Result>> results = new java.util.ArrayList<>();
        try (var pool = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 20; i++) {
                results.add(pool.submit(() -> limited.authenticate(CredentialsTest.basic("pool:pool-password-1"),
                        "10.8.8.8")));
            }
            io.sluice.support.Await.until("the first check reaches Neo4j", Duration.ofSeconds(30), () -> reached.get() > 0);
            assertThat(results.stream().filter(java.util.concurrent.Future::isDone).count())
                    .as("none refused for the others in flight").isZero();
            gate.countDown();
        }
        assertThat(reached).as("one check for all twenty").hasValue(1);
        assertThat(results.stream().map(java.util.concurrent.Future::resultNow).distinct().toList())
                .containsExactly(new Authenticator.Result.Authenticated("pool"));
    }

    @Test
    void neo4jsOwnLockoutOfAUserNameIsReportedAndCachedCredentialsAreSpared() {
        assertThat(as("neo4j", PASSWORD, "10.0.0.5")).isEqualTo(new Authenticator.Result.Authenticated("neo4j"));
        for (int i = 0; i < 3; i++) {
            as("neo4j", "wrong-" + i, "10.0.1." + i); // three addresses: only Neo4j's per-user count adds up
        }
        assertThat(as("neo4j", "wrong-again", "10.0.1.9")).isEqualTo(new Authenticator.Result.RateLimited(
                "Too many failed authentication requests. Please wait 5 seconds and try again."));
        assertThat(as("neo4j", PASSWORD, "10.0.0.5")).as("verified before the lockout: spared it (Neo4j is asked, to"
                + " reset its count, and says the name is locked)").isEqualTo(new Authenticator.Result.Authenticated("neo4j"));
    }

    @Test
    void aPasswordThatMustBeChangedAndABearerTokenAreRefusedAsNeo4jRefusesThem() {
        assertThat(as("fresh", "fresh-password-1", "10.0.0.6")).isInstanceOf(Authenticator.Result.Expired.class);
        assertThat(auth.authenticate("Bearer some.jwt.token", "10.0.0.6")).isEqualTo(new Authenticator.Result.Invalid(
                "Unsupported authentication token, scheme 'bearer' is not supported."));
        assertThat(auth.authenticate((String) null, "10.0.0.6")).isInstanceOf(Authenticator.Result.Missing.class);
        assertThat(auth.authenticate("Basic !!!", "10.0.0.6")).isInstanceOf(Authenticator.Result.Malformed.class);
    }

    @Test
    void offLetsEveryoneInAnonymously() {
        assertThat(Authenticator.OFF.authenticate((String) null, "x")).isEqualTo(new Authenticator.Result.Authenticated(null));
    }
}
