package io.sluice.topic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Connect's envelope read the fast way ({@link EnvelopeReader}: the schema recognised by its bytes, the payload from
 * the token stream) gives what the general reader ({@code Formats.general}, through a tree) gives, values and
 * errors alike, for the real connector's records and for every type, null, default and malformed case; and the
 * records a converter usually writes do take the shortcut.
 */
class EnvelopeReaderTest {
    static final String B64_1234 = Base64.getEncoder().encodeToString(new java.math.BigInteger("1234").toByteArray());

    /** A struct schema of the fields given ({@code "type":...,"field":...} objects), and the payload. */
    static String envelope(String fields, String payload) {
        return "{\"schema\":{\"type\":\"struct\",\"fields\":[" + fields + "],\"optional\":false,\"name\":\"x.Value\"},"
                + "\"payload\":" + payload + "}";
    }

    static final String EVERY_TYPE = String.join(",",
            "{\"type\":\"int8\",\"optional\":false,\"field\":\"i8\"}",
            "{\"type\":\"int16\",\"optional\":false,\"field\":\"i16\"}",
            "{\"type\":\"int32\",\"optional\":false,\"field\":\"i32\"}",
            "{\"type\":\"int64\",\"optional\":true,\"field\":\"i64\"}",
            "{\"type\":\"float\",\"optional\":true,\"field\":\"f32\"}",
            "{\"type\":\"double\",\"optional\":true,\"field\":\"f64\"}",
            "{\"type\":\"boolean\",\"optional\":true,\"field\":\"b\"}",
            "{\"type\":\"string\",\"optional\":true,\"field\":\"s\"}",
            "{\"type\":\"bytes\",\"optional\":true,\"field\":\"raw\"}",
            "{\"type\":\"bytes\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Decimal\",\"version\":1,"
                    + "\"parameters\":{\"scale\":\"2\"},\"field\":\"dec\"}",
            "{\"type\":\"int32\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Date\",\"field\":\"d\"}",
            "{\"type\":\"int32\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Time\",\"field\":\"t\"}",
            "{\"type\":\"int64\",\"optional\":true,\"name\":\"org.apache.kafka.connect.data.Timestamp\",\"field\":\"ts\"}",
            "{\"type\":\"int32\",\"optional\":true,\"name\":\"io.debezium.time.Date\",\"field\":\"dd\"}",
            "{\"type\":\"int64\",\"optional\":true,\"name\":\"io.debezium.time.MicroTimestamp\",\"field\":\"mts\"}",
            "{\"type\":\"string\",\"optional\":true,\"name\":\"io.debezium.time.ZonedTimestamp\",\"field\":\"zts\"}",
            "{\"type\":\"string\",\"optional\":true,\"name\":\"io.debezium.data.Uuid\",\"field\":\"u\"}",
            "{\"type\":\"struct\",\"fields\":[{\"type\":\"int32\",\"optional\":false,\"field\":\"scale\"},"
                    + "{\"type\":\"bytes\",\"optional\":false,\"field\":\"value\"}],\"optional\":true,"
                    + "\"name\":\"io.debezium.data.VariableScaleDecimal\",\"field\":\"vsd\"}",
            "{\"type\":\"array\",\"items\":{\"type\":\"int32\",\"optional\":true},\"optional\":true,\"field\":\"arr\"}",
            "{\"type\":\"map\",\"keys\":{\"type\":\"string\",\"optional\":false},\"values\":{\"type\":\"string\","
                    + "\"optional\":true},\"optional\":true,\"field\":\"m\"}",
            "{\"type\":\"int32\",\"optional\":true,\"default\":7,\"field\":\"withDefault\"}");

    static final String FULL = "{\"i8\":1,\"i16\":-2,\"i32\":30000,\"i64\":9007199254740993,\"f32\":1.5,\"f64\":2,"
            + "\"b\":true,\"s\":\"h\\u00e9\\\"llo\",\"raw\":\"AQID\",\"dec\":\"" + B64_1234 + "\",\"d\":19000,\"t\":3600000,"
            + "\"ts\":1700000000123,\"dd\":-1,\"mts\":1700000000123456,\"zts\":\"2024-01-02T03:04:05.123456Z\","
            + "\"u\":\"0e3c1cd3-9f70-4bbd-8d0f-8a9a0ddbb7d1\",\"vsd\":{\"scale\":3,\"value\":\"" + B64_1234 + "\"},"
            + "\"arr\":[1,null,3],\"m\":{\"a\":\"x\",\"b\":null},\"extra\":{\"ignored\":[1,{\"x\":\"}\"}]},"
            + "\"withDefault\":5}";

