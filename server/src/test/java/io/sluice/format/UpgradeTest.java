package io.sluice.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.ConfigLoader;
import io.sluice.config.SluiceConfig;
import io.sluice.config.HostPort;
import io.sluice.security.InitialAuth;
import io.sluice.server.SluiceServer;
import io.sluice.support.TestServer;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * This release on the previous release's data directory: a directory written by sluice 0.1 at {@code 73a2c38}
 * (its {@code serve} with {@code examples/sluice.yaml}, authentication on, sync and async writes, then
 * {@code kill -9} with async writes acknowledged and, as its journal's position in the graph shows, not all applied;
 * how it was made: {@code src/test/resources/upgrade/README.md}). Started on it, this release says it upgraded the
 * directory and the graph, applies the journal's rest exactly once, keeps the old password and takes new writes; a
 * directory (or graph) marked by a newer release is refused with an error naming both.
 */
@Timeout(300)
class UpgradeTest {
    static final Path FIXTURE = Path.of("src/test/resources/upgrade/sluice-0.1-73a2c38-data.tar.gz");
    /** What the fixture's writes were (its README): the password, and the rows the old release acknowledged. */
    static final String PASSWORD = "upgrade-test-password";
    static final long VISITS = 3_000;
    static final long PEOPLE = 20;
    /** The journal's last offset the old release acknowledged (its last async write's 202). */
    static final long LAST_OFFSET = 299;

    Path dir;

    @AfterEach
    void cleanUp() {
        TestServer.deleteRecursively(dir);
    }

    Path unpackFixture() throws Exception {
        dir = Files.createTempDirectory("sluice-upgrade-");
        Process tar = new ProcessBuilder("tar", "-xzf", FIXTURE.toAbsolutePath().toString(), "-C", dir.toString())
                .redirectErrorStream(true).start();
        assertThat(tar.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(tar.exitValue()).as(new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                .isZero();
        Path data = dir.resolve("data");
        assertThat(data.resolve("journal")).isDirectory();
        assertThat(data.resolve("FORMAT")).as("the previous release marked nothing").doesNotExist();
        return data;
    }

    static SluiceServer start(Path data) throws Exception {
        SluiceConfig c = ConfigLoader.load(Path.of("../examples/sluice.yaml"));
        c = c.with(c.warmup().withoutRehearsal());
        return SluiceServer.start(new SluiceServer.Options(c, data, new HostPort("127.0.0.1", 0), null)
                .withInitialAuth(new InitialAuth.Given("not-the-password-any-more", false)));
    }

    static long count(SluiceServer s, String cypher) {
        return s.neo4j().database().executeTransactionally(cypher, Map.of(),
                r -> ((Number) r.next().values().iterator().next()).longValue());
    }

    /** A request with the old release's credentials; the body of a 200, else a failure. */
    static String http(SluiceServer s, String method, String path, String body) throws Exception {
        try (HttpClient c = HttpClient.newHttpClient()) {
            HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create(s.baseUrl() + path))
                    .header("Authorization", TestServer.basic("neo4j", PASSWORD))
                    .header("Content-Type", "application/json").timeout(Duration.ofSeconds(90))
                    .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            return r.body();
        }
    }

    @Test
    void thisReleaseUpgradesThePreviousOnesDataAndGoesOnWhereItStopped() throws Exception {
        Path data = unpackFixture();
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        logged.start();
        root.addAppender(logged);
        SluiceServer s;
        try {
            s = start(data);
        } finally {
            root.detachAppender(logged);
        }
        String log = String.join("\n", logged.list.stream().map(ILoggingEvent::getFormattedMessage).toList());
        try {
            assertThat(log).contains("format 1 (sluice 0.1, before formats were marked) upgraded to format 2")
                    .contains("the graph: positions of format 1 (sluice 0.1,")
                    .as("the old release's journal held acknowledged writes not yet applied")
                    .containsPattern("journal \\S+ \\(lag [1-9]");
            assertThat(Files.readString(data.resolve("FORMAT"))).contains("format=2").contains("upgraded_from=1");
            // the journal's rest applied, once: every acknowledged visit, no more
            assertThat(http(s, "GET", "/db/neo4j/applied?offset=" + LAST_OFFSET + "&wait=60s", null))
                    .contains("\"applied\":true");
            assertThat(count(s, "MATCH (:User)-[v:VISITED]->(:Site) RETURN count(v)")).isEqualTo(VISITS);
            assertThat(count(s, "MATCH (p:Person) RETURN count(p)")).isEqualTo(PEOPLE);
            assertThat(count(s, "MATCH (f:SluiceFormat) RETURN f.upgraded_from")).isEqualTo(1);
            // the old password, not NEO4J_AUTH's: the store's users are kept
            assertThat(http(s, "POST", "/db/neo4j/write/person", "{\"id\": 1000, \"name\": \"new\"}"))
                    .contains("\"rows\":1");
            assertThat(count(s, "MATCH (p:Person) RETURN count(p)")).isEqualTo(PEOPLE + 1);
        } finally {
            s.close();
        }
        // a second start: nothing more to upgrade
        try (SluiceServer again = start(data)) {
            assertThat(count(again, "MATCH (:User)-[v:VISITED]->(:Site) RETURN count(v)")).isEqualTo(VISITS);
        }
    }

    @Test
    void aDirectoryOrGraphMarkedByANewerReleaseIsRefusedByName() throws Exception {
        Path data = unpackFixture();
        try (SluiceServer s = start(data)) {
            assertThat(s).isNotNull();
        }
        Files.writeString(data.resolve("FORMAT"), "format=3\nwritten_by=sluice 0.3.0 (commit 0123456789ab)\n");
        assertThatThrownBy(() -> start(data)).hasMessageContaining("cannot start")
                .hasMessageContaining("is in format 3, written by sluice 0.3.0 (commit 0123456789ab)")
                .hasMessageContaining("reads formats up to 2");
        assertThat(Files.readString(data.resolve("FORMAT"))).startsWith("format=3");

        Files.writeString(data.resolve("FORMAT"), "format=2\n");
        try (SluiceServer s = start(data)) {
            s.neo4j().database().executeTransactionally("MATCH (f:SluiceFormat) SET f.format = 3, f.written_by ="
                    + " 'sluice 0.3.0'");
        }
        assertThatThrownBy(() -> start(data)).hasMessageContaining("the graph's sluice nodes are in format 3");
        assertThat(List.of(data.resolve("journal").toFile().list())).isNotEmpty();
    }
}
