package io.sluice.topic;

import io.sluice.vocab.GraphValues.GraphDuration;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Map;

/**
 * Debezium's semantic types as Neo4j values: what a column of a relational table becomes in the graph, from the
 * type's name (a Connect schema's {@code name}, or Avro's {@code connect.name}) and its base value as a converter
 * reads it (Long, String, byte[], or a Map for a struct). Debezium's PostgreSQL connector writes these
 * (docs/reference/debezium-postgres.md, section 1.7); Kafka Connect's own logical types are read by {@code Formats}.
 *
 * <table>
 *   <caption>Debezium's types in the graph</caption>
 *   <tr><th>Debezium type</th><th>base value</th><th>Neo4j value</th></tr>
 *   <tr><td>{@code io.debezium.time.Date}</td><td>days since the epoch</td><td>Date</td></tr>
 *   <tr><td>{@code io.debezium.time.Time}, {@code MicroTime}, {@code NanoTime}</td><td>ms, µs, ns of the day</td>
 *       <td>LocalTime</td></tr>
 *   <tr><td>{@code io.debezium.time.Timestamp}, {@code MicroTimestamp}, {@code NanoTimestamp}</td><td>ms, µs, ns
 *       since the epoch, the wall clock read as UTC</td><td>LocalDateTime</td></tr>
 *   <tr><td>{@code io.debezium.time.ZonedTimestamp}</td><td>ISO-8601 text in UTC</td><td>DateTime (offset Z)</td></tr>
 *   <tr><td>{@code io.debezium.time.ZonedTime}</td><td>ISO-8601 text</td><td>Time (with offset)</td></tr>
 *   <tr><td>{@code io.debezium.time.IsoDate}, {@code IsoTime}, {@code IsoTimestamp}</td><td>ISO-8601 text</td>
 *       <td>Date, Time, DateTime</td></tr>
 *   <tr><td>{@code io.debezium.time.MicroDuration}</td><td>µs (a month is 365.25/12 days)</td><td>Duration in
 *       seconds and nanoseconds</td></tr>
 *   <tr><td>{@code io.debezium.time.Interval}</td><td>ISO-8601 text</td><td>Duration (months, days, seconds)</td></tr>
 *   <tr><td>{@code io.debezium.data.VariableScaleDecimal}</td><td>{@code {scale, value}}, the unscaled value in
 *       two's complement</td><td>its decimal text, as {@code Formats} gives Connect's {@code Decimal}: Neo4j has no
 *       decimal type and a Float would round it</td></tr>
 *   <tr><td>{@code io.debezium.data.Uuid}, {@code Json}, {@code Enum}, {@code Xml}</td><td>text</td><td>String
 *       (a JSON document stays its text: Neo4j's properties hold no maps)</td></tr>
 *   <tr><td>{@code io.debezium.data.Bits}</td><td>bytes</td><td>ByteArray</td></tr>
 * </table>
 * PostgreSQL's {@code infinity} timestamps (Debezium's sentinels, or the text {@code infinity}) have no Neo4j value:
 * such a value is {@link Unconvertible} (dead-lettered with what it was). Any other name: the base value as it is.
 * Stateless and thread-safe.
 */
public final class DebeziumTypes {
    /** What Debezium writes for PostgreSQL's {@code infinity} and {@code -infinity} as MicroTimestamp. */
    private static final long MICRO_INFINITY = 9223372036825200000L;
    private static final long MICRO_MINUS_INFINITY = -9223372036832400000L;

    private DebeziumTypes() {}

    /** A value of a Debezium type that has no Neo4j value, or is not of its type's shape; its message says which. */
    public static final class Unconvertible extends Exception {
        private static final long serialVersionUID = 1L;

        Unconvertible(String message) {
            super(message);
        }
    }

    /** Whether {@code name} is a Debezium semantic type this class converts. */
    public static boolean known(String name) {
        return name != null && (name.startsWith("io.debezium.time.") || name.startsWith("io.debezium.data."));
    }