    /** The same reading both ways, for Debezium's types and Connect's alone; true when the shortcut was taken. */
    static boolean same(String json) throws Exception {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        for (boolean debezium : new boolean[] {true, false}) {
            Object general = null;
            Throwable generalError = catchThrowable(() -> Formats.general(bytes, debezium));
            if (generalError == null) {
                general = Formats.general(bytes, debezium);
            }
            Object fast = null;
            Throwable fastError = catchThrowable(() -> read(bytes, debezium));
            if (fastError == null) {
                fast = read(bytes, debezium);
            }
            if (generalError != null) {
                assertThat(fastError).as(json).isNotNull().hasMessage(generalError.getMessage())
                        .isInstanceOf(generalError.getClass());
            } else {
                assertThat(fastError).as(json).isNull();
                assertThat(comparable(fast)).as(json).isEqualTo(comparable(general));
            }
        }
        return Formats.shortcut(bytes, true);
    }

    static Object read(byte[] bytes, boolean debezium) throws Formats.Unreadable {
        return debezium ? Formats.readDebezium(bytes, io.sluice.config.Format.JSON_SCHEMA, true)
                : Formats.read(bytes, io.sluice.config.Format.JSON_SCHEMA, true);
    }

    /** Byte arrays as lists, so values compare by content. */
    static Object comparable(Object v) {
        if (v instanceof byte[] b) {
            List<Byte> l = new ArrayList<>();
            for (byte x : b) {
                l.add(x);
            }
            return l;
        }
        if (v instanceof Map<?, ?> m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            m.forEach((k, x) -> out.put(k, comparable(x)));
            return new ArrayList<>(out.entrySet()); // the order of the fields matters too
        }
        if (v instanceof List<?> l) {
            return l.stream().map(EnvelopeReaderTest::comparable).toList();
        }
        return v;
    }

    @Test
    void theRealConnectorsRecordsReadTheSameAndTakeTheShortcut() throws Exception {
        for (DebeziumEventsTest.Recorded r : DebeziumEventsTest.recorded()) {
            if (!r.value().equals("null")) {
                assertThat(same(r.value())).as(r.value()).isTrue();
            }
            assertThat(same(r.key())).as(r.key()).isTrue();
        }
    }

    @Test
    void everyTypeNullsAndFieldsOutsideTheSchemaReadTheSame() throws Exception {
        assertThat(same(envelope(EVERY_TYPE, FULL))).isTrue();
        assertThat(same(envelope(EVERY_TYPE, "{\"i8\":1,\"i16\":2,\"i32\":3,\"withDefault\":1}")))
                .as("missing optional fields are null").isTrue();
        assertThat(same(envelope(EVERY_TYPE, "{\"i8\":1,\"i16\":2,\"i32\":3}"))).as("a default, missing").isTrue();
        assertThat(same(envelope(EVERY_TYPE, "{\"i8\":1,\"i16\":2,\"i32\":3,\"withDefault\":null}")))
                .as("a default, null (Debezium's source.snapshot)").isTrue();
        assertThat(same(envelope(EVERY_TYPE, FULL.replace("\"b\":true", "\"b\":null")))).isTrue();
        assertThat(same(envelope(EVERY_TYPE, FULL) + "\n")).as("a trailing newline").isTrue();
        // the same schema again, from the cache, with other values
        assertThat(same(envelope(EVERY_TYPE, FULL.replace("\"i8\":1", "\"i8\":-128")))).isTrue();
    }

    @Test
    void manySchemasOneAfterAnotherEachReadByItsOwn() throws Exception {
        // more than the cache keeps, and schemas that begin with another's bytes: each record read by its own
        for (int i = 0; i < EnvelopeReader.CACHED + 44; i++) {
            String field = "{\"type\":\"int32\",\"optional\":true,\"field\":\"f" + i + "\"}";
            assertThat(same(envelope(field, "{\"f" + i + "\":" + i + "}"))).isTrue();
            assertThat(same(envelope(field + "," + field.replace("\"f", "\"g"), "{\"f" + i + "\":1,\"g" + i + "\":2}")))
                    .isTrue();
            Object v = Formats.read(envelope(field, "{\"f" + i + "\":" + i + "}").getBytes(StandardCharsets.UTF_8),
                    io.sluice.config.Format.JSON_SCHEMA, true);
            assertThat(v).isEqualTo(Map.of("f" + i, (long) i));
        }
    }

