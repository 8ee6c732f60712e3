package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** Options of {@code sluice serve} that do not go together are refused before anything starts. */
class ServeCommandTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "--user neo4j                                      | account on a Neo4j server (--neo4j)",
            "--password secret                                 | account on a Neo4j server (--neo4j)",
            "--neo4j http://127.0.0.1:7474                     | expected a Neo4j URI",
            "--neo4j bolt://neo4j:secret@127.0.0.1:7687        | not in the URI"})
    void conflictingOptionsAreRefused(String args, String message) {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new ServeCommand())
                .setErr(new PrintWriter(err))
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    cmd.getErr().println(e.getMessage());
                    return 2;
                })
                .execute(args.trim().split(" +"));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains(message);
    }

    @org.junit.jupiter.api.Test
    void boltNoneOrEmptyMeansNoBoltListener() {
        assertThat(ServeCommand.noBolt("none")).isTrue();
        assertThat(ServeCommand.noBolt(" NONE ")).isTrue();
        assertThat(ServeCommand.noBolt("")).as("an empty SLUICE_BOLT: a container's ENV cannot be unset").isTrue();
        assertThat(ServeCommand.noBolt(null)).as("not given: the default").isFalse();
        assertThat(ServeCommand.noBolt("127.0.0.1:7687")).isFalse();
    }
}
