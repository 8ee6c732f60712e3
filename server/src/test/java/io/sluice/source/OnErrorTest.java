package io.sluice.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.vocab.Neo4jError;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which errors are a record's own fault ({@code on_error} decides), and which are the environment's (retried). */
class OnErrorTest {
    @Test
    void onlyTheRecordsOwnErrorsAreItsFault() {
        assertThat(OnError.recordsFault(new Neo4jError("Neo.ClientError.Statement.TypeError",
                "x"))).isTrue();
        assertThat(OnError.recordsFault(new Neo4jError(
                "Neo.ClientError.Schema.ConstraintValidationFailed", "x"))).isTrue();
        assertThat(OnError.recordsFault(Neo4jError.invalidFormat("x"))).isTrue();
        for (String environment : List.of("Neo.ClientError.General.ForbiddenOnReadOnlyDatabase",
                "Neo.ClientError.Security.Forbidden", "Neo.ClientError.Database.DatabaseNotFound", "N/A",
                "Neo.ClientError.Security.AuthorizationExpired")) {
            assertThat(OnError.recordsFault(new Neo4jError(environment, "x")))
                    .as("%s: retried as an outage, never dead-lettered", environment).isFalse();
        }
    }
}
