package io.sluice.csv;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.neo4j.values.storable.CSVHeaderInformation;

/**
 * One column of a header: {@code name:TYPE(group){options}}.
 *
 * @param index   position in the row
 * @param raw     the header entry as written
 * @param name    property name (properties, {@code name:ID}); null when none was given
 * @param kind    what the column holds
 * @param type    value type of a property or ID column; null for the others
 * @param array   a property written {@code type[]}: the field is split on the array delimiter
 * @param group   the ID space of an ID, START_ID or END_ID column; null for the global space
 * @param options the {@code {key:value}} options
 * @param info    the options as Neo4j's value parsers take them ({@code timezone}, {@code crs}), or null
 */
public record Column(int index, String raw, String name, Kind kind, ValueType type, boolean array, String group,
        Map<String, String> options, CSVHeaderInformation info) {

    public Column {
        options = Map.copyOf(options);
    }

    /** Column kinds of the header format. */
    public enum Kind { ID, START_ID, END_ID, LABEL, TYPE, IGNORE, PROPERTY }

    /**
     * Parses a value of this property (or ID) column; null for an empty value.
     *
     * @throws IllegalArgumentException naming the column and the value when it does not parse
     */
    Object parse(String text, CsvFormat f) {
        if (text == null) {
            return null;
        }
        String t = f.trimStrings() ? text.strip() : text;
        if (t.isEmpty() && (type != ValueType.STRING || array || f.ignoreEmptyStrings())) {
            return null;
        }
        try {
            if (!array) {
                return type.parse(t, info);
            }
            List<Object> out = new ArrayList<>();
            int start = 0;
            char d = f.arrayDelimiter();
            for (int i = 0; i <= t.length(); i++) {
                if (i == t.length() || t.charAt(i) == d) {
                    String element = t.substring(start, i);
                    out.add(type.parse(f.trimStrings() ? element.strip() : element, info));
                    start = i + 1;
                }
            }
            return out;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("column '" + raw + "': cannot read '" + abbreviate(text) + "' as "
                    + type.lowerName() + (array ? "[]" : "") + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"), e);
        }
    }

    /** The field of a row that carries this property: {@code p<index>}, or {@code c<index>} when converted. */
    public String field() {
        return (type.cypherFunction() == null ? "p" : "c") + index;
    }

    /** The ID space of an ID, START_ID or END_ID column: its group, or {@code ""} for the global space. */
    public String space() {
        return group == null ? "" : group;
    }

    /** An ID space as messages name it: {@code ID space 'User'}, or {@code the global ID space}. */
    public static String describeSpace(String space) {
        return space.isEmpty() ? "the global ID space" : "ID space '" + space + "'";
    }

    static String abbreviate(String s) {
        return s.length() > 60 ? s.substring(0, 60) + "..." : s;
    }
}
