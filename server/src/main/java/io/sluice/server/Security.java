package io.sluice.server;

import io.sluice.config.HostPort;
import io.sluice.config.SluiceConfig;
import io.sluice.config.Tls;
import io.sluice.security.Authenticator;
import io.sluice.security.InitialAuth;
import io.sluice.security.Pem;
import io.sluice.security.UserStore;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start-up's security decisions, in one place: whether authentication is on (config and {@code NEO4J_AUTH}),
 * the initial password of a fresh store (given, or generated into a file only its owner can read), protected
 * mode (no unauthenticated listener beyond loopback), the TLS context, and the HTTP authenticator over Neo4j's
 * users. No secret is ever logged. Used by {@code sluice serve} (through {@link SluiceServer}) and by
 * {@code sluice neo4j}.
 */
public final class Security {
    private static final Logger log = LoggerFactory.getLogger(Security.class);
    /** Neo4j's default minimum ({@code dbms.security.auth_minimum_password_length}). */
    static final int MIN_PASSWORD_LENGTH = 8;
    public static final String PASSWORD_FILE = "initial-password";

    private final SluiceConfig config;
    private final InitialAuth initial;

    public Security(SluiceConfig config, InitialAuth initial) {
        this.config = config;
        this.initial = initial == null ? new InitialAuth.Generate() : initial;
    }

    public boolean auth() {
        return config.security().auth() && !(initial instanceof InitialAuth.Off);
    }

    /**
     * Refuses to start unauthenticated on anything but loopback, unless protected mode is off: an open write
     * gateway on a network is a database anyone can change.
     */
    public void checkProtectedMode(HostPort... listeners) {
        refuseOpenListeners(!auth(), "authentication is off (NEO4J_AUTH=none or security.auth: false)", listeners);
    }

    /** The same for a remote Neo4j that accepts any credentials: its users cannot protect sluice's HTTP. */
    void checkRemoteUsers(boolean acceptsAnything, HostPort... listeners) {
        refuseOpenListeners(auth() && acceptsAnything, "the Neo4j behind --neo4j accepts any credentials (its"
                + " authentication is off)", listeners);
    }

    private void refuseOpenListeners(boolean open, String why, HostPort... listeners) {
        if (!open || !config.security().protectedMode()) {
            return;
        }
        for (HostPort l : listeners) {
            if (l != null && !isLoopback(l.host())) {
                throw new IllegalStateException("refusing to start: " + why + " and a listener is on " + l
                        + ", which other machines can reach. Turn authentication on, listen on 127.0.0.1, or,"
                        + " deliberately, set security.protected_mode: false in the config.");
            }
        }
    }

    static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** The embedded DBMS's authentication, with the initial password a fresh store should get. */
    public EmbeddedNeo4j.Security embedded(Path dataDir) {
        EmbeddedNeo4j.BoltTls tls = boltTls();
        if (!auth()) {
            log.warn("authentication is OFF: anyone who reaches sluice's HTTP or Bolt port can read and write");
            return new EmbeddedNeo4j.Security(false, null, false, tls);
        }
        return switch (initial) {
            case InitialAuth.Given g -> new EmbeddedNeo4j.Security(true, g.password(), g.requireChange(), tls);
            // a fresh store, and no initial password set offline (sluice set-initial-password)
            case InitialAuth.Generate g when EmbeddedNeo4j.isFresh(dataDir) && !EmbeddedNeo4j.hasInitialPassword(dataDir) -> {
                String password = InitialAuth.generatePassword();
                Path file = writeSecret(dataDir.resolve(PASSWORD_FILE), password);
                log.info("authentication is on: the initial password of user 'neo4j' was generated and written to {}"
                        + " (readable by its owner only); change it with ALTER CURRENT USER SET PASSWORD over Bolt",
                        file.toAbsolutePath());
                yield new EmbeddedNeo4j.Security(true, password, false, tls);
            }
            default -> new EmbeddedNeo4j.Security(true, null, false, tls);
        };
    }

    private EmbeddedNeo4j.BoltTls boltTls() {
        Tls t = config.tls();
        return t.bolt() == Tls.Bolt.OFF ? null : new EmbeddedNeo4j.BoltTls(Path.of(t.certificate()),
                Path.of(t.privateKey()), t.bolt() == Tls.Bolt.REQUIRED);
    }

    /** The HTTPS listener's context, or null when there is none. */
    SSLContext httpsContext() {
        Tls t = config.tls();
        return t.https() == null ? null : Pem.serverContext(Path.of(t.certificate()), Path.of(t.privateKey()));
    }

    /** TLS for sluice's Bolt listener, from the same PEM files as HTTPS; null when {@code tls.bolt} is off. */
    SSLContext boltContext() {
        Tls t = config.tls();
        return t.bolt() == Tls.Bolt.OFF ? null : Pem.serverContext(Path.of(t.certificate()), Path.of(t.privateKey()));
    }

    /** Whether plain Bolt is refused ({@code tls.bolt: required}). */
    boolean boltTlsRequired() {
        return config.tls().bolt() == Tls.Bolt.REQUIRED;
    }

    Authenticator authenticator(UserStore users, Time time) {
        if (!auth()) {
            return Authenticator.OFF;
        }
        var s = config.security();
        return new Authenticator(users, time, s.maxFailedAttempts(), s.lockTime(), s.credentialCacheTtl(),
                s.credentialCacheSize());
    }

    /** For the start-up line: on or off, and where a generated password is. */
    public String describe(Path dataDir) {
        if (!auth()) {
            return "OFF";
        }
        Path file = dataDir.resolve(PASSWORD_FILE);
        return Files.exists(file) ? "on (user neo4j; initial password in " + file + ")" : "on (Neo4j's users)";
    }

    /** Writes {@code secret} to a new file only its owner can read (rw-------), replacing an old one. */
    static Path writeSecret(Path file, String secret) {
        try {
            Files.createDirectories(file.getParent());
            Files.deleteIfExists(file);
            Set<PosixFilePermission> owner = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
            try (SeekableByteChannel ch = Files.newByteChannel(file, EnumSet.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(owner))) {
                ch.write(ByteBuffer.wrap((secret + "\n").getBytes(StandardCharsets.UTF_8)));
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
