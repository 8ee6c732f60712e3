package io.sluice.durable;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.config.TemplateConfig;
import io.sluice.write.Statement;
import io.sluice.write.Template;
import io.sluice.write.WriteRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The streaming encoder writes the same bytes the mapper wrote for the same map (records journaled by either
 * decode alike), and what it writes decodes to the request it was given.
 */
class RecordCodecTest {
    private static final Template ITEM = Template.compile("item",
            new TemplateConfig("CREATE (:Item {id: row.id})", List.of("id"), null));
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static Map<String, Object> row(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void aTemplateRequestIsWrittenAsTheMapperWroteItAndDecodesBack() throws Exception {
        List<Map<String, Object>> rows = List.of(
                row("id", 7L, "name", "caf\u00e9 \"quoted\" \\ \n", "score", 2.5, "ok", true, "none", null),
                row("id", Integer.MAX_VALUE, "tags", List.of("a", "b"), "nested", row("x", List.of(1L, row("y", false)))),
                row("id", -1L, "nan", Double.NaN, "decimal", new java.math.BigDecimal("1.25")));
        WriteRequest.TemplateRequest request = new WriteRequest.TemplateRequest(ITEM, rows, 100);
        byte[] encoded = RecordCodec.encode(request);
        Map<String, Object> asMap = new LinkedHashMap<>();
        asMap.put("v", 1);
        asMap.put("t", "item");
        asMap.put("r", rows);
        assertThat(new String(encoded, "UTF-8")).isEqualTo(MAPPER.writeValueAsString(asMap));
        WriteRequest.TemplateRequest decoded = (WriteRequest.TemplateRequest) RecordCodec.decode(encoded, Map.of("item", ITEM));
        assertThat(decoded.template()).isSameAs(ITEM);
        assertThat(decoded.rowList()).hasSize(3);
        assertThat(decoded.rowList().get(0)).containsExactlyEntriesOf(rows.get(0));
        assertThat(decoded.rowList().get(1).get("nested")).isEqualTo(Map.of("x", List.of(1L, Map.of("y", false))));
        assertThat(decoded.rowList().get(1).get("id")).isEqualTo((long) Integer.MAX_VALUE); // integers come back as longs
    }

    @Test
    void aCypherRequestIsWrittenAsTheMapperWroteItAndDecodesBack() throws Exception {
        Map<String, Object> params = row("date", new java.math.BigDecimal("2026.1123"), "bytes", new byte[] {1, 2, 3},
                "list", new ArrayList<>(Arrays.asList(1L, null, "x")));
        List<Statement> statements = List.of(new Statement("CREATE (n {d: $date})", params),
                new Statement("RETURN 1", Map.of()));
        byte[] encoded = RecordCodec.encode(new WriteRequest.CypherRequest(statements, 10));
        List<Map<String, Object>> ss = new ArrayList<>();
        for (Statement s : statements) {
            ss.add(Map.of("q", s.cypher(), "p", s.params()));
        }
        Map<String, Object> asMap = new LinkedHashMap<>();
        asMap.put("v", 1);
        asMap.put("s", ss);
        assertThat(MAPPER.readTree(encoded)).isEqualTo(MAPPER.readTree(MAPPER.writeValueAsBytes(asMap)));
        WriteRequest.CypherRequest decoded = (WriteRequest.CypherRequest) RecordCodec.decode(encoded, Map.of());
        assertThat(decoded.statements()).extracting(Statement::cypher).containsExactly("CREATE (n {d: $date})", "RETURN 1");
        assertThat(decoded.statements().get(0).params().get("list")).isEqualTo(Arrays.asList(1L, null, "x"));
    }
}
