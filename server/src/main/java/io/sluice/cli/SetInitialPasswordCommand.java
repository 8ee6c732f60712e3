package io.sluice.cli;

import io.sluice.sink.EmbeddedNeo4j;
import io.sluice.format.DataFormat;
import io.sluice.format.Version;
import java.nio.file.Path;
import io.sluice.time.Time;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice set-initial-password}: the initial password of user {@code neo4j}, set offline, as
 * {@code neo4j-admin dbms set-initial-password} does (it is Neo4j's own command, run in-process). It takes effect
 * at the next start while {@code neo4j} still has the default password.
 */
@Command(name = "set-initial-password", mixinStandardHelpOptions = true,
        description = "Set the initial password of user neo4j in a data directory, before 'sluice serve' first starts"
                + " on it (as neo4j-admin dbms set-initial-password).")
final class SetInitialPasswordCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PASSWORD", description = "at least 8 characters")
    String password;

    @Option(names = "--data", defaultValue = "${env:SLUICE_DATA:-data}",
            description = "data directory (env SLUICE_DATA, as serve; default: ${DEFAULT-VALUE})")
    Path data;

    @Option(names = "--require-password-change", description = "the password must be changed at first use")
    boolean requireChange;

    @Override
    public Integer call() throws java.io.IOException {
        // a data directory like serve's: a newer one refused before anything is written into it, a new one marked
        System.err.println(DataFormat.open(data, Version.line(), Time.SYSTEM.now()).said());
        EmbeddedNeo4j.setInitialPassword(data, password, requireChange);
        System.out.println("initial password of user 'neo4j' set in " + data + (EmbeddedNeo4j.isFresh(data) ? ""
                : " (Neo4j has run here: it applies only while neo4j still has the default password)"));
        return 0;
    }
}
