package io.sluice.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The Authorization header as Neo4j's HTTP server parses it, and NEO4J_AUTH as its container image reads it. */
class CredentialsTest {
    static String basic(String userColonPassword) {
        return "Basic " + Base64.getEncoder().encodeToString(userColonPassword.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void headersParseAsNeo4jParsesThem() {
        assertThat(Credentials.parse(null)).isInstanceOf(Credentials.Header.Missing.class);
        assertThat(Credentials.parse(basic("neo4j:secret pass:word")))
                .isEqualTo(new Credentials.Header.Present(new Credentials.Basic("neo4j", "secret pass:word")));
        assertThat(Credentials.parse("basic " + basic("a:b").substring(6))).as("the scheme in any case")
                .isEqualTo(new Credentials.Header.Present(new Credentials.Basic("a", "b")));
        assertThat(Credentials.parse(basic(":"))).as("empty user and password parse; the store refuses them")
                .isEqualTo(new Credentials.Header.Present(new Credentials.Basic("", "")));
        assertThat(Credentials.parse("Bearer abc.def"))
                .isEqualTo(new Credentials.Header.Present(new Credentials.Bearer("abc.def")));
        for (String bad : new String[] {"Basic !!!", basic("no-colon"), "Foo bar", "Basic", "Bearer a b", "", " "}) {
            assertThat(Credentials.parse(bad)).as(bad).isInstanceOf(Credentials.Header.Malformed.class);
        }
    }

    @Test
    void secretsAreNeverInToString() {
        assertThat(new Credentials.Basic("neo4j", "hunter22").toString()).doesNotContain("hunter22");
        assertThat(new Credentials.Bearer("tok3n").toString()).doesNotContain("tok3n");
        assertThat(new InitialAuth.Given("hunter22", false).toString()).doesNotContain("hunter22");
        assertThat(new io.sluice.sink.BoltSink.Options("bolt://localhost:7687", "sluice", "hunter22", "neo4j")
                .toString()).doesNotContain("hunter22");
        assertThat(new io.sluice.sink.EmbeddedNeo4j.Security(true, "hunter22", false, null).toString())
                .doesNotContain("hunter22");
    }

    @Test
    void neo4jAuthReadsAsTheContainerImageReadsIt() {
        assertThat(InitialAuth.parse(null, 8)).isInstanceOf(InitialAuth.Generate.class);
        assertThat(InitialAuth.parse("", 8)).isInstanceOf(InitialAuth.Generate.class);
        assertThat(InitialAuth.parse("none", 8)).isInstanceOf(InitialAuth.Off.class);
        assertThat(InitialAuth.parse("neo4j/longenough", 8)).isEqualTo(new InitialAuth.Given("longenough", false));
        assertThat(InitialAuth.parse("neo4j/longenough/TRUE", 8)).isEqualTo(new InitialAuth.Given("longenough", true));
        assertThatThrownBy(() -> InitialAuth.parse("admin/longenough", 8)).hasMessageContaining("must be neo4j");
        assertThatThrownBy(() -> InitialAuth.parse("neo4j/neo4j", 8)).hasMessageContaining("default");
        assertThatThrownBy(() -> InitialAuth.parse("neo4j/short", 8)).hasMessageContaining("at least 8")
                .hasMessageNotContaining("short");
        assertThatThrownBy(() -> InitialAuth.parse("neo4j", 8)).hasMessageContaining("'none' or 'neo4j/<password>'");
        assertThatThrownBy(() -> InitialAuth.parse("neo4j/a/b/c", 8)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void generatedPasswordsAreLongAndDifferent() {
        String a = InitialAuth.generatePassword();
        assertThat(a).hasSize(24).matches("[A-Za-z0-9]+");
        assertThat(InitialAuth.generatePassword()).isNotEqualTo(a);
    }
}
