package io.sluice.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sluice.config.ConfigLoader;
import io.sluice.server.Security;
import io.sluice.server.SluiceServer;
import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.config.HostPort;
import io.sluice.support.TestServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * With no NEO4J_AUTH, a fresh store gets a strong generated password in a file only its owner can read, which
 * works, is never logged, and is not replaced on the next start; a password set offline beforehand (as
 * neo4j-admin does) wins over generating one; and with authentication off, only loopback listeners are allowed.
 */
@Timeout(180)
class GeneratedPasswordTest {
    static final String YAML = "neo4j: {pagecache: 16m}\n";

    static int status(SluiceServer server, String user, String password) throws Exception {
        try (HttpClient c = HttpClient.newHttpClient()) {
            return c.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/db/neo4j/query/v2"))
                    .timeout(Duration.ofSeconds(30)).header("Authorization", CredentialsTest.basic(user + ":" + password))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"statement\":\"RETURN 1\"}")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode();
        }
    }

    static SluiceServer start(Path dir, InitialAuth auth) throws Exception {
        return SluiceServer.start(new SluiceServer.Options(ConfigLoader.parse(YAML), dir,
                new HostPort("127.0.0.1", 0), null).withInitialAuth(auth));
    }

    @Test
    void aFreshStoreGetsAGeneratedPasswordThatIsNeverLogged() throws Exception {
        Path dir = Files.createTempDirectory("sluice-generated-");
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        logged.start();
        root.addAppender(logged);
        try {
            String password;
            try (SluiceServer server = start(dir, new InitialAuth.Generate())) {
                Path file = dir.resolve(Security.PASSWORD_FILE);
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
                password = Files.readString(file).strip();
                assertThat(password).hasSize(24);
                assertThat(status(server, "neo4j", password)).isEqualTo(202);
                assertThat(status(server, "neo4j", "neo4j")).isEqualTo(401);
                assertThat(server.authentication()).contains(file.toString()).doesNotContain(password);
            }
            assertThat(logged.list).as("where it is, not what it is")
                    .anySatisfy(e -> assertThat(e.getFormattedMessage()).contains(Security.PASSWORD_FILE))
                    .noneSatisfy(e -> assertThat(e.getFormattedMessage()).contains(password));
            try (SluiceServer again = start(dir, new InitialAuth.Generate())) {
                assertThat(Files.readString(dir.resolve(Security.PASSWORD_FILE)).strip()).isEqualTo(password);
                assertThat(status(again, "neo4j", password)).as("the second start keeps it").isEqualTo(202);
            }
        } finally {
            root.detachAppender(logged);
            TestServer.deleteRecursively(dir);
        }
    }

    @Test
    void aPasswordSetOfflineBeforeTheFirstStartWins() throws Exception {
        Path dir = Files.createTempDirectory("sluice-set-initial-");
        try {
            EmbeddedNeo4j.setInitialPassword(dir, "set-offline-1", false);
            assertThatThrownBy(() -> EmbeddedNeo4j.setInitialPassword(dir, "short", false))
                    .hasMessageContaining("at least 8").hasMessageNotContaining("short");
            try (SluiceServer server = start(dir, new InitialAuth.Generate())) {
                assertThat(dir.resolve(Security.PASSWORD_FILE)).doesNotExist();
                assertThat(status(server, "neo4j", "set-offline-1")).isEqualTo(202);
            }
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }

    @Test
    void withAuthenticationOffOnlyLoopbackListenersAreAllowed() throws Exception {
        Path dir = Files.createTempDirectory("sluice-protected-");
        try {
            assertThatThrownBy(() -> SluiceServer.start(new SluiceServer.Options(ConfigLoader.parse(YAML), dir,
                    new HostPort("0.0.0.0", 0), null).withInitialAuth(new InitialAuth.Off())))
                    .hasMessageContaining("refusing to start").hasMessageContaining("0.0.0.0:0")
                    .hasMessageContaining("security.protected_mode: false");
            assertThat(dir.resolve("data")).as("refused before anything was created").doesNotExist();
            Security open = new Security(ConfigLoader.parse(YAML + "security: {protected_mode: false}\n"),
                    new InitialAuth.Off());
            open.checkProtectedMode(new HostPort("0.0.0.0", 7474)); // deliberately overridden: no refusal
            Security on = new Security(ConfigLoader.parse(YAML), new InitialAuth.Generate());
            on.checkProtectedMode(new HostPort("0.0.0.0", 7474)); // authenticated: any interface
            Security off = new Security(ConfigLoader.parse(YAML), new InitialAuth.Off());
            off.checkProtectedMode(new HostPort("127.0.0.1", 7474), new HostPort("localhost", 7687));
            assertThatThrownBy(() -> off.checkProtectedMode(new HostPort("127.0.0.1", 7474),
                    new HostPort("10.1.2.3", 7687))).hasMessageContaining("10.1.2.3:7687");
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }
}
