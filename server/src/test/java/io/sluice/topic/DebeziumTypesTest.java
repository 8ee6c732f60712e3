package io.sluice.topic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.vocab.GraphValues.GraphDuration;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Debezium's semantic types as docs/reference/debezium-postgres.md (section 1.7) says its connector writes them. */
class DebeziumTypesTest {
    static Object convert(String type, Object base) throws DebeziumTypes.Unconvertible {
        return DebeziumTypes.convert(type, base, "after.x");
    }

    @Test
    void datesTimesAndTimestampsInEveryPrecision() throws Exception {
        assertThat(convert("io.debezium.time.Date", 20_424L)).isEqualTo(LocalDate.of(2025, 12, 2));
        assertThat(convert("io.debezium.time.Date", -1L)).isEqualTo(LocalDate.of(1969, 12, 31));
        assertThat(convert("io.debezium.time.Time", 37_815_500L)).isEqualTo(LocalTime.of(10, 30, 15, 500_000_000));
        assertThat(convert("io.debezium.time.MicroTime", 37_815_000_001L))
                .isEqualTo(LocalTime.of(10, 30, 15, 1_000));
        assertThat(convert("io.debezium.time.NanoTime", 37_815_000_000_001L)).isEqualTo(LocalTime.of(10, 30, 15, 1));
        LocalDateTime at = LocalDateTime.of(2026, 12, 2, 9, 51, 53, 123_456_000);
        long micros = at.toEpochSecond(ZoneOffset.UTC) * 1_000_000L + 123_456;
        assertThat(convert("io.debezium.time.MicroTimestamp", micros)).isEqualTo(at);
        assertThat(convert("io.debezium.time.Timestamp", micros / 1000)).isEqualTo(at.withNano(123_000_000));
        assertThat(convert("io.debezium.time.NanoTimestamp", micros * 1000 + 7)).isEqualTo(at.withNano(123_456_007));
        assertThat(convert("io.debezium.time.MicroTimestamp", -1L))
                .isEqualTo(LocalDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000));
        assertThat(convert("io.debezium.time.ZonedTimestamp", "2026-12-02T09:51:53.123456Z"))
                .isEqualTo(ZonedDateTime.of(at, ZoneOffset.UTC));
        assertThat(convert("io.debezium.time.ZonedTime", "10:15:30.5Z"))
                .isEqualTo(OffsetTime.of(10, 15, 30, 500_000_000, ZoneOffset.UTC));
        assertThat(convert("io.debezium.time.IsoDate", "2017-09-15Z")).isEqualTo(LocalDate.of(2017, 9, 15));
        assertThat(convert("io.debezium.time.IsoTimestamp", "2019-07-09T02:28:57.123456Z"))
                .isEqualTo(ZonedDateTime.of(2019, 7, 9, 2, 28, 57, 123_456_000, ZoneOffset.UTC));
    }

    @Test
    void durationsDecimalsAndText() throws Exception {
        assertThat(convert("io.debezium.time.MicroDuration", 90_000_001L)).isEqualTo(new GraphDuration(0, 0, 90, 1_000));
        assertThat(convert("io.debezium.time.Interval", "P1Y2M3DT4H5M6.78S"))
                .isEqualTo(new GraphDuration(14, 3, 4 * 3600 + 5 * 60 + 6, 780_000_000));
        byte[] unscaled = BigInteger.valueOf(-12_345).toByteArray();
        assertThat(convert("io.debezium.data.VariableScaleDecimal", Map.of("scale", 2, "value", unscaled)))
                .isEqualTo("-123.45");
        assertThat(convert("io.debezium.data.VariableScaleDecimal",
                Map.of("scale", 0, "value", Base64.getEncoder().encodeToString(BigInteger.TEN.toByteArray()))))
                .isEqualTo("10");
        assertThat(convert("io.debezium.data.Uuid", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"))
                .isEqualTo("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
        assertThat(convert("io.debezium.data.Json", "{\"a\": 1}")).isEqualTo("{\"a\": 1}");
        assertThat(convert("io.debezium.data.Enum", "happy")).isEqualTo("happy");
        assertThat(convert("org.example.Other", 5L)).as("not Debezium's: as it is").isEqualTo(5L);
        assertThat(convert("io.debezium.time.Date", null)).isNull();
    }

    @Test
    void whatNeo4jCannotHoldIsUnreadableAndSaysWhere() {
        assertThatThrownBy(() -> convert("io.debezium.time.MicroTimestamp", 9223372036825200000L))
                .isInstanceOf(DebeziumTypes.Unconvertible.class).hasMessageContaining("after.x").hasMessageContaining("infinity");
        assertThatThrownBy(() -> convert("io.debezium.time.ZonedTimestamp", "infinity"))
                .isInstanceOf(DebeziumTypes.Unconvertible.class).hasMessageContaining("infinity");
        assertThatThrownBy(() -> convert("io.debezium.time.Date", "2020-01-01"))
                .isInstanceOf(DebeziumTypes.Unconvertible.class).hasMessageContaining("whole number");
        assertThatThrownBy(() -> convert("io.debezium.time.ZonedTimestamp", "yesterday"))
                .isInstanceOf(DebeziumTypes.Unconvertible.class).hasMessageContaining("after.x");
        assertThatThrownBy(() -> convert("io.debezium.time.Interval", "one hour"))
                .isInstanceOf(DebeziumTypes.Unconvertible.class).hasMessageContaining("ISO-8601");
        assertThatThrownBy(() -> convert("io.debezium.data.VariableScaleDecimal", "1.5"))
                .isInstanceOf(DebeziumTypes.Unconvertible.class).hasMessageContaining("{scale, value}");
        // PostgreSQL's time '24:00:00' is legal; Neo4j's LocalTime ends before it
        assertThatThrownBy(() -> convert("io.debezium.time.MicroTime", 86_400_000_000L))
                .isInstanceOf(DebeziumTypes.Unconvertible.class).hasMessageContaining("after.x");
        assertThatThrownBy(() -> convert("io.debezium.time.Time", 86_400_000L))
                .isInstanceOf(DebeziumTypes.Unconvertible.class).hasMessageContaining("after.x");
    }
}
