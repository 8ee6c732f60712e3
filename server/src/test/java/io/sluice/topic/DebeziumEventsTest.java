package io.sluice.topic;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.Format;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Real records from Debezium 3.6.1's PostgreSQL connector (in a Kafka Connect 4.3.0 worker, JsonConverter with
 * schemas, transaction metadata on; how they were made: docs/reference/debezium-postgres.md, section 6) read by
 * {@link Formats} as a topic's {@code json_schema} values: every one reads, with the envelope's fields, the
 * transaction block and the Debezium types' base values, which {@link DebeziumTypes} turns into Neo4j's.
 */
class DebeziumEventsTest {
    record Recorded(String topic, String key, String value) {}

    static List<Recorded> recorded() throws Exception {
        List<String> lines = Files.readAllLines(Path.of("src/test/resources/debezium/customers-events.txt"));
        List<Recorded> out = new ArrayList<>();
        for (int i = 0; i + 1 < lines.size(); i += 2) {
            String head = lines.get(i);
            String topic = head.substring(0, head.indexOf('@'));
            String key = head.substring(head.indexOf(" KEY ") + 5);
            out.add(new Recorded(topic, key, lines.get(i + 1).substring("VALUE ".length())));
        }
        return out;
    }

    static Object read(String json) throws Formats.Unreadable {
        return json.equals("null") ? null
                : Formats.read(json.getBytes(StandardCharsets.UTF_8), Format.JSON_SCHEMA, true);
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyRecordOfARealConnectorReads() throws Exception {
        List<Recorded> records = recorded();
        assertThat(records).hasSize(9);
        List<String> ops = new ArrayList<>();
        List<String> statuses = new ArrayList<>();
        for (Recorded r : records) {
            Object value = read(r.value());
            Map<String, Object> key = (Map<String, Object>) read(r.key());
            if (r.topic().equals("shop.transaction")) {
                Map<String, Object> v = (Map<String, Object>) value;
                statuses.add(v.get("status") + " " + String.valueOf(v.get("id")).split(":")[0] + " "
                        + v.get("event_count"));
                continue;
            }
            assertThat(key).containsOnlyKeys("id");
            if (value == null) {
                ops.add("tombstone " + key.get("id"));
                continue;
            }
            Map<String, Object> v = (Map<String, Object>) value;
            Map<String, Object> row = (Map<String, Object>) (v.get("after") != null ? v.get("after") : v.get("before"));
            Map<String, Object> tx = (Map<String, Object>) v.get("transaction");
            Map<String, Object> source = (Map<String, Object>) v.get("source");
            ops.add(v.get("op") + " " + row.get("id") + (tx == null ? "" : " tx " + String.valueOf(tx.get("id"))
                    .split(":")[0] + "/" + tx.get("total_order") + " = " + source.get("txId")));
            if (v.get("after") != null) {
                Map<String, Object> after = (Map<String, Object>) v.get("after");
                assertThat(after.get("born")).isInstanceOf(Long.class);
                assertThat(after.get("balance")).as("Connect's Decimal: its text").isInstanceOf(String.class);
            }
        }
        assertThat(ops).containsExactly("r 1", "c 2 tx 728/1 = 728", "u 1 tx 728/2 = 728", "d 2 tx 729/1 = 729",
                "tombstone 2");
        assertThat(statuses).containsExactly("BEGIN 728 null", "END 728 2", "BEGIN 729 null", "END 729 1");
        Map<String, Object> snapshot = (Map<String, Object>) read(records.get(4).value());
        Map<String, Object> ada = (Map<String, Object>) snapshot.get("after");
        assertThat(DebeziumTypes.convert("io.debezium.time.Date", ada.get("born"), "after.born"))
                .isEqualTo(LocalDate.of(1815, 12, 10));
        assertThat(ada.get("balance")).isEqualTo("12.50");
    }

    @Test
    @SuppressWarnings("unchecked")
    void readAsDebeziumTheTypesAreNeo4jsAlready() throws Exception {
        Map<String, Object> snapshot = (Map<String, Object>) Formats.readDebezium(recorded().get(4).value()
                .getBytes(StandardCharsets.UTF_8), Format.JSON_SCHEMA, true);
        Map<String, Object> ada = (Map<String, Object>) snapshot.get("after");
        assertThat(ada.get("born")).isEqualTo(LocalDate.of(1815, 12, 10));
        assertThat(ada.get("balance")).isEqualTo("12.50");
        assertThat(((Map<String, Object>) snapshot.get("source")).get("ts_ms")).isInstanceOf(Long.class);
    }
}
