package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.support.TestServer;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Session;
import org.neo4j.driver.exceptions.ClientException;

/**
 * {@code neo4j.plugins_dir}: the embedded Neo4j loads procedure and function jars from it, as a user adds APOC or
 * their own. The test compiles a procedure jar of its own (a read procedure, a function and a write procedure,
 * against Neo4j's procedure API on the class path), starts sluice with it, and calls all three through Bolt: the
 * write procedure's node is written through sluice's write path. Without the setting the same calls are Neo4j's
 * "no such procedure" errors.
 */
@Timeout(180)
class PluginsTest {
    static final String SOURCE = """
            package sluicetest;

            import java.util.stream.Stream;
            import org.neo4j.graphdb.Label;
            import org.neo4j.graphdb.Transaction;
            import org.neo4j.procedure.Context;
            import org.neo4j.procedure.Mode;
            import org.neo4j.procedure.Name;
            import org.neo4j.procedure.Procedure;
            import org.neo4j.procedure.UserFunction;

            public class Greeter {
                @Context
                public Transaction tx;

                public static class Greeting {
                    public String greeting;

                    public Greeting(String greeting) {
                        this.greeting = greeting;
                    }
                }

                @Procedure(name = "sluicetest.greet", mode = Mode.READ)
                public Stream<Greeting> greet(@Name("name") String name) {
                    return Stream.of(new Greeting("hello " + name));
                }

                @Procedure(name = "sluicetest.mark", mode = Mode.WRITE)
                public void mark(@Name("key") String key) {
                    tx.createNode(Label.label("PluginMark")).setProperty("key", key);
                }

                @UserFunction(name = "sluicetest.twice")
                public long twice(@Name("x") long x) {
                    return 2 * x;
                }
            }
            """;

    @Test
    void proceduresAndFunctionsFromThePluginsDirectoryAreCallable() throws Exception {
        Path dir = Files.createTempDirectory("sluice-plugins-");
        try {
            Path plugins = dir.resolve("plugins");
            jar(plugins.resolve("sluicetest.jar"), dir.resolve("build"));
            try (TestServer s = TestServer.start("neo4j: {pagecache: 64m, plugins_dir: '" + plugins + "'}\n", true);
                    Driver driver = GraphDatabase.driver("bolt://" + s.bolt, AuthTokens.basic("neo4j",
                            TestServer.PASSWORD));
                    Session session = driver.session()) {
                String greeting;
                try {
                    greeting = session.run("CALL sluicetest.greet('sluice') YIELD greeting RETURN greeting").single()
                            .get(0).asString();
                } catch (ClientException e) {
                    throw new AssertionError(e.getMessage() + "; what Neo4j logged of the plugins: " + logged(s), e);
                }
                assertThat(greeting).isEqualTo("hello sluice");
                assertThat(session.run("RETURN sluicetest.twice(21) AS x").single().get(0).asLong()).isEqualTo(42);
                session.run("CALL sluicetest.mark('k1')").consume();
                assertThat(s.count("MATCH (n:PluginMark {key: 'k1'}) RETURN count(n)")).isEqualTo(1);
            }
            try (TestServer s = TestServer.start("", true);
                    Driver driver = GraphDatabase.driver("bolt://" + s.bolt, AuthTokens.basic("neo4j",
                            TestServer.PASSWORD));
                    Session session = driver.session()) {
                assertThatThrownBy(() -> session.run("CALL sluicetest.greet('sluice')").consume())
                        .as("no plugins_dir: DATA/plugins, empty").isInstanceOf(ClientException.class)
                        .hasFieldOrPropertyWithValue("code", "Neo.ClientError.Procedure.ProcedureNotFound");
            }
        } finally {
            TestServer.deleteRecursively(dir);
        }
    }

    /** What the embedded Neo4j's log says of plugins and procedures. */
    static List<String> logged(TestServer s) throws IOException {
        Path log = s.dataDir.resolve("logs/debug.log");
        if (!Files.exists(log)) {
            return List.of("no " + log);
        }
        try (Stream<String> lines = Files.lines(log)) {
            return lines.filter(l -> l.toLowerCase(Locale.ROOT).matches(".*(plugin|procedure|sluicetest).*"))
                    .limit(20).toList();
        }
    }

    /** {@link #SOURCE} compiled against the test's class path (Neo4j's procedure API) into the jar {@code to}. */
    static void jar(Path to, Path build) throws IOException {
        Path src = build.resolve("src/sluicetest/Greeter.java");
        Path classes = build.resolve("classes");
        Files.createDirectories(src.getParent());
        Files.createDirectories(classes);
        Files.createDirectories(to.getParent());
        Files.writeString(src, SOURCE);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-proc:none", "-cp", System.getProperty("java.class.path"), "-d",
                classes.toString(), src.toString());
        assertThat(rc).as("the procedure compiles").isZero();
        try (OutputStream out = Files.newOutputStream(to); JarOutputStream jar = new JarOutputStream(out);
                Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                jar.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                jar.write(Files.readAllBytes(f));
                jar.closeEntry();
            }
        }
        assertThat(to).exists();
    }
}
