package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.ConfigLoader;
import io.sluice.config.HostPort;
import io.sluice.config.SluiceConfig;
import io.sluice.journal.Journal;
import io.sluice.journal.JournalDirectory;
import io.sluice.journal.JournalOptions;
import io.sluice.support.Await;
import io.sluice.support.TestServer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A start-up that fails part-way closes everything it had built: no thread, no lock (Neo4j's store, the
 * journal's directory) and no port (Bolt, HTTP) is left behind. Failures at three depths: a template that does
 * not compile (after Neo4j and Bolt are up), a journal directory held by someone else (after the appliers
 * started), the HTTP port taken (the very last step).
 */
@Timeout(180)
class StartFailureTest {
    static final String GOOD = "templates:\n  item: {cypher: 'CREATE (:Item {id: row.id})', key: [id]}\nneo4j: {pagecache: 16m}\n";

    Path dir;
    int boltPort;
    int httpPort;
    Set<String> threadsBefore;

    /** Neo4j starts some JVM-wide threads once (the first DBMS of the process); start and stop one first. */
    @BeforeAll
    static void warmUp() throws Exception {
        Path d = Files.createTempDirectory("sluice-start-warmup-");
        try {
            SluiceServer.start(new SluiceServer.Options(ConfigLoader.parse(GOOD), d,
                    new HostPort("127.0.0.1", 0), new HostPort("127.0.0.1", TestServer.freePort()))).close();
        } finally {
            TestServer.deleteRecursively(d);
        }
    }

    @BeforeEach
    void setUp() throws Exception {
        dir = Files.createTempDirectory("sluice-start-failure-");
        boltPort = TestServer.freePort();
        httpPort = TestServer.freePort();
        threadsBefore = liveThreads();
    }

    @AfterEach
    void cleanUp() {
        TestServer.deleteRecursively(dir);
    }

    static Set<String> liveThreads() {
        Set<String> names = new TreeSet<>();
        Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .filter(t -> !t.getName().startsWith("junit-")) // JUnit's own @Timeout watcher, made on first use
                // the JVM's virtual-thread scheduler: its carriers come and go with load (idle ones end after 30 s)
                .filter(t -> !t.getClass().getName().equals("jdk.internal.misc.CarrierThread"))
                .forEach(t -> names.add(t.getName() + "#" + t.threadId() + " (" + t.getClass().getName() + ")"));
        return names;
    }

    Set<String> newThreads() {
        Set<String> left = liveThreads();
        left.removeAll(threadsBefore);
        return left;
    }

    SluiceServer.Options options(String yaml) throws Exception {
        SluiceConfig c = ConfigLoader.parse(yaml);
        return new SluiceServer.Options(c, dir, new HostPort("127.0.0.1", httpPort), new HostPort("127.0.0.1", boltPort));
    }

    /** What a failed start must leave: nothing that outlives it. */
    void nothingLeftBehind() throws Exception {
        try {
            Await.until("every thread the failed start-up made has ended", Duration.ofSeconds(20),
                    () -> newThreads().isEmpty());
        } catch (AssertionError e) {
            assertThat(newThreads()).as("threads the failed start-up left behind").isEmpty();
        }
        for (int port : new int[] {boltPort, httpPort}) {
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress("127.0.0.1", port)); // throws if still listening
            }
        }
        try (Journal j = JournalDirectory.open(dir.resolve("journal"), JournalOptions.defaults())) {
            assertThat(j.nextOffset()).as("the journal's directory lock was released").isGreaterThanOrEqualTo(0);
        }
        // the store lock: the same data directory starts, and stops, cleanly
        SluiceServer.start(options(GOOD)).close();
    }

    @Test
    void aTemplateThatDoesNotCompile() throws Exception {
        String yaml = "templates:\n  bad: {cypher: 'CREATE (:Item {id: row.id}) RETURN nosuch', key: [id]}\n"
                + "neo4j: {pagecache: 16m}\n";
        assertThatThrownBy(() -> SluiceServer.start(options(yaml)))
                .hasMessageContaining("template 'bad' does not compile");
        nothingLeftBehind();
    }

    @Test
    void aNeo4jSettingNeo4jDoesNotKnow() throws Exception {
        String yaml = GOOD.replace("neo4j: {pagecache: 16m}", "neo4j: {pagecache: 16m, settings: {db.no_such_setting: 1}}");
        assertThatThrownBy(() -> SluiceServer.start(options(yaml))).hasStackTraceContaining("db.no_such_setting");
        nothingLeftBehind();
    }

    @Test
    void aJournalHeldBySomeoneElse() throws Exception {
        try (Journal held = JournalDirectory.open(dir.resolve("journal"), JournalOptions.defaults())) {
            assertThatThrownBy(() -> SluiceServer.start(options(GOOD))).isInstanceOf(RuntimeException.class);
            assertThat(held.nextOffset()).isZero();
        }
        nothingLeftBehind();
    }

    @Test
    void theHttpPortTaken() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("127.0.0.1", httpPort));
            assertThatThrownBy(() -> SluiceServer.start(options(GOOD))).hasMessageContaining("cannot listen on");
        }
        nothingLeftBehind();
    }
}
