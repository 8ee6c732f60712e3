package io.sluice.bolt;

import static io.sluice.support.BoltWire.FAILURE;
import static io.sluice.support.BoltWire.IGNORED;
import static io.sluice.support.BoltWire.RECORD;
import static io.sluice.support.BoltWire.SUCCESS;
import static io.sluice.support.BoltWire.begin;
import static io.sluice.support.BoltWire.hello;
import static io.sluice.support.BoltWire.logon;
import static io.sluice.support.BoltWire.meta;
import static io.sluice.support.BoltWire.pull;
import static io.sluice.support.BoltWire.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.bolt.PackStream.Struct;
import io.sluice.support.BoltWire;
import io.sluice.support.Neo4jProcess;
import io.sluice.support.TestServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A read that fails at runtime, pulled a few rows at a time, on Neo4j's own server and on sluice: the same messages
 * in the same order. Neo4j produces rows lazily, so a PULL whose {@code n} ends just before the failing row answers
 * {@code has_more} and the failure comes with the next PULL; sluice has read the whole result inside its
 * transaction, yet must answer the same way.
 */
class RowsBeforeErrorWireTest {
    static Path dir;
    static Neo4jProcess neo4j;
    static TestServer sluice;

    @BeforeAll
    @Timeout(240)
    static void start() throws IOException {
        dir = Files.createTempDirectory("sluice-rows-before-error-");
        neo4j = Neo4jProcess.startHttp(dir.resolve("neo4j"), "neo4j/" + TestServer.PASSWORD, Map.of());
        sluice = TestServer.start("", true);
    }

    @AfterAll
    static void stop() {
        try {
            if (neo4j != null) {
                neo4j.close();
            }
        } finally {
            if (sluice != null) {
                sluice.close();
            }
            TestServer.deleteRecursively(dir);
        }
    }

    @Test
    @Timeout(120)
    void pulledInStepsTheRowsThenTheFailureComeAsNeo4jSendsThem() throws IOException {
        String failsAtThird = "UNWIND [1, 2, 0, 4] AS x RETURN 10 / x AS y";
        for (boolean inTransaction : new boolean[] {false, true}) {
            for (long[] pulls : new long[][] {{2, 2}, {1, 1, 1, 1}, {3}, {2, -1}, {-1}}) {
                List<Struct> messages = new ArrayList<>();
                if (inTransaction) {
                    messages.add(begin(Map.of()));
                }
                messages.add(run(failsAtThird));
                for (long n : pulls) {
                    messages.add(pull(n, -1));
                }
                String what = (inTransaction ? "in a transaction, " : "auto-commit, ") + "PULL n " + java.util.Arrays.toString(pulls);
                assertThat(conversation(sluice.bolt.host(), sluice.bolt.port(), messages)).as(what)
                        .isEqualTo(conversation("127.0.0.1", neo4j.port, messages));
            }
        }
    }

    /**
     * Sluice's one difference: a RUN or COMMIT in the transaction before the held-back failure was pulled gets that
     * failure (sluice's transaction ended with it; Neo4j would still run the RUN, and fail the COMMIT so too).
     */
    @Test
    @Timeout(60)
    void aRunOrCommitBeforeTheFailureWasPulledGetsIt() throws IOException {
        for (Struct next : new Struct[] {run("RETURN 1 AS one"), BoltWire.commit()}) {
            List<String> got = conversation(sluice.bolt.host(), sluice.bolt.port(), List.of(begin(Map.of()),
                    run("UNWIND [1, 2, 0] AS x RETURN 10 / x AS y"), pull(2, -1), next, pull(-1, -1)));
            assertThat(got).as("then %s", next).containsExactly("SUCCESS", "SUCCESS fields [y]", "RECORD [[10]]",
                    "RECORD [[5]]", "SUCCESS has_more", "FAILURE Neo.ClientError.Statement.ArithmeticError", "IGNORED");
        }
    }

    /** What the server answers to {@code messages}, each answer as its kind and what matters of it. */
    static List<String> conversation(String host, int port, List<Struct> messages) throws IOException {
        List<String> out = new ArrayList<>();
        try (BoltWire w = BoltWire.connect(host, port)) {
            w.manifestHandshake(5, 8);
            w.send(hello(Map.of()), logon("neo4j", TestServer.PASSWORD));
            w.receive();
            w.receive();
            w.send(messages.toArray(Struct[]::new));
            for (int i = 0; i < messages.size(); i++) {
                for (Struct s : w.receiveSummary()) {
                    Map<String, Object> m = s.tag() == SUCCESS || s.tag() == FAILURE ? meta(s) : Map.of();
                    out.add(switch ((int) s.tag()) {
                        case RECORD -> "RECORD " + s.fields();
                        case SUCCESS -> "SUCCESS" + (m.containsKey("has_more") ? " has_more" : "")
                                + (m.containsKey("fields") ? " fields " + m.get("fields") : "");
                        case FAILURE -> "FAILURE " + m.get("neo4j_code");
                        case IGNORED -> "IGNORED";
                        default -> "?" + s.tag();
                    });
                }
            }
        }
        return out;
    }
}