    /** {@code base}, of the Debezium type {@code name}, as a Neo4j value; {@code at} names it in an error. */
    public static Object convert(String name, Object base, String at) throws Unconvertible {
        if (base == null || !known(name)) {
            return base;
        }
        try {
            return switch (name) {
                case "io.debezium.time.Date" -> LocalDate.ofEpochDay(whole(base, name, at));
                case "io.debezium.time.Time" -> LocalTime.ofNanoOfDay(whole(base, name, at) * 1_000_000L);
                case "io.debezium.time.MicroTime" -> LocalTime.ofNanoOfDay(whole(base, name, at) * 1_000L);
                case "io.debezium.time.NanoTime" -> LocalTime.ofNanoOfDay(whole(base, name, at));
                case "io.debezium.time.Timestamp" -> utc(Instant.ofEpochMilli(whole(base, name, at)));
                case "io.debezium.time.MicroTimestamp" -> micros(whole(base, name, at), at);
                case "io.debezium.time.NanoTimestamp" -> {
                    long nanos = whole(base, name, at);
                    if (nanos == Long.MAX_VALUE || nanos == Long.MIN_VALUE) {
                        throw infinite(at);
                    }
                    yield utc(Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L),
                            Math.floorMod(nanos, 1_000_000_000L)));
                }
                case "io.debezium.time.ZonedTimestamp", "io.debezium.time.IsoTimestamp" ->
                        zoned(text(base, name, at), at);
                case "io.debezium.time.ZonedTime", "io.debezium.time.IsoTime" ->
                        OffsetTime.parse(text(base, name, at), DateTimeFormatter.ISO_OFFSET_TIME);
                case "io.debezium.time.IsoDate" -> LocalDate.parse(text(base, name, at), DateTimeFormatter.ISO_DATE);
                case "io.debezium.time.MicroDuration" -> {
                    long micros = whole(base, name, at);
                    yield new GraphDuration(0, 0, Math.floorDiv(micros, 1_000_000L),
                            (int) (Math.floorMod(micros, 1_000_000L) * 1_000L));
                }
                case "io.debezium.time.Interval" -> interval(text(base, name, at), at);
                case "io.debezium.data.VariableScaleDecimal" -> variableScale(base, at);
                case "io.debezium.data.Bits" -> base instanceof byte[] ? base : bytes(base, name, at);
                default -> base; // Uuid, Json, Enum, Xml, and names this class does not know: their text or value
            };
        } catch (java.time.DateTimeException | ArithmeticException | NumberFormatException e) { // 24:00, overflow
            throw new Unconvertible(at + ": " + name + " " + base + " is not a value Neo4j can hold ("
                    + e.getMessage() + ")");
        }
    }

    private static LocalDateTime utc(Instant instant) {
        return LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    private static LocalDateTime micros(long micros, String at) throws Unconvertible {
        if (micros == MICRO_INFINITY || micros == MICRO_MINUS_INFINITY) {
            throw infinite(at);
        }
        return utc(Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L));
    }

    private static ZonedDateTime zoned(String text, String at) throws Unconvertible {
        if (text.endsWith("infinity")) {
            throw infinite(at);
        }
        return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toZonedDateTime();
    }

    /** ISO-8601 {@code PnYnMnDTnHnMnS} (Debezium's {@code interval.handling.mode=string}) as Neo4j's duration. */
    private static GraphDuration interval(String text, String at) throws Unconvertible {
        java.util.regex.Matcher m = INTERVAL.matcher(text);
        if (!m.matches()) {
            throw new Unconvertible(at + ": io.debezium.time.Interval '" + text + "' is not ISO-8601");
        }
        long months = part(m.group(1)) * 12 + part(m.group(2));
        long days = part(m.group(3));
        BigDecimal seconds = BigDecimal.valueOf(part(m.group(4)) * 3600 + part(m.group(5)) * 60)
                .add(m.group(6) == null ? BigDecimal.ZERO : new BigDecimal(m.group(6)));
        long whole = seconds.setScale(0, java.math.RoundingMode.FLOOR).longValueExact();
        int nanos = seconds.subtract(BigDecimal.valueOf(whole)).movePointRight(9).intValue();
        return new GraphDuration(months, days, whole, nanos);
    }

    private static final java.util.regex.Pattern INTERVAL = java.util.regex.Pattern.compile(
            "P(?:(-?\\d+)Y)?(?:(-?\\d+)M)?(?:(-?\\d+)D)?(?:T(?:(-?\\d+)H)?(?:(-?\\d+)M)?(?:(-?\\d+(?:\\.\\d+)?)S)?)?");

    private static long part(String group) {
        return group == null ? 0 : Long.parseLong(group);
    }

    private static String variableScale(Object base, String at) throws Unconvertible {
        if (!(base instanceof Map<?, ?> m) || !(m.get("scale") instanceof Number scale)) {
            throw new Unconvertible(at + ": io.debezium.data.VariableScaleDecimal must be {scale, value}, got "
                    + base);
        }
        byte[] unscaled = m.get("value") instanceof byte[] b ? b : bytes(m.get("value"), "value", at);
        return new BigDecimal(new BigInteger(unscaled), scale.intValue()).toPlainString();
    }

    private static long whole(Object base, String name, String at) throws Unconvertible {
        if (base instanceof Long l) {
            return l;
        }
        if (base instanceof Integer i) {
            return i;
        }
        throw new Unconvertible(at + ": " + name + " must be a whole number, got " + base);
    }

    private static String text(Object base, String name, String at) throws Unconvertible {
        if (base instanceof String s) {
            return s;
        }
        throw new Unconvertible(at + ": " + name + " must be text, got " + base);
    }

    private static byte[] bytes(Object base, String name, String at) throws Unconvertible {
        if (base instanceof String s) {
            try {
                return Base64.getDecoder().decode(s);
            } catch (IllegalArgumentException e) {
                throw new Unconvertible(at + ": " + name + " is not base64");
            }
        }
        throw new Unconvertible(at + ": " + name + " must be bytes, got " + base);
    }

    private static Unconvertible infinite(String at) {
        return new Unconvertible(at + ": PostgreSQL's infinity has no Neo4j value");
    }
}
