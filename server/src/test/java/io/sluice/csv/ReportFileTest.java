package io.sluice.csv;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportFileTest {
    @TempDir
    Path dir;

    @Test
    void oneJsonObjectPerLineAppendedAcrossRuns() throws Exception {
        Path f = dir.resolve("sub/import.report");
        try (ReportFile r = ReportFile.append(f)) {
            r.write(new Rejection(Rejection.Problem.DuplicateNode, "id '5' twice", "u.csv", 3,
                    Map.of("node", Map.of("id", "5", "group", "User"))));
            assertThat(r.counts()).containsEntry(Rejection.Problem.DuplicateNode, 1L);
        }
        try (ReportFile r = ReportFile.append(f)) {
            r.write(new Rejection(Rejection.Problem.BadValue, "bad", "u.csv", 9, Map.of("column", "age:int", "value", "x")));
        }
        List<String> lines = Files2.lines(f);
        assertThat(lines).hasSize(2);
        JsonNode first = new ObjectMapper().readTree(lines.get(0));
        assertThat(first.fieldNames()).toIterable().containsExactly("problem", "message", "source", "line", "node");
        assertThat(first.get("problem").asText()).isEqualTo("DuplicateNode");
        assertThat(first.get("node").get("group").asText()).isEqualTo("User");
        assertThat(new ObjectMapper().readTree(lines.get(1)).get("line").asLong()).isEqualTo(9);
    }
}