    @Test
    void whatTheShortcutLeavesToTheGeneralReaderStillReadsTheSame() throws Exception {
        // a decimal as a number, a map of other keys, a pretty-printed record, no schema: read the general way
        String decimal = "{\"type\":\"bytes\",\"optional\":false,\"name\":\"org.apache.kafka.connect.data.Decimal\","
                + "\"parameters\":{\"scale\":\"2\"},\"field\":\"dec\"}";
        assertThat(same(envelope(decimal, "{\"dec\":12.50}"))).isFalse();
        String pairs = "{\"type\":\"map\",\"keys\":{\"type\":\"int32\"},\"values\":{\"type\":\"string\"},"
                + "\"optional\":false,\"field\":\"m\"}";
        assertThat(same(envelope(pairs, "{\"m\":[[1,\"a\"],[2,\"b\"]]}"))).isFalse();
        assertThat(same(envelope(EVERY_TYPE, FULL).replace(",\"payload\":", ", \"payload\" : "))).isFalse();
        assertThat(same("{\"schema\":null,\"payload\":{\"a\":1}}")).isFalse();
        assertThat(same("{\"payload\":{\"a\":1},\"schema\":null}")).isFalse();
    }

    @Test
    void malformedRecordsGiveTheGeneralReadersErrors() throws Exception {
        List<String> bad = List.of(
                envelope(EVERY_TYPE, FULL.replace("\"i8\":1", "\"i8\":null")), // required
                envelope(EVERY_TYPE, FULL.replace("\"i8\":1", "\"i8\":\"one\"")),
                envelope(EVERY_TYPE, FULL.replace("\"i32\":30000", "\"i32\":1.5")),
                envelope(EVERY_TYPE, FULL.replace("\"i64\":9007199254740993", "\"i64\":99999999999999999999")),
                envelope(EVERY_TYPE, FULL.replace("\"raw\":\"AQID\"", "\"raw\":\"not base64!\"")),
                envelope(EVERY_TYPE, FULL.replace("\"b\":true", "\"b\":1")),
                envelope(EVERY_TYPE, FULL.replace("\"mts\":1700000000123456", "\"mts\":9223372036825200000")),
                envelope(EVERY_TYPE, FULL.replace("\"zts\":\"2024-01-02T03:04:05.123456Z\"", "\"zts\":\"infinity\"")),
                envelope(EVERY_TYPE, FULL.replace("\"arr\":[1,null,3]", "\"arr\":{\"a\":1}")),
                envelope(EVERY_TYPE, FULL) + "{}", // trailing tokens
                envelope(EVERY_TYPE, FULL).substring(0, 200), // cut short
                "{\"schema\":{\"type\":\"nonsense\"},\"payload\":1}",
                // integers past a long where the schema reads a float, or outside the schema: the tree refuses them
                envelope(EVERY_TYPE, FULL.replace("\"f64\":2", "\"f64\":99999999999999999999")),
                envelope(EVERY_TYPE, FULL.replace("\"extra\":{", "\"big\":99999999999999999999,\"extra\":{")),
                envelope(EVERY_TYPE, FULL.replace("\"ignored\":[1,", "\"ignored\":[99999999999999999999,")),
                // an empty decimal, a time past the day: bad data, said, never an exception that stops a consumer
                envelope(EVERY_TYPE, FULL.replace("\"dec\":\"" + B64_1234 + "\"", "\"dec\":\"\"")),
                envelope(EVERY_TYPE, FULL.replace("\"t\":3600000", "\"t\":99999999999")),
                // a byte-order mark where the payload begins: the parser's encoding detection would skip it
                envelope(EVERY_TYPE, "\uFEFF" + FULL),
                // a NUL where the payload begins: Jackson would read that slice as UTF-16, the whole record not
                "{\"schema\":{\"type\":\"int32\",\"optional\":false},\"payload\":1\u0000}",
                // a schema whose fields are an object: the general reader walks its values
                "{\"schema\":{\"type\":\"struct\",\"fields\":{\"a\":{\"type\":\"int32\",\"field\":\"a\"}}},"
                        + "\"payload\":{\"a\":1}}",
                "{\"schema\":{\"type\":\"struct\",\"fields\":[]},\"payload\":{},\"more\":1}");
        for (String json : bad) {
            same(json);
        }
    }
}
