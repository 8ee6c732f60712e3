package io.sluice.csv;

import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.neo4j.values.storable.CSVHeaderInformation;
import org.neo4j.values.storable.DateTimeValue;
import org.neo4j.values.storable.DateValue;
import org.neo4j.values.storable.DurationValue;
import org.neo4j.values.storable.LocalDateTimeValue;
import org.neo4j.values.storable.LocalTimeValue;
import org.neo4j.values.storable.PointValue;
import org.neo4j.values.storable.TemporalValue;
import org.neo4j.values.storable.TimeValue;

/**
 * The property types of the header format, as sluice sends them: numbers, booleans and strings as themselves;
 * temporal values as their ISO-8601 text and points as {@code {x, y[, z], srid}} maps, turned back into Neo4j
 * values by the Cypher function {@link #cypherFunction()}. Parsing uses Neo4j's own value parsers, so the text
 * forms accepted (and the {@code {timezone:...}} and {@code {crs:...}} header options) are the importer's.
 * Like neo4j-admin's default {@code --normalize-types}, int/short/byte become long and float becomes double.
 */
public enum ValueType {
    STRING(null),
    LONG(null),
    DOUBLE(null),
    BOOLEAN(null),
    DATE("date"),
    LOCAL_TIME("localtime"),
    TIME("time"),
    LOCAL_DATE_TIME("localdatetime"),
    DATE_TIME("datetime"),
    DURATION("duration"),
    POINT("point");

    static final Supplier<ZoneId> UTC = () -> ZoneOffset.UTC;
    private static final Map<String, ValueType> NAMES = new HashMap<>();

    static {
        for (String n : List.of("string", "char")) {
            NAMES.put(n, STRING);
        }
        for (String n : List.of("int", "long", "short", "byte")) {
            NAMES.put(n, LONG);
        }
        for (String n : List.of("float", "double")) {
            NAMES.put(n, DOUBLE);
        }
        NAMES.put("boolean", BOOLEAN);
        NAMES.put("date", DATE);
        NAMES.put("localtime", LOCAL_TIME);
        NAMES.put("time", TIME);
        NAMES.put("localdatetime", LOCAL_DATE_TIME);
        NAMES.put("datetime", DATE_TIME);
        NAMES.put("duration", DURATION);
        NAMES.put("point", POINT);
    }

    private final String cypherFunction;

    ValueType(String cypherFunction) {
        this.cypherFunction = cypherFunction;
    }

    /** The type for a header type name ({@code int}, {@code datetime} ...), or null when there is none. */
    static ValueType named(String name) {
        return NAMES.get(name.toLowerCase(Locale.ROOT));
    }

    /** The Cypher function that turns the sent form back into the Neo4j value, or null: sent as itself. */
    public String cypherFunction() {
        return cypherFunction;
    }

    /** Header options ({@code {timezone:...}}, {@code {crs:...}}) in the form Neo4j's parsers take, or null. */
    CSVHeaderInformation headerInformation(Map<String, String> options) {
        if (options.isEmpty()) {
            return null;
        }
        return switch (this) {
            case POINT -> PointValue.parseHeaderInformation(options);
            case TIME, DATE_TIME -> TemporalValue.parseHeaderInformation(options);
            default -> null;
        };
    }

    /**
     * Parses one non-empty value into the form it is sent in.
     *
     * @throws IllegalArgumentException with a short reason when the text is not a value of this type
     */
    Object parse(String text, CSVHeaderInformation info) {
        try {
            return switch (this) {
                case STRING -> text;
                case LONG -> Long.parseLong(text.strip());
                case DOUBLE -> Double.parseDouble(text.strip());
                case BOOLEAN -> parseBoolean(text.strip());
                case DATE -> DateValue.parse(text.strip()).prettyPrint();
                case LOCAL_TIME -> LocalTimeValue.parse(text.strip()).prettyPrint();
                case TIME -> TimeValue.parse(text.strip(), UTC, info).prettyPrint();
                case LOCAL_DATE_TIME -> LocalDateTimeValue.parse(text.strip()).prettyPrint();
                case DATE_TIME -> DateTimeValue.parse(text.strip(), UTC, info).prettyPrint();
                case DURATION -> DurationValue.parse(text.strip()).prettyPrint();
                case POINT -> point(PointValue.parse(text.strip(), info));
            };
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            // Neo4j's parsers throw their own exception types (temporal parse, invalid argument ...)
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    private static Boolean parseBoolean(String s) {
        if (s.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
        }
        if (s.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
        }
        throw new IllegalArgumentException("not true or false");
    }

    private static Map<String, Object> point(PointValue p) {
        double[] c = p.coordinate();
        Map<String, Object> m = new HashMap<>(6);
        m.put("x", c[0]);
        m.put("y", c[1]);
        if (c.length > 2) {
            m.put("z", c[2]);
        }
        m.put("srid", p.getCRS().getCode());
        return m;
    }

    String lowerName() {
        return name().toLowerCase(Locale.ROOT).replace("_", "");
    }
}
